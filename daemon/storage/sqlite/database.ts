/**
 * The SQLite database under the store (./index.ts): one connection, its migrations, its
 * transactions, and every prepared statement, grouped by table (one class per file here).
 * ./statements.ts gathers the table classes' statements into the store's statement table.
 */
import { GroupStatements } from './groups';
import { GroupPruneStatements } from './groupPrune';
import { ClaimStatements } from './claim';
import { PendingCounts } from './counts';
import { openDatabase, type Db, type OpenOptions } from './db';
import { DelayedCounts } from './delayed';
import { JobStatements } from './jobs';
import { DependencyStatements } from './dependencies';
import { ListStatements } from './list';
import { migrateSqlite } from './migrations';
import { OutputStatements } from './output';
import { ProjectStatements } from './projects';
import { WorkflowStatements } from './workflows';
import { QueueStatements } from './queues';
import { RunStatements } from './runs';
import { ScheduleStatements } from './schedules';
import { databaseOpenError, isReadOnly, isStorageFull, readOnlyDatabase, storageFull } from './sqliteErrors';
import { UpkeepStatements } from './upkeep';
import { WalCheckpointer, type WalCheckpointStatus } from './walCheckpoints';
import { WorkerStatements } from './workers';
import { DaemonStatements } from './daemons';
import { TokenStatements } from './tokens';
import { HistoryStatements } from './history';
import { UniqueStatements } from './unique';
import { errorMessage } from '../../../shared/protocol/errors';

/**
 * Who copies the WAL back into the database file. 'auto': SQLite, inside the commit that takes
 * the WAL past 1,000 pages, on the caller's thread. 'background': a worker thread with its own
 * connection (see checkpointer.ts), so no commit pays for it.
 */
export type WalCheckpointMode = 'auto' | 'background';

/** SQLite's default: an automatic checkpoint once the WAL holds this many pages. */
const AUTO_CHECKPOINT_PAGES = 1000;

export interface SqliteDatabaseOptions extends OpenOptions {
  /** Used for migration timestamps. */
  now: number;
  /** Default 'auto'. */
  walCheckpoints?: WalCheckpointMode;
  /** Told when the background checkpointer fails; the store has then gone back to 'auto'. */
  walCheckpointFailed?: (error: Error) => void;
}

export class SqliteDatabase {
  readonly db: Db;
  readonly jobs: JobStatements;
  readonly dependencies: DependencyStatements;
  readonly claims: ClaimStatements;
  readonly groups: GroupStatements;
  readonly groupPrune: GroupPruneStatements;
  readonly runs: RunStatements;
  readonly output: OutputStatements;
  readonly queues: QueueStatements;
  readonly list: ListStatements;
  readonly schedules: ScheduleStatements;
  readonly workers: WorkerStatements;
  readonly daemons: DaemonStatements;
  readonly tokens: TokenStatements;
  readonly history: HistoryStatements;
  readonly unique: UniqueStatements;
  readonly upkeep: UpkeepStatements;
  /** Templates and the ownership records of what a project's apply manages. */
  readonly projects: ProjectStatements;
  readonly workflows: WorkflowStatements;
  /** Counter changes of the open write transaction, written when it commits. */
  readonly counts: PendingCounts;
  /** Delayed jobs per queue, counted when asked and kept while nothing changed them. */
  readonly delayed: DelayedCounts;
  /** The schema migrations this open applied (none for a file already up to date), and how long they took. */
  readonly migrated: { versions: number[]; ms: number };
  /** One transaction wrapper made once: building one per call would cost on every claim. */
  private readonly transaction: ReturnType<Db['transaction']>;
  private checkpointer: WalCheckpointer | null = null;
  /** Open write() calls: above 1, the inner ones are savepoints. */
  private depth = 0;
  /** SQLite rolled back the open transaction under a savepoint; the outer write must fail. */
  private transactionLost = false;
  /** ... and it was for lack of room: the rest of the batch fails with StorageFull too. */
  private lostToFullDisk = false;
  private walCheckpoints: WalCheckpointMode = 'auto';

  constructor(
    readonly path: string,
    options: SqliteDatabaseOptions,
  ) {
    try {
      this.db = openDatabase(path, options);
    } catch (error) {
      throw databaseOpenError(path, error);
    }
    try {
      const started = performance.now();
      const versions = migrateSqlite(this.db, options.now);
      this.migrated = { versions, ms: Math.round(performance.now() - started) };
      this.counts = new PendingCounts(this.db);
      this.delayed = new DelayedCounts(this.db);
      this.jobs = new JobStatements(this.db, this.counts, this.delayed);
      this.dependencies = new DependencyStatements(this.db, this.counts, this.delayed);
      this.runs = new RunStatements(this.db, this.counts);
      this.output = new OutputStatements(this.db);
      this.queues = new QueueStatements(this.db, this.counts, this.delayed);
      this.workers = new WorkerStatements(this.db);
      this.claims = new ClaimStatements(this.db, this.counts, this.delayed, this.queues, this.workers);
      this.groups = new GroupStatements(this.db, this.counts, this.delayed, this.queues);
      this.groupPrune = new GroupPruneStatements(this.db);
      this.list = new ListStatements(this.db);
      this.schedules = new ScheduleStatements(this.db);
      this.daemons = new DaemonStatements(this.db);
      this.tokens = new TokenStatements(this.db);
      this.history = new HistoryStatements(this.db);
      this.unique = new UniqueStatements(this.db);
      this.upkeep = new UpkeepStatements(this.db, this.counts, this.delayed, this.queues);
      this.projects = new ProjectStatements(this.db, this.queues);
      this.workflows = new WorkflowStatements(this.db);
      this.transaction = this.db.transaction((fn: () => unknown) => fn());
      // After the migrations, so the checkpointer's connection finds the file in WAL mode.
      if (options.walCheckpoints === 'background') this.startCheckpointer(options.walCheckpointFailed);
    } catch (error) {
      this.checkpointer?.close();
      this.db.close();
      throw databaseOpenError(path, error);
    }
  }

  private startCheckpointer(failed: ((error: Error) => void) | undefined): void {
    this.db.pragma('wal_autocheckpoint = 0');
    this.walCheckpoints = 'background';
    this.checkpointer = new WalCheckpointer({
      dbPath: this.path,
      onFailure: (error) => {
        // Arrives as an event between transactions. Without a checkpointer nothing would ever
        // copy the WAL back, so the writer checkpoints on commit again, as in 'auto'.
        this.walCheckpoints = 'auto';
        if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
        (failed ?? ((e: Error) => console.error(`spool store: the background WAL checkpointer failed; checkpoints run on commit again: ${e.stack ?? e.message}`)))(error);
      },
    });
  }

  /** Who checkpoints the WAL now, and what the background checkpointer has done if there is one. */
  walCheckpointStatus(): { mode: WalCheckpointMode; checkpointer: WalCheckpointStatus | null } {
    // While open, read from the connection itself: 'background' means its own checkpoints are off.
    const mode = this.db.open ? (this.db.pragma('wal_autocheckpoint', { simple: true }) === 0 ? 'background' : 'auto') : this.walCheckpoints;
    return { mode, checkpointer: this.checkpointer?.status() ?? null };
  }

  /**
   * Runs `fn` in a write transaction started with BEGIN IMMEDIATE, so that with two processes
   * on one file the write lock is taken up front (waiting up to busy_timeout) rather than on
   * the first write, where SQLite could only fail with SQLITE_BUSY. `fn` must be synchronous.
   * A `bookkeeping` commit (WriteOptions in ../store.ts) does not wake the background checkpointer.
   */
  write<T>(fn: () => T, bookkeeping = false): T {
    // Inside an open write, better-sqlite3 makes this a savepoint (Engine.batch, group commit).
    const outermost = this.depth === 0;
    if (!outermost && this.transactionLost) throw this.lostError();
    let result: T | undefined;
    const mark = this.counts.mark();
    this.depth += 1;
    try {
      this.transaction.immediate(() => {
        result = fn();
        if (outermost) {
          if (this.transactionLost) throw this.lostError();
          // The transaction's counter changes, in the same commit as the jobs they count.
          this.counts.flush();
        }
      });
    } catch (error) {
      if (outermost) this.counts.clear();
      else if (!this.db.inTransaction) {
        // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction,
        // not just this savepoint: everything pending goes, and the rest of the batch must not
        // go on writing outside any transaction.
        this.counts.clear();
        this.transactionLost = true;
        this.lostToFullDisk ||= isStorageFull(error);
      } else this.counts.rollbackTo(mark);
      // Settings read inside the rolled-back transaction (a queue it created) must not outlive it,
      // nor delayed counts kept while it was open.
      this.queues.invalidate();
      this.delayed.clear();
      if (isStorageFull(error)) throw storageFull(this.path);
      if (isReadOnly(error)) throw readOnlyDatabase(this.path, errorMessage(error));
      throw error;
    } finally {
      this.depth -= 1;
      if (outermost) {
        this.transactionLost = false;
        this.lostToFullDisk = false;
      }
    }
    // Tells the background checkpointer, if any, that the WAL has grown (a shared-memory add).
    if (outermost) this.checkpointer?.committed(bookkeeping);
    // fn returned normally (or the transaction threw), so result holds its value.
    return result as T;
  }

  private lostError(): Error {
    return this.lostToFullDisk ? storageFull(this.path) : transactionLostError();
  }

  /** A read transaction: one consistent snapshot for reads that span statements. */
  read<T>(fn: () => T): T {
    let result: T | undefined;
    this.transaction.deferred(() => {
      result = fn();
    });
    return result as T;
  }

  /** Stops the checkpointer first: the writer, closing last, checkpoints what is left and removes the WAL. */
  close(): void {
    this.checkpointer?.close();
    if (this.db.open) this.db.close();
  }
}

export type { Db } from './db';
export type { WalCheckpointStatus } from './walCheckpoints';
export { BUDGETED_CLAIM_SELECT_FOR_PLAN, CLAIM_ANSWER_BUDGET, CLAIM_SELECT_FOR_PLAN, WEIGHTED_CLAIM_SELECT_FOR_PLAN, UNBUDGETED_CLAIM_MAX, compareClaimOrder, type ClaimedJobs, type KindFilter } from './claim';
export { limitColumns, withCounts } from './queues';
export type { JobInsert } from './jobs';

function transactionLostError(): Error {
  return new Error('The write transaction was rolled back by an earlier error in the same batch (a full disk or an I/O error); nothing of the batch was stored. Check the disk (space, errors in the daemon log), then send the requests again.');
}
