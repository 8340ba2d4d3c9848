/**
 * The queue engine as the daemon sees it: a synchronous library over one SQLite file. The RPC
 * layer, the executors, the scheduler and the reaper all go through this interface and never
 * touch SQL themselves (SQL lives in `daemon/storage/sqlite/`).
 *
 * Every method is synchronous — better-sqlite3 is, and a transaction must never span an
 * `await` — and every method that takes input validates it first (types, unknown fields,
 * ranges, sizes), throwing `SpoolError` with `InvalidParams` and `data.field` naming the field,
 * before anything touches the database. The RPC layer passes the raw params straight in.
 *
 * Events are delivered to listeners after the transaction that caused them has committed.
 */
import type {
  BulkParams,
  BulkResult,
  CheckpointParams,
  ClaimParams,
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
import type { Job, JobState, OutputLine, OutputStream, Queue, Schedule, Worker, WorkerType } from '../../shared/types';

export interface EngineOptions {
  /** The SQLite file; created with its folder if missing. */
  dbPath: string;
  /** synchronous=FULL instead of NORMAL: every commit survives power loss, at a cost. */
  durable?: boolean;
  /** Injected clock (epoch ms) for tests; default Date.now. */
  now?: () => number;
  /** Injected randomness (0..1) for jitter in tests; default Math.random. */
  random?: () => number;
  /**
   * Who copies the WAL back into the database file (named so as not to be confused with a job's
   * checkpoint). 'auto' (the default): SQLite does, inside the commit that takes the WAL past
   * 1,000 pages, on the calling thread — milliseconds that one call pays. 'background': a worker
   * thread with its own connection does, and no commit waits for it (the daemon's choice). The
   * thread stops with close().
   */
  walCheckpoints?: 'auto' | 'background';
  /**
   * Told when the background checkpointer fails; the engine has then gone back to automatic
   * checkpoints and keeps working. Default: a line on stderr.
   */
  walCheckpointFailed?: (error: Error) => void;
}

/** What changed about a job, as the daemon forwards it in `jobs.changed`. */
export interface JobChange {
  id: string;
  queue: string;
  kind: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  progress: number | null;
  runAt: number;
  deleted: boolean;
  /**
   * True when a cancel was requested for this (running) job. The daemon's built-in executors
   * stop the work as soon as they see it, instead of waiting for the next heartbeat.
   */
  cancelRequested?: boolean;
}

export interface EngineListener {
  jobChanged?(change: JobChange): void;
  queueChanged?(name: string, deleted: boolean): void;
  output?(jobId: string, queue: string, lines: OutputLine[]): void;
}

/** The claim as the daemon asks for it: waiting (long-poll) is the daemon's business, not the engine's. */
export interface EngineClaimParams extends Omit<ClaimParams, 'waitMs'> {
  /**
   * Claim only these kinds even if they are built-in ones. The daemon's own executors claim
   * ['shell', 'http'] this way; remote workers leave it out.
   */
  builtinKinds?: string[];
}

/** A schedule's fire: the compare-and-swap the scheduler asks for. */
export interface FireScheduleParams {
  name: string;
  /** The next_run_at the scheduler read; the fire happens only if it is still the stored one. */
  expectedNextRunAt: number;
  /** The value to store instead (computed by the scheduler from the cron expression). */
  newNextRunAt: number | null;
  /** Enqueue the schedule's job (false when the missed-run policy skips this tick). */
  enqueue: boolean;
}

/** One complete of a completeMany: the completed job, or the error its own call would have thrown. */
export type CompleteOutcome = { ok: true; job: Job } | { ok: false; error: unknown };

export interface QueueEngine {
  // Jobs
  enqueue(params: EnqueueParams): EnqueueResult;
  /** All in one transaction. */
  enqueueBatch(params: { jobs: EnqueueParams[] }): { results: EnqueueResult[] };
  getJob(id: string): JobWithRuns;
  listJobs(params: ListJobsParams): ListJobsResult;
  output(params: JobOutputParams): JobOutputResult;
  cancel(id: string): Job;
  retry(id: string): Job;
  update(params: UpdateJobParams): Job;
  deleteJob(id: string): void;
  cancelMany(params: BulkParams): BulkResult;
  retryMany(params: BulkParams): BulkResult;
  deleteMany(params: BulkParams): BulkResult;

  // The worker side. Only the worker holding the lease may act; others get LeaseLost.
  claim(params: EngineClaimParams): Job[];
  heartbeat(params: HeartbeatParams): HeartbeatResult;
  progress(params: ProgressParams): void;
  checkpoint(params: CheckpointParams): void;
  /** Appends output lines (capped per job, oldest dropped with a marker line). */
  log(params: LogParams): void;
  /** Output of the daemon's own executors: same as log but with any stream and no lease check beyond the worker id. */
  appendOutput(jobId: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, lines: string[]): void;
  complete(params: CompleteParams): Job;
  /**
   * Many completes in one transaction and far fewer statements; each gets the outcome its own
   * `complete` call would have had (invalid params and lost leases fail alone, in their slot).
   */
  completeMany(params: CompleteParams[]): CompleteOutcome[];
  fail(params: FailParams): Job;
  /** A worker hands a held job back unfinished: it runs again at once, the attempt given back. */
  release(params: ReleaseParams): Job;
  /** Cancelled running jobs end here once the executor or worker has stopped them. */
  markCancelled(id: string, workerId: string): Job;

  // Workers
  registerWorker(params: RegisterWorkerParams, type: WorkerType): Worker;
  listWorkers(): Worker[];
  /** A heartbeat of the worker as a whole (any RPC from it). */
  touchWorker(workerId: string): void;
  /** Its connection closed: shown as gone; its leases run out normally and the reaper takes them. */
  markWorkerGone(workerId: string): void;

  // Queues
  listQueues(): Queue[];
  getQueue(name: string): Queue;
  configureQueue(params: ConfigureQueueParams): Queue;
  pauseQueue(name: string): Queue;
  resumeQueue(name: string): Queue;
  purgeQueue(params: PurgeQueueParams): number;
  deleteQueue(params: DeleteQueueParams): number;

  // Schedules (storage; the daemon's scheduler computes fire times with cron-parser)
  listSchedules(): Schedule[];
  getSchedule(name: string): Schedule;
  /** `nextRunAt` is computed by the caller from the cron expression. */
  createSchedule(params: CreateScheduleParams, nextRunAt: number | null): Schedule;
  updateSchedule(params: UpdateScheduleParams, nextRunAt: number | null | undefined): Schedule;
  deleteSchedule(name: string): void;
  /** Compare-and-swap on next_run_at, and the enqueue, in one transaction. Null if another daemon won. */
  fireSchedule(params: FireScheduleParams): { schedule: Schedule; job: Job | null } | null;
  /** Enqueue the schedule's job now without moving next_run_at. */
  triggerSchedule(name: string): EnqueueResult;

  // Stats and upkeep
  /** O(queues): read from the maintained counters. */
  stats(): Stats;
  /** Running jobs whose lease expired → retrying (a failed attempt, "lease expired") or dead. Returns how many. */
  reapExpiredLeases(): number;
  /**
   * Start-up recovery: jobs left running by the given worker ids (this daemon's own built-in
   * executors, from a previous life) go back to `retrying`, due now, without using up an attempt —
   * a job is never failed because the daemon stopped.
   */
  recoverInterrupted(workerIds: string[]): number;
  /** Ids of the jobs running under these workers: what recoverInterrupted would recover. */
  runningJobIds(workerIds: string[]): string[];
  /** Retention: delete up to `batchSize` finished jobs older than their queue's retention. Returns how many. */
  cleanup(batchSize?: number): number;
  /** The earliest future time something becomes due: a delayed/retrying job, a lease expiry, a schedule. Null if none. */
  nextWakeAt(): number | null;
  /** Recompute the per-queue counters from the jobs table and say whether they matched (tests and `doctor`). */
  verifyCounters(): { ok: boolean; mismatches: { queue: string; state: JobState; counted: number; actual: number }[] };

  /**
   * Group commit: runs `fn` — any number of this engine's own calls — in one write transaction,
   * with one commit (and one fsync) for all of them. Each call inside still succeeds or fails on
   * its own (a savepoint each): a call that throws undoes only itself, and `fn` may catch it and
   * go on. Events are delivered after the one commit. `fn` must be synchronous.
   */
  batch<T>(fn: () => T): T;

  subscribe(listener: EngineListener): () => void;
  readonly dbPath: string;
  /** The schema migrations opening the file applied (all of them for a new file), and how long they took. */
  readonly migrated: { versions: number[]; ms: number };
  close(): void;
}
