/**
 * Spool's wire protocol: JSON-RPC 2.0, one message per line, over a Unix socket.
 *
 * Every method is declared once here — its literal name, its params and its result — and the
 * daemon, the CLI, the extension and the tests all import this file, so a protocol change
 * breaks the build rather than a user. `Methods` maps each name to its types; `Notifications`
 * does the same for what the daemon pushes to subscribers.
 *
 * Unless a method says otherwise, any client may call it. Methods marked "worker" take the
 * `workerId` that claimed the job and are refused with `LEASE_LOST` for anyone else.
 */
import type {
  Backoff,
  Job,
  JobContext,
  JobCounts,
  JobRun,
  JobState,
  JobTemplate,
  MissedRunPolicy,
  OutputLine,
  OutputStream,
  Queue,
  RateLimit,
  Schedule,
  Worker,
} from './types';

/** Bumped on any incompatible change; clients compare it with `daemon.status`. */
export const PROTOCOL_VERSION = 1;

/** Limits the daemon enforces; errors name them, and the README lists them. */
export const LIMITS = {
  /** A single request line, in bytes. Longer lines get an error and the connection is closed. */
  maxLineBytes: 16 * 1024 * 1024,
  /** A job's payload, serialized as JSON, in bytes. Also result and checkpoint. */
  maxPayloadBytes: 1024 * 1024,
  /** Queue, kind, worker id, schedule name: 1..128 chars of [A-Za-z0-9._:-], first alphanumeric. */
  maxNameLength: 128,
  maxTags: 32,
  maxTagLength: 64,
  maxIdempotencyKeyLength: 256,
  /** Priority is an integer in [-1000, 1000]; higher runs first. */
  minPriority: -1000,
  maxPriority: 1000,
  maxAttempts: 1000,
  /** Lease length (timeoutMs): 100 ms .. 7 days. */
  minTimeoutMs: 100,
  maxTimeoutMs: 7 * 24 * 3600 * 1000,
  /** delayMs, backoff base/cap, retention: up to 10 years. */
  maxDurationMs: 10 * 365 * 24 * 3600 * 1000,
  /** jobs.enqueueBatch, jobs.claim's max, bulk ids. */
  maxBatch: 1000,
  /** jobs.list and jobs.output page size. */
  maxPageSize: 1000,
  /** Long-poll wait of jobs.claim. */
  maxWaitMs: 60_000,
  /** Output kept per job; older lines are dropped with a marker line. */
  maxOutputLinesPerJob: 10_000,
  maxOutputLineBytes: 8 * 1024,
  /** A text search string. */
  maxSearchLength: 256,
} as const;

/** The regular expression names (queue, kind, schedule, worker id) must match. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Error codes. The JSON-RPC standard ones, then Spool's own (outside the reserved
 * -32768..-32000 range). Every error's `data` is an `ErrorData`.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,

  /** No job with that id. data.id */
  JobNotFound: 1001,
  /** No queue with that name. data.queue */
  QueueNotFound: 1002,
  /** No schedule with that name. data.schedule */
  ScheduleNotFound: 1003,
  /** No worker with that id. data.workerId */
  WorkerNotFound: 1004,
  /** The job's state does not allow the action (retry a running job, update a finished one). data.id, data.state */
  InvalidState: 1010,
  /** The caller does not hold the job's lease (it expired, or another worker claimed it). data.id, data.workerId */
  LeaseLost: 1011,
  /** A payload, result or checkpoint is over its size limit. data.field, data.limit */
  PayloadTooLarge: 1012,
  /** A schedule with that name exists already. data.schedule */
  AlreadyExists: 1013,
  /** The daemon is shutting down and takes no new work. */
  ShuttingDown: 1020,
  /** No method returns it; the daemon refuses to start with it when its socket path is taken. */
  Forbidden: 1030,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The `data` of every Spool error: which field or id is at fault, and what is allowed. */
export interface ErrorData {
  field?: string;
  allowed?: string;
  id?: string;
  queue?: string;
  schedule?: string;
  workerId?: string;
  state?: JobState;
  limit?: number;
}

// ---------------------------------------------------------------------------------------------
// Params and results

export interface DaemonStatus {
  version: string;
  protocolVersion: number;
  pid: number;
  uptimeMs: number;
  startedAt: number;
  socketPath: string;
  dbPath: string;
  /**
   * The file the daemon logs to: the log beside its database when its standard error is that file
   * (as `spool daemon --detach` starts it); null when it logs to whatever started it.
   */
  logPath: string | null;
  /** Totals over all queues. */
  counts: JobCounts;
  /** Built-in executors running jobs now, and their global cap. */
  executors: { running: number; cap: number };
}

export interface EnqueueParams {
  queue: string;
  kind: string;
  payload?: unknown;
  priority?: number;
  /** Start no earlier than now + delayMs. Exclusive with runAt. */
  delayMs?: number;
  /** Start no earlier than this epoch-ms time. Exclusive with delayMs. */
  runAt?: number;
  maxAttempts?: number;
  /** Any field left out comes from the queue's default backoff. */
  backoff?: Partial<Backoff>;
  timeoutMs?: number;
  tags?: string[];
  /** A repeated key returns the existing job with `created: false`; it is never overwritten. */
  idempotencyKey?: string;
  context?: JobContext;
}

export interface EnqueueResult {
  job: Job;
  /** False when an existing job with the same idempotency key was returned. */
  created: boolean;
}

export interface JobIdParams {
  id: string;
}

export interface JobWithRuns {
  job: Job;
  runs: JobRun[];
}

export type JobOrder = 'newest' | 'oldest' | 'runAt';

export interface JobFilter {
  queue?: string;
  states?: JobState[];
  kind?: string;
  tag?: string;
  /** Substring match over payload and last error. */
  search?: string;
  /** With `queued`: true = only jobs whose runAt is in the future, false = only due ones. */
  delayed?: boolean;
}

export interface ListJobsParams extends JobFilter {
  /** Default newest (createdAt descending). */
  order?: JobOrder;
  /** 1..LIMITS.maxPageSize, default 50. */
  limit?: number;
  /** Opaque; from the previous page's nextCursor. */
  cursor?: string;
}

export interface ListJobsResult {
  jobs: Job[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export interface JobOutputParams {
  id: string;
  /** Return lines with seq > after. Default 0. */
  after?: number;
  /** Default 1000. */
  limit?: number;
}

export interface JobOutputResult {
  lines: OutputLine[];
  /** Pass as `after` to continue. */
  nextAfter: number;
  /** True once the job is in a terminal state and every line was returned. */
  done: boolean;
}

export interface UpdateJobParams {
  id: string;
  priority?: number;
  runAt?: number;
  delayMs?: number;
  payload?: unknown;
  maxAttempts?: number;
  tags?: string[];
}

/** The bulk forms take ids, or a filter over one queue (e.g. retry all dead in a queue). */
export interface BulkParams {
  ids?: string[];
  filter?: JobFilter & { queue: string };
}

export interface BulkResult {
  /** How many jobs the action applied to. */
  count: number;
  /** Jobs it could not apply to, with the reason (e.g. a running job on delete). */
  errors: { id: string; code: number; message: string }[];
  /**
   * jobs.cancelMany only: how many of `count` were running, so were asked to stop rather than
   * cancelled at once. They end as cancelled when their worker or executor stops them.
   */
  stopRequested?: number;
}

export interface ClaimParams {
  workerId: string;
  /** Empty or absent = any queue. */
  queues?: string[];
  /** Empty or absent = any kind except the built-in ones (shell, http). */
  kinds?: string[];
  /** 1..LIMITS.maxBatch, default 1. */
  max?: number;
  /** Long-poll: wait up to this long for a job if none is ready. Default 0. */
  waitMs?: number;
}

export interface ClaimResult {
  jobs: Job[];
}

export interface WorkerJobParams {
  id: string;
  workerId: string;
}

export interface HeartbeatParams extends WorkerJobParams {
  /** New lease = max(current, now + extendMs). Default the job's timeoutMs. */
  extendMs?: number;
}

export interface HeartbeatResult {
  leaseExpiresAt: number;
  cancelRequested: boolean;
}

export interface ProgressParams extends WorkerJobParams {
  /** 0..100. */
  percent: number;
  message?: string;
}

export interface CheckpointParams extends WorkerJobParams {
  checkpoint: unknown;
}

export interface LogParams extends WorkerJobParams {
  lines: string[];
  /** Default `log`. */
  stream?: Exclude<OutputStream, 'marker'>;
}

export interface CompleteParams extends WorkerJobParams {
  result?: unknown;
}

export interface FailParams extends WorkerJobParams {
  error: string;
  stack?: string;
  exitCode?: number;
  httpStatus?: number;
  /** Straight to dead, whatever attempts are left. */
  permanent?: boolean;
}

export interface ReleaseParams extends WorkerJobParams {
  /** Why the worker hands the job back, for the run history (default: "released by its worker"). */
  reason?: string;
}

/** complete/fail/cancel/retry/update return the job as it is afterwards. */
export interface JobResult {
  job: Job;
}

export interface Ok {
  ok: true;
}

export interface RegisterWorkerParams {
  /** Chosen by the worker; generated when absent. */
  workerId?: string;
  name?: string;
  host?: string;
  pid?: number;
  queues?: string[];
  kinds?: string[];
  concurrency?: number;
}

export interface WorkerResult {
  worker: Worker;
}

export interface WorkersListResult {
  workers: Worker[];
}

export interface QueueNameParams {
  name: string;
}

export interface QueuesListResult {
  queues: Queue[];
}

export interface QueueResult {
  queue: Queue;
}

export interface ConfigureQueueParams {
  name: string;
  /** null removes the limit. */
  concurrency?: number | null;
  rateLimit?: RateLimit | null;
  defaultMaxAttempts?: number;
  defaultBackoff?: Partial<Backoff>;
  defaultTimeoutMs?: number;
  retentionMs?: number | null;
}

export interface PurgeQueueParams {
  name: string;
  /** Default: every state but running. Running jobs are never purged. */
  states?: JobState[];
}

export interface DeletedResult {
  deleted: number;
}

export interface DeleteQueueParams {
  name: string;
  /** Without it, a queue that still has jobs is refused. Running jobs always refuse. */
  force?: boolean;
}

export interface ScheduleNameParams {
  name: string;
}

export interface CreateScheduleParams {
  name: string;
  cron: string;
  /** Default "UTC". */
  timezone?: string;
  queue: string;
  job: JobTemplate;
  /** Default true. */
  enabled?: boolean;
  /** Default skip. */
  missedPolicy?: MissedRunPolicy;
}

export interface UpdateScheduleParams {
  name: string;
  cron?: string;
  timezone?: string;
  queue?: string;
  job?: JobTemplate;
  enabled?: boolean;
  missedPolicy?: MissedRunPolicy;
}

export interface ScheduleResult {
  schedule: Schedule;
  /** The next few fire times (up to 3), for the user to check the expression. */
  nextRuns: number[];
}

export interface SchedulesListResult {
  schedules: Schedule[];
}

export interface QueueStats {
  name: string;
  paused: boolean;
  counts: JobCounts;
  delayed: number;
}

export interface Stats {
  queues: QueueStats[];
  totals: JobCounts;
  completedLastMinute: number;
  failedLastMinute: number;
  completedLastHour: number;
  failedLastHour: number;
  at: number;
}

export type EventTopic = 'jobs' | 'queues' | 'stats' | 'output';

export interface SubscribeParams {
  /** Default all topics. */
  topics?: EventTopic[];
  /** Only events of these queues (stats are not filtered). */
  queues?: string[];
  /** `output` events only for these jobs (output of every job is a lot). */
  jobIds?: string[];
}

export interface SubscribeResult {
  subscriptionId: string;
}

export interface UnsubscribeParams {
  subscriptionId: string;
}

/** Every method: name → params and result. */
export interface Methods {
  /** Version, protocol version, uptime, paths and counters. The handshake. */
  'daemon.status': { params: Record<string, never> | undefined; result: DaemonStatus };
  /** Graceful shutdown: stop claiming, let running jobs finish within the grace period. */
  'daemon.shutdown': { params: Record<string, never> | undefined; result: Ok };

  'jobs.enqueue': { params: EnqueueParams; result: EnqueueResult };
  /** One transaction; all are enqueued or none. */
  'jobs.enqueueBatch': { params: { jobs: EnqueueParams[] }; result: { results: EnqueueResult[] } };
  'jobs.get': { params: JobIdParams; result: JobWithRuns };
  'jobs.list': { params: ListJobsParams; result: ListJobsResult };
  'jobs.output': { params: JobOutputParams; result: JobOutputResult };
  /** queued/retrying → cancelled; running → cancel requested (cooperative); finished → InvalidState. */
  'jobs.cancel': { params: JobIdParams; result: JobResult };
  /** dead/cancelled/completed → queued with a fresh attempt budget; history kept. */
  'jobs.retry': { params: JobIdParams; result: JobResult };
  /** Only queued/retrying jobs. */
  'jobs.update': { params: UpdateJobParams; result: JobResult };
  /** Not while running. */
  'jobs.delete': { params: JobIdParams; result: DeletedResult };
  'jobs.cancelMany': { params: BulkParams; result: BulkResult };
  'jobs.retryMany': { params: BulkParams; result: BulkResult };
  'jobs.deleteMany': { params: BulkParams; result: BulkResult };

  /** Worker: claim up to `max` jobs, long-polling up to `waitMs`. */
  'jobs.claim': { params: ClaimParams; result: ClaimResult };
  /** Worker: extend the lease; says whether a cancel was requested. */
  'jobs.heartbeat': { params: HeartbeatParams; result: HeartbeatResult };
  /** Worker. */
  'jobs.progress': { params: ProgressParams; result: Ok };
  /** Worker: saved JSON that a retry of this job resumes from. */
  'jobs.checkpoint': { params: CheckpointParams; result: Ok };
  /** Worker: append output lines. */
  'jobs.log': { params: LogParams; result: Ok };
  /** Worker. */
  'jobs.complete': { params: CompleteParams; result: JobResult };
  /** Worker. */
  'jobs.fail': { params: FailParams; result: JobResult };
  /** Worker: hand a held job back unfinished; it runs again without using up an attempt. */
  'jobs.release': { params: ReleaseParams; result: JobResult };

  /** A remote worker announces itself; its leases go to the reaper when its connection closes. */
  'workers.register': { params: RegisterWorkerParams; result: WorkerResult };
  'workers.list': { params: Record<string, never> | undefined; result: WorkersListResult };

  'queues.list': { params: Record<string, never> | undefined; result: QueuesListResult };
  'queues.get': { params: QueueNameParams; result: QueueResult };
  /** Creates the queue if it does not exist. */
  'queues.configure': { params: ConfigureQueueParams; result: QueueResult };
  'queues.pause': { params: QueueNameParams; result: QueueResult };
  'queues.resume': { params: QueueNameParams; result: QueueResult };
  'queues.purge': { params: PurgeQueueParams; result: DeletedResult };
  'queues.delete': { params: DeleteQueueParams; result: DeletedResult };

  'schedules.list': { params: Record<string, never> | undefined; result: SchedulesListResult };
  'schedules.get': { params: ScheduleNameParams; result: ScheduleResult };
  'schedules.create': { params: CreateScheduleParams; result: ScheduleResult };
  'schedules.update': { params: UpdateScheduleParams; result: ScheduleResult };
  'schedules.delete': { params: ScheduleNameParams; result: DeletedResult };
  /** Enqueue the schedule's job now; next_run_at is unchanged. */
  'schedules.trigger': { params: ScheduleNameParams; result: EnqueueResult };
  'schedules.enable': { params: ScheduleNameParams; result: ScheduleResult };
  'schedules.disable': { params: ScheduleNameParams; result: ScheduleResult };

  'stats.get': { params: Record<string, never> | undefined; result: Stats };

  /** Start receiving notifications on this connection. */
  'events.subscribe': { params: SubscribeParams; result: SubscribeResult };
  'events.unsubscribe': { params: UnsubscribeParams; result: Ok };
}

export type MethodName = keyof Methods;
export type ParamsOf<M extends MethodName> = Methods[M]['params'];
export type ResultOf<M extends MethodName> = Methods[M]['result'];

/** Every method name, for validation, completion scripts and tests. */
export const METHOD_NAMES: readonly MethodName[] = [
  'daemon.status',
  'daemon.shutdown',
  'jobs.enqueue',
  'jobs.enqueueBatch',
  'jobs.get',
  'jobs.list',
  'jobs.output',
  'jobs.cancel',
  'jobs.retry',
  'jobs.update',
  'jobs.delete',
  'jobs.cancelMany',
  'jobs.retryMany',
  'jobs.deleteMany',
  'jobs.claim',
  'jobs.heartbeat',
  'jobs.progress',
  'jobs.checkpoint',
  'jobs.log',
  'jobs.complete',
  'jobs.fail',
  'jobs.release',
  'workers.register',
  'workers.list',
  'queues.list',
  'queues.get',
  'queues.configure',
  'queues.pause',
  'queues.resume',
  'queues.purge',
  'queues.delete',
  'schedules.list',
  'schedules.get',
  'schedules.create',
  'schedules.update',
  'schedules.delete',
  'schedules.trigger',
  'schedules.enable',
  'schedules.disable',
  'stats.get',
  'events.subscribe',
  'events.unsubscribe',
];

// ---------------------------------------------------------------------------------------------
// Notifications (daemon → subscribed client)

/** A job changed state, attempt or progress. */
export interface JobChangedEvent {
  subscriptionId: string;
  id: string;
  queue: string;
  kind: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  progress: number | null;
  /** True when the job was deleted; state is its last state. */
  deleted?: boolean;
  at: number;
}

/** A queue was created, configured, paused, resumed, purged or deleted. */
export interface QueueChangedEvent {
  subscriptionId: string;
  name: string;
  deleted?: boolean;
  at: number;
}

/** Coalesced: at most a few per second, carrying the new counts. */
export interface StatsChangedEvent {
  subscriptionId: string;
  stats: Stats;
}

/** Lines a running job wrote. */
export interface JobOutputEvent {
  subscriptionId: string;
  id: string;
  lines: OutputLine[];
}

export interface Notifications {
  'jobs.changed': JobChangedEvent;
  'queues.changed': QueueChangedEvent;
  'stats.changed': StatsChangedEvent;
  'jobs.output': JobOutputEvent;
}

export type NotificationName = keyof Notifications;

export type { RateLimit };
