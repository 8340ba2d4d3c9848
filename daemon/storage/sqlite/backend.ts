/**
 * The SQLite store behind the storage interface: one file, one connection, every operation run
 * synchronously inside the call, in one write transaction (BEGIN IMMEDIATE) or one read
 * transaction, and its outcome returned as an already settled promise.
 *
 * Working synchronously is what keeps the embedded path fast. better-sqlite3 is synchronous, and
 * a transaction must never span an await (another caller's statements would land inside it), so
 * nothing here awaits. It is also what makes group commit possible: `batch` opens one transaction,
 * and every call the batched function makes runs inside it, as a savepoint, before that function
 * returns (see daemon/engine/engine.ts for the rule the engine keeps so that this holds).
 */
import { type BackupResult } from '../../../shared/protocol';




import type { ChangeRecorder, StorageBackend, StorageFactory, StoragePolicy, StoreDescription } from '../backend';
import { Store, type WalCheckpointMode, type WalCheckpointStatus } from '.';
import { backupDatabase } from './backup';
import { runSync } from './runner';
import { sqliteStatements } from './statements';
import type { ChangeSink, Op, Statements } from '../statements';
import type { SqliteContext } from './ops/context';
import * as upkeep from './ops/upkeep';


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
export function sqliteStorage(options: SqliteOptions): StorageFactory {
  return (policy, changes) => new SqliteBackend(options, policy, changes);
}

export class SqliteBackend implements StorageBackend {
  readonly description: StoreDescription;
  readonly migrated: { versions: number[]; ms: number };
  /** The file, for SQLite-specific tools and tests. */
  readonly dbPath: string;
  private readonly store: Store;
  private readonly ctx: SqliteContext;
  private readonly statements: Statements;
  private readonly changes: ChangeRecorder;
  /** Open write() calls: above 1, the inner ones are savepoints of a batch(). */
  private depth = 0;

  constructor(options: SqliteOptions, policy: StoragePolicy, changes: ChangeRecorder) {
    this.dbPath = options.dbPath;
    this.changes = changes;
    this.store = new Store(options.dbPath, {
      now: policy.now(),
      parseTemplate: policy.parseTemplate,
      walCheckpoints: options.walCheckpoints ?? 'auto',
      ...(options.durable === undefined ? {} : { durable: options.durable }),
      ...(options.walCheckpointFailed === undefined ? {} : { walCheckpointFailed: options.walCheckpointFailed }),
      ...(options.permissionsTightened === undefined ? {} : { permissionsTightened: options.permissionsTightened }),
    });
    this.migrated = this.store.migrated;
    this.description = { kind: 'sqlite', location: options.dbPath };
    this.ctx = { store: this.store, policy, now: policy.now, events: changes };
    this.statements = sqliteStatements(this.store);
  }

  /**
   * A consistent copy of the file at `target` while the store keeps working (see backup.ts).
   * SQLite's own: not part of the storage interface (PostgreSQL has pg_dump).
   */
  backup(target: string): Promise<BackupResult> {
    return backupDatabase(this.store.db, target);
  }

  // ------------------------------------------------------------------------------------------
  // Transactions

  /**
   * A write transaction, then the changes it recorded are flushed. Inside batch() it is a
   * savepoint (that is how better-sqlite3 nests transactions): a failing call undoes only itself,
   * and its changes are discarded; the others' wait for the outer commit.
   */
  private writeNow<T>(fn: (ctx: SqliteContext) => T): T {
    const mark = this.changes.mark();
    let result: T;
    this.depth += 1;
    try {
      result = this.store.write(() => fn(this.ctx));
    } catch (error) {
      this.changes.discard(mark);
      throw error;
    } finally {
      this.depth -= 1;
    }
    if (this.depth === 0) this.changes.flush();
    return result;
  }

  /** writeNow, its outcome as a settled promise: the work is done before this returns. */
  private writeCtx<T>(fn: (ctx: SqliteContext) => T): Promise<T> {
    try {
      return Promise.resolve(this.writeNow(fn));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private readNow<T>(fn: (ctx: SqliteContext) => T): T {
    return this.store.read(() => fn(this.ctx));
  }

  /** A read transaction (one consistent snapshot), its outcome as a settled promise. */
  private readCtx<T>(fn: (ctx: SqliteContext) => T): Promise<T> {
    try {
      return Promise.resolve(this.readNow(fn));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs a job operation (../statements/index.ts) in one write transaction, synchronously, through ./runner.ts. */
  write<T>(op: (changes: ChangeSink) => Op<T>): Promise<T> {
    return this.writeCtx(() => runSync(op(this.changes), this.statements, this.inSavepoint));
  }

  /** Runs a reading operation in one read transaction (one consistent snapshot), synchronously. */
  read<T>(op: (changes: ChangeSink) => Op<T>): Promise<T> {
    return this.readCtx(() => runSync(op(this.changes), this.statements, this.inSavepoint));
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

  // ------------------------------------------------------------------------------------------
  // Jobs

  // ------------------------------------------------------------------------------------------
  // The worker side

  // ------------------------------------------------------------------------------------------
  // Workers

  // ------------------------------------------------------------------------------------------
  // Jobs as code

  // ------------------------------------------------------------------------------------------
  // Schedules

  // ------------------------------------------------------------------------------------------
  // Stats and upkeep

  nextWakeAt(): Promise<number | null> {
    return this.readCtx((ctx) => upkeep.nextWakeAt(ctx));
  }

  /** Who checkpoints the WAL now ('background' only while the checkpointer thread works) and its counters. */
  walCheckpointStatus(): { mode: WalCheckpointMode; checkpointer: WalCheckpointStatus | null } {
    return this.store.walCheckpointStatus();
  }

  /** The store itself, for SQLite-specific tests that reach below the interface (raw statements on its connection). */
  get sqlite(): Store {
    return this.store;
  }

  close(): Promise<void> {
    this.store.close();
    return Promise.resolve();
  }
}
