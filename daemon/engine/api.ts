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
import type { JobChange } from '../../shared/protocol';
import type {
  ApplyProjectParams,
  ApplyProjectResult,
  EnqueueTemplateParams,
  ProjectStateParams,
  ProjectStateResult,
  Template,
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
import type { Job, OutputLine, OutputStream, Queue, Schedule, Worker, WorkerType } from '../../shared/protocol/types';
import type { CompleteOutcome, CounterMismatch, DaemonInstance, DaemonRegistration, FireScheduleParams, StorageFactory, StoreDescription, StoredToken } from '../storage/backend';

export interface EngineOptions {
  /** Opens the store the engine works on (sqliteStorage({ dbPath }) for a SQLite file). */
  storage: StorageFactory;
  /** Injected clock (epoch ms) for tests; default Date.now. */
  now?: () => number;
  /** Injected randomness (0..1) for jitter in tests; default Math.random. */
  random?: () => number;
}

/**
 * What changed about a job: the protocol's record, the same one the daemon forwards in
 * `jobs.changed` (with the subscription's id added), so the two cannot drift apart.
 */
export type { JobChange };

/**
 * Where a change was made: by this engine (`local`), or by another daemon on the same store and
 * read back by this one (`remote`). A listener that counts what this daemon did (its metrics)
 * skips remote changes: the daemon that made them counts them.
 */
export type ChangeOrigin = 'local' | 'remote';

export interface EngineListener {
  /**
   * `job` is the record as committed: what the change does not carry (when it was created and
   * started), for listeners inside the daemon such as its metrics. Clients get only the change.
   */
  jobChanged?(change: JobChange, job: Job, origin: ChangeOrigin): void;
  queueChanged?(name: string, deleted: boolean): void;
  output?(jobId: string, queue: string, lines: OutputLine[]): void;
  /**
   * Another daemon on the same store made jobs claimable: jobs of `queue` (every queue when null)
   * from `dueAt` on (epoch ms; now when left out). The daemon wakes its waiting claims and
   * executors (those only when `kinds`, the jobs' kinds when known, includes a built-in one).
   * Never called for a store only one daemon uses (SQLite): local changes arrive as `jobChanged`.
   */
  wake?(queue: string | null, dueAt?: number, kinds?: readonly string[]): void;
  /**
   * Whether this listener wants `jobChanged` for changes other daemons make. The store reads
   * those jobs back only while some listener says yes: with nobody watching, the reads would
   * only cost throughput.
   */
  wantsRemoteJobs?(): boolean;
}

/** The claim as the daemon asks for it: waiting (long-poll) is the daemon's business, not the engine's. */
export interface EngineClaimParams extends Omit<ClaimParams, 'waitMs'> {
  /**
   * Claim only these kinds even if they are built-in ones. The daemon's own executors claim
   * ['shell', 'http'] this way; remote workers leave it out.
   */
  builtinKinds?: string[];
}

export type { CompleteOutcome, CounterMismatch, DaemonInstance, DaemonRegistration, FireScheduleParams, StoreDescription } from '../storage/backend';

/** One enqueue of an enqueueEach: its result, or the error its own call would have had. */
export type EnqueueOutcome = { ok: true; result: EnqueueResult } | { ok: false; error: unknown };

export interface QueueEngine {
  // Jobs
  enqueue(params: EnqueueParams): Promise<EnqueueResult>;
  /** All in one transaction. */
  enqueueBatch(params: { jobs: EnqueueParams[] }): Promise<{ results: EnqueueResult[] }>;
  getJob(id: string): Promise<JobWithRuns>;
  listJobs(params: ListJobsParams): Promise<ListJobsResult>;
  output(params: JobOutputParams): Promise<JobOutputResult>;
  cancel(id: string): Promise<Job>;
  retry(id: string): Promise<Job>;
  update(params: UpdateJobParams): Promise<Job>;
  deleteJob(id: string): Promise<void>;
  cancelMany(params: BulkParams): Promise<BulkResult>;
  retryMany(params: BulkParams): Promise<BulkResult>;
  deleteMany(params: BulkParams): Promise<BulkResult>;

  // The worker side. Only the worker holding the lease may act; others get LeaseLost.
  claim(params: EngineClaimParams): Promise<Job[]>;
  heartbeat(params: HeartbeatParams): Promise<HeartbeatResult>;
  progress(params: ProgressParams): Promise<void>;
  checkpoint(params: CheckpointParams): Promise<void>;
  /** Appends output lines (capped per job, oldest dropped with a marker line). */
  log(params: LogParams): Promise<void>;
  /** Output of the daemon's own executors: same as log but with any stream and no lease check beyond the worker id. */
  appendOutput(jobId: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, lines: string[]): Promise<void>;
  complete(params: CompleteParams): Promise<Job>;
  /**
   * Many completes in one transaction and far fewer statements; each gets the outcome its own
   * `complete` call would have had (invalid params and lost leases fail alone, in their slot).
   */
  completeMany(params: CompleteParams[]): Promise<CompleteOutcome[]>;
  /**
   * Enqueues in one transaction, each with the outcome its own `enqueue` would have had: invalid
   * params fail alone, in their slot (group commit shares one call among pipelined enqueues).
   */
  enqueueEach(params: EnqueueParams[]): Promise<EnqueueOutcome[]>;
  fail(params: FailParams): Promise<Job>;
  /** A worker hands a held job back unfinished: it runs again at once, the attempt given back. */
  release(params: ReleaseParams): Promise<Job>;
  /** Cancelled running jobs end here once the executor or worker has stopped them. */
  markCancelled(id: string, workerId: string): Promise<Job>;

  // Workers
  registerWorker(params: RegisterWorkerParams, type: WorkerType): Promise<Worker>;
  listWorkers(): Promise<Worker[]>;
  /** A heartbeat of the worker as a whole (any RPC from it). */
  touchWorker(workerId: string): Promise<void>;
  /** Its connection closed: shown as gone; its leases run out normally and the reaper takes them. */
  markWorkerGone(workerId: string): Promise<void>;

  // Daemon instances (see StorageBackend): how a daemon tells its dead predecessors on the store.
  /** Records this daemon as running from now. */
  registerDaemon(registration: DaemonRegistration): Promise<DaemonInstance>;
  /** Every daemon recorded, oldest first. */
  listDaemons(): Promise<DaemonInstance[]>;
  /** This daemon is alive now; its executors' worker row is seen now. False if it has no row or is recorded as stopped. */
  daemonHeartbeat(id: string, pid: number): Promise<boolean>;
  /** This daemon stopped cleanly; its executors show as gone. */
  daemonStopped(id: string, pid: number): Promise<boolean>;
  /** A dead daemon's jobs were recovered: its row goes, its executors show as gone. */
  forgetDaemon(id: string, pid: number): Promise<boolean>;

  // Access tokens (see StorageBackend): the daemon's auth layer hashes and compares them.
  /** Stores a token by its hash; AlreadyExists when the name is taken. */
  createToken(token: StoredToken): Promise<void>;
  /** Every token, by name. */
  listTokens(): Promise<StoredToken[]>;
  /** Removes a token; false when there was none by that name. */
  revokeToken(name: string): Promise<boolean>;

  // Queues
  listQueues(): Promise<Queue[]>;
  getQueue(name: string): Promise<Queue>;
  configureQueue(params: ConfigureQueueParams): Promise<Queue>;
  pauseQueue(name: string): Promise<Queue>;
  resumeQueue(name: string): Promise<Queue>;
  purgeQueue(params: PurgeQueueParams): Promise<number>;
  deleteQueue(params: DeleteQueueParams): Promise<number>;

  // Schedules (storage; the daemon's scheduler computes fire times with shared/domain/cron)
  listSchedules(): Promise<Schedule[]>;
  getSchedule(name: string): Promise<Schedule>;
  /** `nextRunAt` is computed by the caller from the cron expression. */
  createSchedule(params: CreateScheduleParams, nextRunAt: number | null): Promise<Schedule>;
  updateSchedule(params: UpdateScheduleParams, nextRunAt: number | null | undefined): Promise<Schedule>;
  deleteSchedule(name: string): Promise<void>;
  /** Compare-and-swap on next_run_at, and the enqueue, in one transaction. Null if another daemon won. */
  fireSchedule(params: FireScheduleParams): Promise<{ schedule: Schedule; job: Job | null } | null>;
  /** Enqueue the schedule's job now without moving next_run_at. */
  triggerSchedule(name: string): Promise<EnqueueResult>;

  // Jobs as code
  /** Every queue, template and schedule as a plan compares them, with owners and last-applied values. */
  projectState(params: ProjectStateParams): Promise<ProjectStateResult>;
  /** A project's whole plan in one transaction, planned again from what the store holds; all or nothing. */
  applyProject(params: ApplyProjectParams): Promise<ApplyProjectResult>;
  listTemplates(): Promise<Template[]>;
  /** Rejects with TemplateNotFound. */
  getTemplate(name: string): Promise<Template>;
  /** Enqueues a template's job, its parameters filled in. Rejects with TemplateNotFound, or InvalidParams for a parameter it lacks or does not take. */
  enqueueTemplate(params: EnqueueTemplateParams): Promise<EnqueueResult>;

  // Stats and upkeep
  /** O(queues): read from the maintained counters. */
  stats(): Promise<Stats>;
  /** Running jobs whose lease expired → retrying (a failed attempt, "lease expired") or dead. Returns how many. */
  reapExpiredLeases(): Promise<number>;
  /**
   * Takes or keeps the store's leader lease on `role` for `daemonId` for `ttlMs` from now: true
   * while this daemon holds it (see leaderHold in daemon/storage/statements/daemons.ts); always
   * true on SQLite, which has no lease.
   */
  holdLeadership(role: string, daemonId: string, ttlMs: number): Promise<boolean>;
  /**
   * Start-up recovery: jobs left running by the given worker ids (this daemon's own built-in
   * executors, from a previous life) go back to `retrying`, due now, without using up an attempt —
   * a job is never failed because the daemon stopped. The interrupted run ends when the daemon
   * last knew it running (see StorageBackend.recoverInterrupted); `aliveUntil` is that daemon's
   * last heartbeat, when known.
   */
  recoverInterrupted(workerIds: string[], aliveUntil?: number): Promise<number>;
  /** Ids of the jobs running under these workers: what recoverInterrupted would recover. */
  runningJobIds(workerIds: string[]): Promise<string[]>;
  /** Retention: delete up to `batchSize` finished jobs older than their queue's retention. Returns how many. */
  cleanup(batchSize?: number): Promise<number>;
  /** The earliest future time something becomes due: a delayed/retrying job, a lease expiry, a schedule. Null if none. */
  nextWakeAt(): Promise<number | null>;
  /** Recompute the per-queue counters from the jobs table and say whether they matched (tests and `doctor`). */
  verifyCounters(): Promise<{ ok: boolean; mismatches: CounterMismatch[] }>;

  /**
   * Group commit: runs `fn` — any number of this engine's own calls — in one write transaction,
   * with one commit (and one fsync) for all of them. Each call inside still succeeds or fails on
   * its own (a savepoint each): a call that throws undoes only itself, and `fn` may catch it and
   * go on. Events are delivered after the one commit. `fn` must be synchronous: the calls it
   * makes are started, not awaited (return their promises, in an array or object: a promise
   * returned directly is refused, as the mark of an async `fn`). Each call's promise tells how its
   * own savepoint went; whether the batch committed is told by `batch` itself, which throws when
   * the commit fails. A store that cannot work synchronously runs the calls one by one, each in
   * its own transaction.
   */
  batch<T>(fn: () => T): T;

  subscribe(listener: EngineListener): () => void;
  /** The store in neutral words (kind and location), for `daemon.status`. */
  readonly store: StoreDescription;
  /** The schema migrations opening the file applied (all of them for a new file), and how long they took. */
  readonly migrated: { versions: number[]; ms: number };
  /** Settles once the store is open and migrated (at once for SQLite); rejects with why it cannot open. */
  open(): Promise<void>;
  /** Closes the store; nothing may be called after. */
  close(): Promise<void>;
}
