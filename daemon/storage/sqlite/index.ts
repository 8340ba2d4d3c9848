/**
 * The SQLite store (../store.ts): one file, one connection (./database.ts), every operation run
 * synchronously inside the call by ./runner.ts, in one write transaction (BEGIN IMMEDIATE) or
 * one read transaction, and its outcome returned as an already settled promise.
 *
 * Working synchronously is what keeps the embedded path fast. better-sqlite3 is synchronous, and
 * a transaction must never span an await (another caller's statements would land inside it), so
 * nothing here awaits. It is also what makes group commit possible: `batch` opens one transaction,
 * and every operation the batched function starts runs inside it, as a savepoint, before that
 * function returns (see daemon/engine/engine.ts for the rule the engine keeps so that this holds).
 */
import type { BackupResult } from '../../../shared/protocol';
import type { ChangeRecorder, Store, StoreDescription, StoreFactory, WriteOptions } from '../store';
import { SqliteDatabase, type WalCheckpointMode, type WalCheckpointStatus } from './database';
import { backupDatabase } from './backup';
import { runSync } from './runner';
import { sqliteStatements } from './statements';
import type { ChangeSink, Op, Statements } from '../statements';

/** How to open the SQLite store: the notions only this store has. */
export interface SqliteOptions {
  /** The SQLite file; created with its folder if missing. */
  dbPath: string;
  /** synchronous=FULL instead of NORMAL: every commit survives power loss, at a cost. */
  durable?: boolean;
  /**
   * Who copies the WAL back into the database file (named so as not to be confused with a job's
   * checkpoint). 'auto' (the default): SQLite does, inside the commit that takes the WAL past
   * 1,000 pages, on the calling thread — milliseconds that one call pays. 'background': a worker
   * thread with its own connection does, and no commit waits for it (the daemon's choice). The
   * thread stops with close().
   */
  walCheckpoints?: WalCheckpointMode;
  /**
   * Told when the background checkpointer fails; the store has then gone back to automatic
   * checkpoints and keeps working. Default: a line on stderr.
   */
  walCheckpointFailed?: (error: Error) => void;
  /** Told what was made owner-only at open (files an older version left readable by others). */
  permissionsTightened?: (changes: string[]) => void;
}

/** The factory an engine is given to open this store. */
export function sqliteStore(options: SqliteOptions): StoreFactory {
  return (changes, now) => new SqliteStore(options, changes, now);
}

export class SqliteStore implements Store {
  readonly description: StoreDescription;
  readonly migrated: { versions: number[]; ms: number };
  /** The file, for SQLite-specific tools and tests. */
  readonly dbPath: string;
  private readonly database: SqliteDatabase;
  private readonly statements: Statements;
  private readonly changes: ChangeRecorder;
  /** Open write() calls: above 1, the inner ones are savepoints of a batch(). */
  private depth = 0;

  constructor(options: SqliteOptions, changes: ChangeRecorder, now: () => number) {
    this.dbPath = options.dbPath;
    this.changes = changes;
    this.database = new SqliteDatabase(options.dbPath, {
      now: now(),
      walCheckpoints: options.walCheckpoints ?? 'auto',
      ...(options.durable === undefined ? {} : { durable: options.durable }),
      ...(options.walCheckpointFailed === undefined ? {} : { walCheckpointFailed: options.walCheckpointFailed }),
      ...(options.permissionsTightened === undefined ? {} : { permissionsTightened: options.permissionsTightened }),
    });
    this.migrated = this.database.migrated;
    this.description = { kind: 'sqlite', location: options.dbPath };
    this.statements = sqliteStatements(this.database);
  }

  /**
   * A consistent copy of the file at `target` while the store keeps working (see backup.ts).
   * SQLite's own: not part of the Store interface (PostgreSQL has pg_dump).
   */
  backup(target: string): Promise<BackupResult> {
    return backupDatabase(this.database.db, target);
  }

  // ------------------------------------------------------------------------------------------
  // Transactions

  /**
   * A write transaction, then the changes it recorded are flushed. Inside batch() it is a
   * savepoint (that is how better-sqlite3 nests transactions): a failing call undoes only itself,
   * and its changes are discarded; the others' wait for the outer commit.
   */
  private writeNow<T>(fn: () => T, bookkeeping = false): T {
    const mark = this.changes.mark();
    let result: T;
    this.depth += 1;
    try {
      result = this.database.write(fn, bookkeeping);
    } catch (error) {
      this.changes.discard(mark);
      throw error;
    } finally {
      this.depth -= 1;
    }
    if (this.depth === 0) this.changes.flush();
    return result;
  }

  /** Runs a job operation (../statements/index.ts) in one write transaction, synchronously, its outcome as a settled promise. */
  write<T>(op: (changes: ChangeSink) => Op<T>, options?: WriteOptions): Promise<T> {
    return settled(() => this.writeNow(() => runSync(op(this.changes), this.statements, this.inSavepoint), options?.bookkeeping === true));
  }

  /** Runs a reading operation in one read transaction (one consistent snapshot), synchronously. */
  read<T>(op: (changes: ChangeSink) => Op<T>): Promise<T> {
    return settled(() => this.database.read(() => runSync(op(this.changes), this.statements, this.inSavepoint)));
  }

  /** A savepoint inside the open write transaction: better-sqlite3 nests transactions that way. */
  private readonly inSavepoint = <U>(fn: () => U): U => this.writeNow(fn);

  batch<T>(fn: () => T): T {
    return this.writeNow(() => {
      const result = fn();
      // A promise here would mean fn awaited before making some of its calls: those would run
      // after the commit, outside the group, and each in a transaction of its own.
      if (result instanceof Promise) throw new Error('batch() takes a synchronous function: a transaction must never span an await');
      return result;
    });
  }

  /** Who checkpoints the WAL now ('background' only while the checkpointer thread works) and its counters. */
  walCheckpointStatus(): { mode: WalCheckpointMode; checkpointer: WalCheckpointStatus | null } {
    return this.database.walCheckpointStatus();
  }

  /** The database itself, for SQLite-specific tests that reach below the interface (raw statements on its connection). */
  get sqlite(): SqliteDatabase {
    return this.database;
  }

  close(): Promise<void> {
    this.database.close();
    return Promise.resolve();
  }
}

/** The outcome of `fn`, run now, as a settled promise: the work is done before this returns. */
function settled<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
