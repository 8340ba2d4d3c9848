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
import { ErrorCode, type BackupResult, type BulkResult, type HeartbeatResult, type JobOutputResult, type JobWithRuns, type Stats } from '../../../shared/protocol';
import { SpoolError, jobNotFound } from '../../../shared/errors';
import { TERMINAL_STATES, type Job, type JobState, type OutputStream, type Queue, type Schedule, type Worker, type WorkerType } from '../../../shared/types';
import type { BulkInput, ListInput, UpdateInput } from '../../engine/validate/jobs';
import type { ConfigureInput } from '../../engine/validate/queues';
import type { ScheduleChanges, ScheduleInput } from '../../engine/validate/schedules';
import type { FailInput, RegisterInput, ReleaseInput } from '../../engine/validate/worker';
import type {
  ApplyDecision,
  ChangeRecorder,
  CompleteOutcome,
  CounterMismatch,
  DaemonInstance,
  DaemonRegistration,
  ProjectObjects,
  StorageBackend,
  StoredTemplate,
  StoredToken,
  StorageFactory,
  StoragePolicy,
  StoreDescription,
} from '../backend';
import { workerNotFound } from '../errors';
import { Store, type WalCheckpointMode, type WalCheckpointStatus } from '.';
import { backupDatabase } from './backup';
import { runSync } from './runner';
import { sqliteStatements } from './statements';
import type { ChangeSink, Op, Statements } from '../statements';
import * as attempts from './ops/attempts';
import type { SqliteContext } from './ops/context';
import * as manage from './ops/manage';
import * as projects from './ops/projects';
import * as queues from './ops/queues';
import * as schedules from './ops/schedules';
import * as upkeep from './ops/upkeep';
import { registerWorker } from './ops/workers';

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

type BulkAction = (ctx: SqliteContext, id: string) => unknown;

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

  getJob(id: string): Promise<JobWithRuns> {
    return this.readCtx((ctx) => {
      const job = ctx.store.jobs.byId(id);
      if (!job) throw jobNotFound(id);
      return { job, runs: ctx.store.runs.ofJob(id) };
    });
  }

  listJobs(input: ListInput): Promise<Job[]> {
    const { order, limit, after, ...filter } = input;
    return this.readCtx((ctx) => ctx.store.list.list({ ...filter, order, limit, ...(after === undefined ? {} : { after }), now: ctx.now() }));
  }

  output(id: string, after: number, limit: number): Promise<JobOutputResult> {
    return this.readCtx((ctx) => {
      const job = ctx.store.jobs.byId(id);
      if (!job) throw jobNotFound(id);
      const lines = ctx.store.output.page(id, after, limit);
      const last = lines[lines.length - 1];
      const nextAfter = last ? last.seq : after;
      const done = TERMINAL_STATES.includes(job.state) && lines.length < limit;
      return { lines, nextAfter, done };
    });
  }

  outputTail(id: string, last: number): Promise<JobOutputResult> {
    return this.readCtx((ctx) => {
      const job = ctx.store.jobs.byId(id);
      if (!job) throw jobNotFound(id);
      const lines = ctx.store.output.tail(id, last);
      // Nothing is newer than the lines returned, so a finished job's output is complete here.
      return { lines, nextAfter: lines[lines.length - 1]?.seq ?? 0, done: TERMINAL_STATES.includes(job.state) };
    });
  }

  cancel(id: string): Promise<Job> {
    return this.writeCtx((ctx) => manage.cancel(ctx, id));
  }

  retry(id: string): Promise<Job> {
    return this.writeCtx((ctx) => manage.retry(ctx, id));
  }

  update(input: UpdateInput): Promise<Job> {
    return this.writeCtx((ctx) => manage.update(ctx, input));
  }

  deleteJob(id: string): Promise<void> {
    return this.writeCtx((ctx) => manage.deleteJob(ctx, id));
  }

  cancelMany(input: BulkInput): Promise<BulkResult> {
    let stopRequested = 0;
    return this.bulk(input, (ctx, id) => {
      if (manage.cancel(ctx, id).state === 'running') stopRequested += 1;
    }).then((result) => ({ ...result, stopRequested }));
  }

  retryMany(input: BulkInput): Promise<BulkResult> {
    return this.bulk(input, (ctx, id) => manage.retry(ctx, id));
  }

  deleteMany(input: BulkInput): Promise<BulkResult> {
    return this.bulk(input, (ctx, id) => manage.deleteJob(ctx, id));
  }

  /** Ids, or every match of a filter, in transactions of batchSize jobs each. */
  private bulk(input: BulkInput, action: BulkAction): Promise<BulkResult> {
    try {
      const ids = this.readNow((ctx) => manage.bulkIds(ctx, input));
      const result: BulkResult = { count: 0, errors: [] };
      const size = this.ctx.policy.batchSize;
      for (let i = 0; i < ids.length; i += size) {
        const chunk = ids.slice(i, i + size);
        this.writeNow((ctx) => manage.applyEach(chunk, (id) => action(ctx, id), result));
      }
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // ------------------------------------------------------------------------------------------
  // The worker side

  heartbeat(id: string, workerId: string, extendMs: number | undefined): Promise<HeartbeatResult> {
    return this.writeCtx((ctx) => attempts.heartbeat(ctx, id, workerId, extendMs));
  }

  progress(id: string, workerId: string, percent: number, message: string | null): Promise<void> {
    return this.writeCtx((ctx) => attempts.progress(ctx, id, workerId, percent, message));
  }

  checkpoint(id: string, workerId: string, value: string): Promise<void> {
    return this.writeCtx((ctx) => attempts.checkpoint(ctx, id, workerId, value));
  }

  appendOutput(id: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, chunks: readonly string[][]): Promise<void> {
    return this.writeCtx((ctx) => {
      for (const lines of chunks) attempts.appendOutput(ctx, id, workerId, stream, lines);
    });
  }

  complete(id: string, workerId: string, result: string | null): Promise<Job> {
    return this.writeCtx((ctx) => attempts.complete(ctx, id, workerId, result));
  }

  completeMany(items: readonly { id: string; workerId: string; result: string | null }[]): Promise<CompleteOutcome[]> {
    return this.writeCtx((ctx) => attempts.completeMany(ctx, items));
  }

  fail(input: FailInput): Promise<Job> {
    return this.writeCtx((ctx) => attempts.fail(ctx, input));
  }

  release(input: ReleaseInput): Promise<Job> {
    return this.writeCtx((ctx) => attempts.release(ctx, input));
  }

  markCancelled(id: string, workerId: string): Promise<Job> {
    return this.writeCtx((ctx) => attempts.markCancelled(ctx, id, workerId));
  }

  // ------------------------------------------------------------------------------------------
  // Workers

  registerWorker(input: RegisterInput, type: WorkerType): Promise<Worker> {
    return this.writeCtx((ctx) => registerWorker(ctx, input, type));
  }

  registerDaemon(registration: DaemonRegistration): Promise<DaemonInstance> {
    return this.writeCtx((ctx) => {
      ctx.store.daemons.insert({ ...registration, now: ctx.now() });
      const recorded = ctx.store.daemons.get(registration.id);
      if (!recorded) throw new Error(`Daemon ${registration.id} was recorded but cannot be read back`);
      return recorded;
    });
  }

  listDaemons(): Promise<DaemonInstance[]> {
    return this.readCtx((ctx) => ctx.store.daemons.all());
  }

  createToken(token: StoredToken): Promise<void> {
    return this.writeCtx((ctx) => {
      if (ctx.store.tokens.get(token.name)) {
        throw new SpoolError(ErrorCode.AlreadyExists, `A token named "${token.name}" exists already. Revoke it first (spool token revoke ${token.name}), or pick another name.`, { field: 'name' });
      }
      ctx.store.tokens.insert(token);
    });
  }

  listTokens(): Promise<StoredToken[]> {
    return this.readCtx((ctx) => ctx.store.tokens.all());
  }

  revokeToken(name: string): Promise<boolean> {
    return this.writeCtx((ctx) => ctx.store.tokens.delete(name));
  }

  daemonHeartbeat(id: string, pid: number): Promise<boolean> {
    return this.writeCtx((ctx) => ctx.store.daemons.heartbeat(id, pid, ctx.now()));
  }

  daemonStopped(id: string, pid: number): Promise<boolean> {
    return this.writeCtx((ctx) => ctx.store.daemons.stopped(id, pid, ctx.now()));
  }

  forgetDaemon(id: string, pid: number): Promise<boolean> {
    return this.writeCtx((ctx) => ctx.store.daemons.delete(id, pid));
  }

  listWorkers(): Promise<Worker[]> {
    return this.readCtx((ctx) => ctx.store.workers.all());
  }

  touchWorker(workerId: string): Promise<void> {
    return this.writeCtx((ctx) => {
      if (!ctx.store.workers.touch(workerId, ctx.now())) throw workerNotFound(workerId);
    });
  }

  markWorkerGone(workerId: string): Promise<void> {
    return this.writeCtx((ctx) => {
      if (!ctx.store.workers.markGone(workerId)) throw workerNotFound(workerId);
    });
  }

  // ------------------------------------------------------------------------------------------
  // Queues

  listQueues(): Promise<Queue[]> {
    return this.readCtx((ctx) => queues.listQueues(ctx));
  }

  getQueue(name: string): Promise<Queue> {
    return this.readCtx((ctx) => queues.getQueue(ctx, name));
  }

  configureQueue(input: ConfigureInput): Promise<Queue> {
    return this.writeCtx((ctx) => queues.configureQueue(ctx, input));
  }

  setPaused(name: string, paused: boolean): Promise<Queue> {
    return this.writeCtx((ctx) => queues.setPaused(ctx, name, paused));
  }

  /**
   * In batches, one transaction each, so a huge purge never holds the write lock for long
   * against other processes on the file and never builds one enormous WAL transaction. The
   * batches run back to back, synchronously: within this process the purge runs to its end
   * before anything else.
   */
  purgeQueue(name: string, states: JobState[]): Promise<number> {
    try {
      this.readNow((ctx) => queues.getQueue(ctx, name));
      return Promise.resolve(this.purgeAll(name, states));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private purgeAll(name: string, states: JobState[]): number {
    let total = 0;
    for (;;) {
      const deleted = this.writeNow((ctx) => queues.purgeBatch(ctx, name, states));
      total += deleted;
      if (deleted < this.ctx.policy.batchSize) return total;
    }
  }

  deleteQueue(name: string, force: boolean): Promise<number> {
    try {
      this.readNow((ctx) => queues.checkQueueDeletable(ctx, name, force));
      const waitingAndFinished: JobState[] = [...TERMINAL_STATES, 'queued', 'retrying'];
      let purged = force ? this.purgeAll(name, waitingAndFinished) : 0;
      // Checked again with the write lock held: a job may have been enqueued or claimed since the
      // purge; with force, the few that arrived meanwhile go in this same transaction.
      return Promise.resolve(
        this.writeNow((ctx) => {
          if (force) {
            let n: number;
            do {
              n = queues.purgeBatch(ctx, name, waitingAndFinished);
              purged += n;
            } while (n === ctx.policy.batchSize);
          }
          queues.checkQueueDeletable(ctx, name, false);
          queues.deleteQueueRow(ctx, name);
          return purged;
        }),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Jobs as code

  projectObjects(): Promise<ProjectObjects> {
    return this.readCtx((ctx) => projects.projectObjects(ctx));
  }

  listTemplates(): Promise<StoredTemplate[]> {
    return this.readCtx((ctx) => ctx.store.projects.templates());
  }

  getTemplate(name: string): Promise<StoredTemplate> {
    return this.readCtx((ctx) => projects.getTemplate(ctx, name));
  }

  applyProject<T>(decide: (objects: ProjectObjects) => ApplyDecision<T>): Promise<T> {
    // One BEGIN IMMEDIATE around the read, the plan and the writes: a second apply (from this
    // process or another on the file) waits for the write lock and plans against what this one
    // committed.
    return this.writeCtx((ctx) => {
      const decision = decide(projects.projectObjects(ctx));
      for (const write of decision.writes) projects.applyWrite(ctx, write);
      return decision.result;
    });
  }

  // ------------------------------------------------------------------------------------------
  // Schedules

  listSchedules(): Promise<Schedule[]> {
    return this.readCtx((ctx) => ctx.store.schedules.all());
  }

  getSchedule(name: string): Promise<Schedule> {
    return this.readCtx((ctx) => schedules.getSchedule(ctx, name));
  }

  createSchedule(input: ScheduleInput, nextRunAt: number | null): Promise<Schedule> {
    return this.writeCtx((ctx) => schedules.createSchedule(ctx, input, nextRunAt));
  }

  updateSchedule(changes: ScheduleChanges, nextRunAt: number | null | undefined): Promise<Schedule> {
    return this.writeCtx((ctx) => schedules.updateSchedule(ctx, changes, nextRunAt));
  }

  deleteSchedule(name: string): Promise<void> {
    return this.writeCtx((ctx) => schedules.deleteSchedule(ctx, name));
  }

  // ------------------------------------------------------------------------------------------
  // Stats and upkeep

  stats(): Promise<Stats> {
    return this.readCtx((ctx) => upkeep.stats(ctx));
  }

  reapExpiredLeases(): Promise<number> {
    try {
      let total = 0;
      for (;;) {
        const reaped = this.writeNow((ctx) => upkeep.reapBatch(ctx));
        total += reaped;
        if (reaped < this.ctx.policy.batchSize) return Promise.resolve(total);
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }

  recoverInterrupted(workerIds: string[], aliveUntil?: number): Promise<number> {
    return this.writeCtx((ctx) => upkeep.recoverBatch(ctx, workerIds, aliveUntil));
  }

  runningJobIds(workerIds: string[]): Promise<string[]> {
    return this.readCtx((ctx) => ctx.store.jobs.runningOf(workerIds).map((job) => job.id));
  }

  cleanup(limit: number): Promise<number> {
    return this.writeCtx((ctx) => {
      let left = limit;
      let deleted = 0;
      for (const q of ctx.store.queues.all()) {
        if (q.retentionMs === null || left === 0) continue;
        const n = upkeep.retentionBatch(ctx, q.name, q.retentionMs, left);
        deleted += n;
        left -= n;
      }
      upkeep.pruneStatBuckets(ctx);
      return deleted;
    });
  }

  nextWakeAt(): Promise<number | null> {
    return this.readCtx((ctx) => upkeep.nextWakeAt(ctx));
  }

  verifyCounters(): Promise<{ ok: boolean; mismatches: CounterMismatch[] }> {
    return this.readCtx((ctx) => upkeep.verifyCounters(ctx));
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
