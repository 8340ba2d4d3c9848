/**
 * The queue engine: a synchronous library over one SQLite file (see api.ts for the contract).
 *
 * Each public method validates its raw input first (nothing invalid reaches the database), then
 * runs the operation in one write transaction (BEGIN IMMEDIATE) or one read transaction, then
 * delivers the events the transaction produced — only after it committed. The operations
 * themselves live in ops/, one module per area.
 */
import { LIMITS } from '../../shared/protocol';
import type {
  BulkParams,
  BulkResult,
  CheckpointParams,
  CompleteParams,
  ConfigureQueueParams,
  CreateScheduleParams,
  DeleteQueueParams,
  EnqueueParams,
  EnqueueResult,
  FailParams,
  HeartbeatParams,
  HeartbeatResult,
  JobOutputParams,
  JobOutputResult,
  JobWithRuns,
  ListJobsParams,
  ListJobsResult,
  LogParams,
  ProgressParams,
  PurgeQueueParams,
  RegisterWorkerParams,
  ReleaseParams,
  Stats,
  UpdateJobParams,
  UpdateScheduleParams,
} from '../../shared/protocol';
import { jobNotFound } from '../../shared/errors';
import { TERMINAL_STATES, type Job, type JobState, type JobTemplate, type OutputStream, type Queue, type Schedule, type Worker, type WorkerType } from '../../shared/types';
import { Store, type WalCheckpointStatus } from '../storage/sqlite';
import type { CompleteOutcome, EngineClaimParams, EngineListener, EngineOptions, FireScheduleParams, QueueEngine } from './api';
import type { EngineContext } from './context';
import { UPKEEP_BATCH } from './defaults';
import { EventHub } from './events';
import * as attempts from './ops/attempts';
import { claimJobs } from './ops/claim';
import { enqueueMany, enqueueOne } from './ops/enqueue';
import * as manage from './ops/manage';
import * as queues from './ops/queues';
import * as schedules from './ops/schedules';
import * as upkeep from './ops/upkeep';
import { registerWorker, workerNotFound } from './ops/workers';
import { UuidV7 } from './uuid';
import * as v from './validate/jobs';
import { jobId, nameList, name as validName } from './validate/primitives';
import * as vq from './validate/queues';
import * as vs from './validate/schedules';
import * as vw from './validate/worker';

export class Engine implements QueueEngine {
  readonly dbPath: string;
  readonly migrated: { versions: number[]; ms: number };
  private readonly store: Store;
  private readonly events: EventHub;
  private readonly ctx: EngineContext;

  constructor(options: EngineOptions) {
    const now = options.now ?? Date.now;
    this.dbPath = options.dbPath;
    this.events = new EventHub((error) => console.error(`spool engine: an event listener failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
    const storeOptions = {
      now: now(),
      parseTemplate: parseStoredTemplate,
      walCheckpoints: options.walCheckpoints ?? 'auto',
      ...(options.durable === undefined ? {} : { durable: options.durable }),
      ...(options.walCheckpointFailed === undefined ? {} : { walCheckpointFailed: options.walCheckpointFailed }),
    };
    this.store = new Store(options.dbPath, storeOptions);
    this.migrated = this.store.migrated;
    this.ctx = { store: this.store, now, random: options.random ?? Math.random, ids: new UuidV7(now), events: this.events };
  }

  /** How many write() calls are open; above 1, the inner ones are savepoints of a batch(). */
  private depth = 0;

  /**
   * A write transaction, then the events it produced. Inside batch() it is a savepoint (that is
   * how better-sqlite3 nests transactions): a failing call undoes only itself, and events wait
   * for the outer commit.
   */
  private write<T>(fn: (ctx: EngineContext) => T): T {
    const mark = this.events.mark();
    let result: T;
    this.depth += 1;
    try {
      result = this.store.write(() => fn(this.ctx));
    } catch (error) {
      this.events.discard(mark);
      throw error;
    } finally {
      this.depth -= 1;
    }
    if (this.depth === 0) this.events.flush();
    return result;
  }

  batch<T>(fn: () => T): T {
    return this.write(() => {
      const result = fn();
      if (result instanceof Promise) throw new Error('Engine.batch() takes a synchronous function: a transaction must never span an await');
      return result;
    });
  }

  private read<T>(fn: (ctx: EngineContext) => T): T {
    return this.store.read(() => fn(this.ctx));
  }

  // ------------------------------------------------------------------------------------------
  // Jobs

  enqueue(params: EnqueueParams): EnqueueResult {
    const input = v.enqueueParams(params);
    return this.write((ctx) => enqueueOne(ctx, input));
  }

  enqueueBatch(params: { jobs: EnqueueParams[] }): { results: EnqueueResult[] } {
    const inputs = v.enqueueBatchParams(params);
    return this.write((ctx) => ({ results: enqueueMany(ctx, inputs) }));
  }

  getJob(id: string): JobWithRuns {
    const valid = jobId(id);
    return this.read((ctx) => {
      const job = ctx.store.jobs.byId(valid);
      if (!job) throw jobNotFound(valid);
      return { job, runs: ctx.store.runs.ofJob(valid) };
    });
  }

  listJobs(params: ListJobsParams): ListJobsResult {
    const input = v.listParams(params);
    const { order, limit, after, ...filter } = input;
    const jobs = this.read((ctx) => ctx.store.list.list({ ...filter, order, limit: limit + 1, after, now: ctx.now() }));
    const page = jobs.slice(0, limit);
    const last = page[page.length - 1];
    return { jobs: page, nextCursor: jobs.length > limit && last ? v.encodeCursor(order, { id: last.id, runAt: last.runAt }) : null };
  }

  output(params: JobOutputParams): JobOutputResult {
    const input = v.outputParams(params);
    return this.read((ctx) => {
      const job = ctx.store.jobs.byId(input.id);
      if (!job) throw jobNotFound(input.id);
      const lines = ctx.store.output.page(input.id, input.after, input.limit);
      const last = lines[lines.length - 1];
      const nextAfter = last ? last.seq : input.after;
      const done = TERMINAL_STATES.includes(job.state) && lines.length < input.limit;
      return { lines, nextAfter, done };
    });
  }

  cancel(id: string): Job {
    const valid = jobId(id);
    return this.write((ctx) => manage.cancel(ctx, valid));
  }

  retry(id: string): Job {
    const valid = jobId(id);
    return this.write((ctx) => manage.retry(ctx, valid));
  }

  update(params: UpdateJobParams): Job {
    const input = v.updateParams(params);
    return this.write((ctx) => manage.update(ctx, input));
  }

  deleteJob(id: string): void {
    const valid = jobId(id);
    this.write((ctx) => manage.deleteJob(ctx, valid));
  }

  cancelMany(params: BulkParams): BulkResult {
    let stopRequested = 0;
    const result = this.bulk(params, (ctx, id) => {
      if (manage.cancel(ctx, id).state === 'running') stopRequested += 1;
    });
    return { ...result, stopRequested };
  }

  retryMany(params: BulkParams): BulkResult {
    return this.bulk(params, (ctx, id) => manage.retry(ctx, id));
  }

  deleteMany(params: BulkParams): BulkResult {
    return this.bulk(params, (ctx, id) => manage.deleteJob(ctx, id));
  }

  /** Ids, or every match of a filter, in transactions of UPKEEP_BATCH jobs each. */
  private bulk(params: BulkParams, action: (ctx: EngineContext, id: string) => unknown): BulkResult {
    const input = v.bulkParams(params);
    const ids = this.read((ctx) => manage.bulkIds(ctx, input));
    const result: BulkResult = { count: 0, errors: [] };
    for (let i = 0; i < ids.length; i += UPKEEP_BATCH) {
      const chunk = ids.slice(i, i + UPKEEP_BATCH);
      this.write((ctx) => manage.applyEach(chunk, (id) => action(ctx, id), result));
    }
    return result;
  }

  // ------------------------------------------------------------------------------------------
  // The worker side

  claim(params: EngineClaimParams): Job[] {
    const input = vw.claimParams(params);
    return this.write((ctx) => claimJobs(ctx, input));
  }

  heartbeat(params: HeartbeatParams): HeartbeatResult {
    const input = vw.heartbeatParams(params);
    return this.write((ctx) => attempts.heartbeat(ctx, input.id, input.workerId, input.extendMs));
  }

  progress(params: ProgressParams): void {
    const input = vw.progressParams(params);
    this.write((ctx) => attempts.progress(ctx, input.id, input.workerId, input.percent, input.message));
  }

  checkpoint(params: CheckpointParams): void {
    const input = vw.checkpointParams(params);
    this.write((ctx) => attempts.checkpoint(ctx, input.id, input.workerId, input.checkpoint));
  }

  log(params: LogParams): void {
    const input = vw.logParams(params);
    this.write((ctx) => attempts.appendOutput(ctx, input.id, input.workerId, input.stream, input.lines));
  }

  appendOutput(jobId: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, lines: string[]): void {
    // The wire's per-call limit (LIMITS.maxBatch lines) does not bind the daemon's own executors:
    // a shell command can print thousands of lines between two reads. They are stored in chunks
    // of the wire's size, all in one transaction.
    const chunks: ReturnType<typeof vw.logParams>[] = [];
    for (let i = 0; i === 0 || i < lines.length; i += LIMITS.maxBatch) {
      chunks.push(vw.logParams({ id: jobId, workerId, stream, lines: lines.slice(i, i + LIMITS.maxBatch) }));
    }
    this.write((ctx) => {
      for (const input of chunks) attempts.appendOutput(ctx, input.id, input.workerId, input.stream, input.lines);
    });
  }

  complete(params: CompleteParams): Job {
    const input = vw.completeParams(params);
    return this.write((ctx) => attempts.complete(ctx, input.id, input.workerId, input.result));
  }

  completeMany(params: CompleteParams[]): CompleteOutcome[] {
    const checked = params.map((item): CompleteOutcome | ReturnType<typeof vw.completeParams> => {
      try {
        return vw.completeParams(item);
      } catch (error) {
        return { ok: false, error };
      }
    });
    const inputs = checked.filter((c) => !('ok' in c)) as ReturnType<typeof vw.completeParams>[];
    if (inputs.length === 0) return checked as CompleteOutcome[];
    const done = this.write((ctx) => attempts.completeMany(ctx, inputs));
    let next = 0;
    return checked.map((c) => ('ok' in c ? c : done[next++]));
  }

  fail(params: FailParams): Job {
    const input = vw.failParams(params);
    return this.write((ctx) => attempts.fail(ctx, input));
  }

  release(params: ReleaseParams): Job {
    const input = vw.releaseParams(params);
    return this.write((ctx) => attempts.release(ctx, input));
  }

  markCancelled(id: string, workerId: string): Job {
    const valid = jobId(id);
    const worker = validName(workerId, 'workerId');
    return this.write((ctx) => attempts.markCancelled(ctx, valid, worker));
  }

  // ------------------------------------------------------------------------------------------
  // Workers

  registerWorker(params: RegisterWorkerParams, type: WorkerType): Worker {
    const input = vw.registerParams(params);
    return this.write((ctx) => registerWorker(ctx, input, type));
  }

  listWorkers(): Worker[] {
    return this.read((ctx) => ctx.store.workers.all());
  }

  touchWorker(workerId: string): void {
    const id = validName(workerId, 'workerId');
    this.write((ctx) => {
      if (!ctx.store.workers.touch(id, ctx.now())) throw workerNotFound(id);
    });
  }

  markWorkerGone(workerId: string): void {
    const id = validName(workerId, 'workerId');
    this.write((ctx) => {
      if (!ctx.store.workers.markGone(id)) throw workerNotFound(id);
    });
  }

  // ------------------------------------------------------------------------------------------
  // Queues

  listQueues(): Queue[] {
    return this.read((ctx) => queues.listQueues(ctx));
  }

  getQueue(name: string): Queue {
    const valid = vq.queueName(name);
    return this.read((ctx) => queues.getQueue(ctx, valid));
  }

  configureQueue(params: ConfigureQueueParams): Queue {
    const input = vq.configureParams(params);
    return this.write((ctx) => queues.configureQueue(ctx, input));
  }

  pauseQueue(name: string): Queue {
    const valid = vq.queueName(name);
    return this.write((ctx) => queues.setPaused(ctx, valid, true));
  }

  resumeQueue(name: string): Queue {
    const valid = vq.queueName(name);
    return this.write((ctx) => queues.setPaused(ctx, valid, false));
  }

  /**
   * In batches of UPKEEP_BATCH, one transaction each, so a huge purge never holds the write lock
   * for long against other processes on the file and never builds one enormous WAL transaction.
   * The calls are synchronous: within this process the purge runs to its end before anything else.
   */
  purgeQueue(params: PurgeQueueParams): number {
    const input = vq.purgeParams(params);
    this.read((ctx) => queues.getQueue(ctx, input.name));
    return this.purgeAll(input.name, input.states);
  }

  private purgeAll(name: string, states: JobState[]): number {
    let total = 0;
    for (;;) {
      const deleted = this.write((ctx) => queues.purgeBatch(ctx, name, states));
      total += deleted;
      if (deleted < UPKEEP_BATCH) return total;
    }
  }

  deleteQueue(params: DeleteQueueParams): number {
    const input = vq.deleteQueueParams(params);
    this.read((ctx) => queues.checkQueueDeletable(ctx, input.name, input.force));
    const waitingAndFinished: JobState[] = [...TERMINAL_STATES, 'queued', 'retrying'];
    let purged = input.force ? this.purgeAll(input.name, waitingAndFinished) : 0;
    // Checked again with the write lock held: a job may have been enqueued or claimed since the
    // purge; with force, the few that arrived meanwhile go in this same transaction.
    return this.write((ctx) => {
      if (input.force) {
        let n: number;
        do {
          n = queues.purgeBatch(ctx, input.name, waitingAndFinished);
          purged += n;
        } while (n === UPKEEP_BATCH);
      }
      queues.checkQueueDeletable(ctx, input.name, false);
      queues.deleteQueueRow(ctx, input.name);
      return purged;
    });
  }

  // ------------------------------------------------------------------------------------------
  // Schedules

  listSchedules(): Schedule[] {
    return this.read((ctx) => ctx.store.schedules.all());
  }

  getSchedule(name: string): Schedule {
    const valid = validName(name, 'name');
    return this.read((ctx) => schedules.getSchedule(ctx, valid));
  }

  createSchedule(params: CreateScheduleParams, nextRunAt: number | null): Schedule {
    const input = vs.createScheduleParams(params);
    return this.write((ctx) => schedules.createSchedule(ctx, input, nextRunAt));
  }

  updateSchedule(params: UpdateScheduleParams, nextRunAt: number | null | undefined): Schedule {
    const changes = vs.updateScheduleParams(params);
    return this.write((ctx) => schedules.updateSchedule(ctx, changes, nextRunAt));
  }

  deleteSchedule(name: string): void {
    const valid = validName(name, 'name');
    this.write((ctx) => schedules.deleteSchedule(ctx, valid));
  }

  fireSchedule(params: FireScheduleParams): { schedule: Schedule; job: Job | null } | null {
    const valid = validName(params.name, 'name');
    return this.write((ctx) => schedules.fireSchedule(ctx, { ...params, name: valid }));
  }

  triggerSchedule(name: string): EnqueueResult {
    const valid = validName(name, 'name');
    return this.write((ctx) => schedules.triggerSchedule(ctx, valid));
  }

  // ------------------------------------------------------------------------------------------
  // Stats and upkeep

  stats(): Stats {
    return this.read((ctx) => upkeep.stats(ctx));
  }

  reapExpiredLeases(): number {
    let total = 0;
    for (;;) {
      const reaped = this.write((ctx) => upkeep.reapBatch(ctx));
      total += reaped;
      if (reaped < UPKEEP_BATCH) return total;
    }
  }

  recoverInterrupted(workerIds: string[]): number {
    const ids = nameList(workerIds, 'workerIds', LIMITS.maxBatch);
    if (ids.length === 0) return 0;
    return this.write((ctx) => upkeep.recoverBatch(ctx, ids));
  }

  runningJobIds(workerIds: string[]): string[] {
    const ids = nameList(workerIds, 'workerIds', LIMITS.maxBatch);
    if (ids.length === 0) return [];
    return this.read((ctx) => ctx.store.jobs.runningOf(ids).map((job) => job.id));
  }

  cleanup(batchSize: number = UPKEEP_BATCH): number {
    return this.write((ctx) => {
      let left = Math.max(1, Math.floor(batchSize));
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

  nextWakeAt(): number | null {
    return this.read((ctx) => upkeep.nextWakeAt(ctx));
  }

  verifyCounters(): { ok: boolean; mismatches: { queue: string; state: JobState; counted: number; actual: number }[] } {
    return this.read((ctx) => upkeep.verifyCounters(ctx));
  }

  subscribe(listener: EngineListener): () => void {
    return this.events.subscribe(listener);
  }

  /** Who checkpoints the WAL now ('background' only while the checkpointer thread works) and its counters. */
  walCheckpointStatus(): { mode: 'auto' | 'background'; checkpointer: WalCheckpointStatus | null } {
    return this.store.walCheckpointStatus();
  }

  close(): void {
    this.store.close();
  }
}

/** A stored template was validated when written; parsing it checks it again rather than trusting the file. */
function parseStoredTemplate(json: string, scheduleName: string): JobTemplate {
  return vs.jobTemplate(JSON.parse(json), `schedule ${scheduleName} job`);
}
