/**
 * The store: one SQLite connection, its migrations, and every prepared statement, grouped by
 * table. Everything SQL in Spool lives under daemon/store/; the engine calls these methods.
 */
import type { JobTemplate } from '../../shared/types';
import { ClaimStatements } from './claim';
import { openDatabase, type Db, type OpenOptions } from './db';
import { JobStatements } from './jobs';
import { ListStatements } from './list';
import { migrate } from './migrations';
import { OutputStatements } from './output';
import { QueueStatements } from './queues';
import { RunStatements } from './runs';
import { ScheduleStatements } from './schedules';
import { UpkeepStatements } from './upkeep';
import { WorkerStatements } from './workers';

export interface StoreOptions extends OpenOptions {
  /** Used for migration timestamps. */
  now: number;
  /** Turns a schedule's stored job template back into its type (validation lives in the engine). */
  parseTemplate: (json: string, scheduleName: string) => JobTemplate;
}

export class Store {
  readonly db: Db;
  readonly jobs: JobStatements;
  readonly claims: ClaimStatements;
  readonly runs: RunStatements;
  readonly output: OutputStatements;
  readonly queues: QueueStatements;
  readonly list: ListStatements;
  readonly schedules: ScheduleStatements;
  readonly workers: WorkerStatements;
  readonly upkeep: UpkeepStatements;
  /** One transaction wrapper made once: building one per call would cost on every claim. */
  private readonly transaction: ReturnType<Db['transaction']>;

  constructor(
    readonly path: string,
    options: StoreOptions,
  ) {
    this.db = openDatabase(path, options);
    try {
      migrate(this.db, options.now);
      this.jobs = new JobStatements(this.db);
      this.claims = new ClaimStatements(this.db);
      this.runs = new RunStatements(this.db);
      this.output = new OutputStatements(this.db);
      this.queues = new QueueStatements(this.db);
      this.list = new ListStatements(this.db);
      this.schedules = new ScheduleStatements(this.db, options.parseTemplate);
      this.workers = new WorkerStatements(this.db);
      this.upkeep = new UpkeepStatements(this.db);
      this.transaction = this.db.transaction((fn: () => unknown) => fn());
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /**
   * Runs `fn` in a write transaction started with BEGIN IMMEDIATE, so that with two processes
   * on one file the write lock is taken up front (waiting up to busy_timeout) rather than on
   * the first write, where SQLite could only fail with SQLITE_BUSY. `fn` must be synchronous.
   */
  write<T>(fn: () => T): T {
    let result: T | undefined;
    try {
      this.transaction.immediate(() => {
        result = fn();
      });
    } catch (error) {
      // Settings read inside the rolled-back transaction (a queue it created) must not outlive it.
      this.queues.invalidate();
      throw error;
    }
    // fn returned normally (or the transaction threw), so result holds its value.
    return result as T;
  }

  /** A read transaction: one consistent snapshot for reads that span statements. */
  read<T>(fn: () => T): T {
    let result: T | undefined;
    this.transaction.deferred(() => {
      result = fn();
    });
    return result as T;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export type { Db } from './db';
export { CLAIM_SELECT_FOR_PLAN, compareClaimOrder, type KindFilter } from './claim';
export { BUCKET_MS } from './runs';
export { emptyCounts, withCounts, type QueueSettings } from './queues';
