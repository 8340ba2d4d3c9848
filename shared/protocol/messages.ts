/**
 * The records, params and results that travel in Spool's requests and responses. Each method's
 * pair is named in the method table (`methods.ts`); the nouns they carry (jobs, runs, queues,
 * schedules, workers) are in `shared/types.ts`. Types only: the OpenRPC generator turns them
 * into JSON Schema, with these doc comments as the descriptions.
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
} from '../types';

/** The params of a method that takes none: absent, or an empty object. */
export type NoParams = Record<string, never> | undefined;

/** The handshake's answer: who the daemon is, where it keeps its files, and its counters. */
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

/** Where `daemon.backup` writes the copy: an absolute path on the daemon's machine. */
export interface BackupParams {
  path: string;
}

/** A backup written by `daemon.backup`, with its checksum beside it. */
export interface BackupResult {
  /** The copy (mode 0600). */
  path: string;
  /** `path` + `.sha256`, in `sha256sum` format (`<hex>  <file name>`), so `sha256sum -c` checks it. */
  checksumPath: string;
  /** SHA-256 of the copy, in hex. */
  sha256: string;
  bytes: number;
  /** How long the copy took. */
  ms: number;
}

/** A job to enqueue. Only queue and kind are required; the rest defaults from the queue. */
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

/** A job as enqueued, or the one an idempotency key matched. */
export interface EnqueueResult {
  job: Job;
  /** False when an existing job with the same idempotency key was returned. */
  created: boolean;
}

/** Several jobs to enqueue in one transaction: all of them are enqueued, or none. */
export interface EnqueueBatchParams {
  /** 1..LIMITS.maxBatch jobs. */
  jobs: EnqueueParams[];
}

/** One result per job of `jobs.enqueueBatch`, in the order given. */
export interface EnqueueBatchResult {
  results: EnqueueResult[];
}

/** The params of a method that names one job. */
export interface JobIdParams {
  id: string;
}

/** A job with its runs, one per attempt, oldest first. */
export interface JobWithRuns {
  job: Job;
  runs: JobRun[];
}

/** The order of `jobs.list`: newest or oldest created first, or soonest `runAt` first. */
export type JobOrder = 'newest' | 'oldest' | 'runAt';

/** Which jobs `jobs.list` and the bulk methods apply to; every field narrows the set. */
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

/** A page of jobs matching a filter, in an order. */
export interface ListJobsParams extends JobFilter {
  /** Default newest (createdAt descending). */
  order?: JobOrder;
  /** 1..LIMITS.maxPageSize, default 50. */
  limit?: number;
  /** Opaque; from the previous page's nextCursor. */
  cursor?: string;
}

/** One page of `jobs.list`. */
export interface ListJobsResult {
  jobs: Job[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** Which output lines of a job to read. */
export interface JobOutputParams {
  id: string;
  /** Return lines with seq > after. Default 0. */
  after?: number;
  /** Default 1000. */
  limit?: number;
}

/** Output lines of a job, oldest first, and where to continue. */
export interface JobOutputResult {
  lines: OutputLine[];
  /** Pass as `after` to continue. */
  nextAfter: number;
  /** True once the job is in a terminal state and every line was returned. */
  done: boolean;
}

/** The fields of a waiting job to change; the others stay as they are. */
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

/** What a bulk action did. */
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

/** What a worker asks for when it claims jobs. */
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

/** The claimed jobs, now running and leased to the worker; empty when none was ready in time. */
export interface ClaimResult {
  jobs: Job[];
}

/** A job and the worker that holds its lease. */
export interface WorkerJobParams {
  id: string;
  workerId: string;
}

/** A heartbeat: extends the lease on a running job. */
export interface HeartbeatParams extends WorkerJobParams {
  /** New lease = max(current, now + extendMs). Default the job's timeoutMs. */
  extendMs?: number;
}

/** The lease after a heartbeat, and whether the job should stop. */
export interface HeartbeatResult {
  leaseExpiresAt: number;
  cancelRequested: boolean;
}

/** A running job's progress. */
export interface ProgressParams extends WorkerJobParams {
  /** 0..100. */
  percent: number;
  message?: string;
}

/** JSON a running job saves, for a later attempt to resume from. */
export interface CheckpointParams extends WorkerJobParams {
  checkpoint: unknown;
}

/** Output lines a running job wrote. */
export interface LogParams extends WorkerJobParams {
  lines: string[];
  /** Default `log`. */
  stream?: Exclude<OutputStream, 'marker'>;
}

/** A running job finished; its result is kept with the job. */
export interface CompleteParams extends WorkerJobParams {
  result?: unknown;
}

/** A running job's attempt failed. */
export interface FailParams extends WorkerJobParams {
  error: string;
  stack?: string;
  exitCode?: number;
  httpStatus?: number;
  /** Straight to dead, whatever attempts are left. */
  permanent?: boolean;
}

/** A worker hands a held job back without finishing it. */
export interface ReleaseParams extends WorkerJobParams {
  /** Why the worker hands the job back, for the run history (default: "released by its worker"). */
  reason?: string;
}

/** complete/fail/cancel/retry/update return the job as it is afterwards. */
export interface JobResult {
  job: Job;
}

/** The answer of a method that only acknowledges. */
export interface Ok {
  ok: true;
}

/** A remote worker announcing itself. */
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

/** A worker as the daemon records it. */
export interface WorkerResult {
  worker: Worker;
}

/** Every worker the daemon knows: built-in executors and remote workers. */
export interface WorkersListResult {
  workers: Worker[];
}

/** The params of a method that names one queue. */
export interface QueueNameParams {
  name: string;
}

/** Every queue. */
export interface QueuesListResult {
  queues: Queue[];
}

/** A queue as it is afterwards. */
export interface QueueResult {
  queue: Queue;
}

/** A queue's settings to change; the others stay as they are. */
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

/** Which jobs of a queue to delete. */
export interface PurgeQueueParams {
  name: string;
  /** Default: every state but running. Running jobs are never purged. */
  states?: JobState[];
}

/** How many objects were deleted. */
export interface DeletedResult {
  deleted: number;
}

/** A queue to delete. */
export interface DeleteQueueParams {
  name: string;
  /** Without it, a queue that still has jobs is refused. Running jobs always refuse. */
  force?: boolean;
}

/** The params of a method that names one schedule. */
export interface ScheduleNameParams {
  name: string;
}

/** A new schedule: a cron expression in a timezone, and the job it enqueues on each tick. */
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

/** A schedule's fields to change; the others stay as they are. */
export interface UpdateScheduleParams {
  name: string;
  cron?: string;
  timezone?: string;
  queue?: string;
  job?: JobTemplate;
  enabled?: boolean;
  missedPolicy?: MissedRunPolicy;
}

/** A schedule and its next fire times. */
export interface ScheduleResult {
  schedule: Schedule;
  /** The next few fire times (up to 3), for the user to check the expression. */
  nextRuns: number[];
}

/** Every schedule. */
export interface SchedulesListResult {
  schedules: Schedule[];
}

/** One queue's counts in `stats.get`. */
export interface QueueStats {
  name: string;
  paused: boolean;
  counts: JobCounts;
  delayed: number;
}

/** Counts per queue and in total, and throughput over the last minute and hour. */
export interface Stats {
  queues: QueueStats[];
  totals: JobCounts;
  completedLastMinute: number;
  failedLastMinute: number;
  completedLastHour: number;
  failedLastHour: number;
  at: number;
}

/** The kinds of events a subscription can ask for: `jobs` (jobs.changed), `queues` (queues.changed), `stats` (stats.changed), `output` (jobs.output). */
export type EventTopic = 'jobs' | 'queues' | 'stats' | 'output';

/** Which events a subscription receives. */
export interface SubscribeParams {
  /** Default all topics. */
  topics?: EventTopic[];
  /** Only events of these queues (stats are not filtered). */
  queues?: string[];
  /** `output` events only for these jobs (output of every job is a lot). */
  jobIds?: string[];
}

/** The subscription's id; every notification it brings carries it. */
export interface SubscribeResult {
  subscriptionId: string;
}

/** The subscription to end. */
export interface UnsubscribeParams {
  subscriptionId: string;
}

