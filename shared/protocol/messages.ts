/**
 * The records, params and results that travel in Spool's requests and responses. Each method's
 * pair is named in the method table (`methods.ts`); the nouns they carry (jobs, runs, queues,
 * schedules, workers) are in `shared/protocol/types.ts`. Types only: the OpenRPC generator turns them
 * into JSON Schema, with these doc comments as the descriptions.
 */
import type {
  Backoff,
  ClaimedJob,
  BatchDependsOn,
  DependsOn,
  Job,
  JobDependency,
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
  ResourceLimits,
  RetryRule,
  Schedule,
  Worker,
  DurationValue,
  UniqueParams,
} from './types';
import type { Change, DeclaredTemplate, Declaration, Drift, LiveObject, ObjectType } from './projects';

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
  /** Where the queue is: the SQLite file, or (PostgreSQL) the store's location, as in `store`. */
  dbPath: string;
  /** The store: 'sqlite' or 'postgres', and where its data is (a file; a server and database, never a password). */
  store: { kind: string; location: string };
  /**
   * The file the daemon logs to: the log beside its database when its standard error is that file
   * (as `spool daemon --detach` starts it); null when it logs to whatever started it.
   */
  logPath: string | null;
  /** Totals over all queues (while the store is unavailable: as last read). */
  counts: JobCounts;
  /** Present while the daemon cannot reach its store (PostgreSQL): why, in words. */
  storeUnavailable?: string;
  /** Built-in executors running jobs now, and their global cap. */
  executors: { running: number; cap: number };
  /**
   * Present when the daemon listens on TCP (`--listen`): the address, and its TLS certificate's
   * fingerprint, `sha256:` and the lower-case hex of the SHA-256 of the certificate's DER bytes
   * (what `openssl x509 -fingerprint -sha256` prints, lower-case, without colons).
   */
  listen?: string;
  tlsFingerprint?: string;
  /**
   * PostgreSQL: how far this daemon's clock is ahead of the database server's, in ms (negative:
   * behind), as last measured (every 30 s). Over 1000 either way, the daemon warns: leases and
   * due times are written by each daemon's clock.
   */
  clockSkewMs?: number;
  /**
   * How shell jobs are contained, so that none of their processes outlives a cancel: `cgroup`,
   * a cgroup v2 per job under `path`; or `process-group`, their process group and the
   * SPOOL_JOB_ID in their environment (a process that leaves both escapes), with `reason` saying
   * why no cgroup could be used.
   */
  containment?: { kind: 'cgroup'; path: string } | { kind: 'process-group'; reason: string };
  /** Present when the daemon serves Prometheus metrics (`--metrics`): their URL, `http://HOST:PORT/metrics`. */
  metrics?: string;
  /** True while every queue is paused (`daemon.pauseAll`), for every daemon of the store. */
  allPaused?: boolean;
}

/** What a token's holder may call over TCP: `read` reads, `worker` also enqueues and works jobs, `admin` everything. */
export type TokenScope = 'admin' | 'worker' | 'read';

/** Every token scope, weakest first. */
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'worker', 'admin'];

/** A token as listed: never the token itself, which only `tokens.create` returns, once. */
export interface TokenInfo {
  name: string;
  scope: TokenScope;
  createdAt: number;
}

export interface CreateTokenParams {
  name: string;
  scope: TokenScope;
}

export interface CreateTokenResult {
  /** The token: shown once, stored by the daemon only as its SHA-256. */
  token: string;
  info: TokenInfo;
}

export interface TokenNameParams {
  name: string;
}

export interface TokensListResult {
  tokens: TokenInfo[];
}

export interface LoginParams {
  token: string;
}

export interface LoginResult {
  /** The token's name and what it may call. */
  name: string;
  scope: TokenScope;
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
  /** Room the job takes of its queue's concurrency and its worker's capacity while it runs: 1..1000, default 1. */
  weight?: number;
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
  /**
   * Jobs that must end first (at most LIMITS.maxDependencies, each an existing job): the job
   * waits `blocked` until they have, then is queued; it ends `cancelled` when one ends so that
   * its condition can no longer hold.
   */
  dependsOn?: DependsOn[];
  /**
   * Enqueueing a job equal to one enqueued within `unique.for` (equal by `unique.by`) returns
   * that job instead (`created: false`, `reason: "unique"`), while it is as `unique.while` says.
   */
  unique?: UniqueParams;
  /**
   * A job equal to a queued one (by `unique.by`, default queue and kind) replaces that job's
   * payload and moves its start to now + debounce (`reason: "debounced"`) instead of being added.
   */
  debounce?: DurationValue;
  /**
   * Equal jobs (by `unique.by`, default queue and kind) start at least this far apart: a job is
   * enqueued to run no earlier than the previous one's run time + throttle (`reason: "throttled"`
   * when that delayed it).
   */
  throttle?: DurationValue;
  /** Which failures are retried; replaces the queue's rule (null: none, whatever the queue says). */
  retry?: RetryRule | null;
  /** End `dead` ("expired before it started") if not started within this long; default: the queue's `defaultExpireAfterMs`. */
  expireAfterMs?: number;
  /** No retry after this time (epoch ms); a failure then is final. Exclusive with deadlineMs. */
  deadlineAt?: number;
  /** The same, as a time from now. Exclusive with deadlineAt. */
  deadlineMs?: number;
  /**
   * The job's group key ("customer:42"): 1..128 of letters, digits and `:._-@/`. The queue's
   * groupConcurrency and groupRate hold per group, and its claims take groups in turn.
   */
  group?: string;
}

/** Why an enqueue returned what it did, besides creating the job as asked. */
export type EnqueueReason = 'key' | 'unique' | 'debounced' | 'throttled';

/** A job as enqueued, or the one an idempotency key matched. */
export interface EnqueueResult {
  job: Job;
  /** False when an existing job was returned (same idempotency key, unique, debounced). */
  created: boolean;
  /**
   * `key`: the job holding the idempotency key; `unique`: an equal job within its window;
   * `debounced`: the waiting equal job, its payload replaced and its start moved; `throttled`:
   * a new job (created) whose start was moved to keep equal jobs apart. Absent: enqueued as asked.
   */
  reason?: EnqueueReason;
  /** The state the existing job was in when it was returned (`created: false`). */
  existingState?: JobState;
}

/** A job of `jobs.enqueueBatch`: its `dependsOn` may also name earlier jobs of the batch by index. */
export interface EnqueueBatchJob extends Omit<EnqueueParams, 'dependsOn'> {
  /**
   * Jobs that must end first, as in `jobs.enqueue`; `{ index, on }` names an earlier job of the
   * same batch by its position (0 for the first; only earlier positions).
   */
  dependsOn?: BatchDependsOn[];
}

/** Several jobs to enqueue in one transaction: all of them are enqueued, or none. */
export interface EnqueueBatchParams {
  /** 1..LIMITS.maxBatch jobs. */
  jobs: EnqueueBatchJob[];
  /**
   * The fields of each result's job to send back (`id` always comes); absent = all of them. A
   * producer that keeps only the ids (`["id"]`) gets an answer a twentieth of the size, which the
   * daemon writes and the producer parses faster.
   */
  fields?: JobField[];
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
  /** The jobs it depends on, with their states and results (oldest first). */
  dependencies: JobDependency[];
  /** The jobs that depend on it, with their states (oldest first; at most LIMITS.maxListedDependents). */
  dependents: JobDependency[];
}

/** A job to delete. */
export interface DeleteJobParams {
  id: string;
  /**
   * Delete the jobs that depend on it (and theirs) as well. Without it, a job that unfinished
   * jobs depend on is refused.
   */
  cascade?: boolean;
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
  /** The git branch the job was enqueued from (its `context.branch`), matched exactly. */
  branch?: string;
  /**
   * The end of the job's id, 4 to 36 characters of `0-9`, `a-f` and `-`: the views show a job's
   * last 8 characters, and this finds the job they name (two or more when the suffix is shared).
   */
  idSuffix?: string;
  /** With `queued`: true = only jobs whose runAt is in the future, false = only due ones. */
  delayed?: boolean;
  /** Only jobs created more than this many ms ago. */
  olderThanMs?: number;
  /** The job's group key (Job.group), matched exactly. */
  group?: string;
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
  /**
   * The newest `last` lines (1..1000), oldest first, instead of a page after `after`: what a view
   * of a job's latest output needs without reading everything before it. Not with after or limit.
   */
  last?: number;
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
  /** How much of its queue's concurrency and its worker's capacity the job takes (1–1000). */
  weight?: number;
  /** Lease length of each attempt, in ms (as `jobs.enqueue`'s `timeoutMs`). */
  timeoutMs?: number;
  /** A shell job's command (its payload's `command`); not with `payload`. */
  command?: string;
  /** A shell job's environment, replacing the one it had; null removes it. Not with `payload`. */
  env?: Record<string, string> | null;
  /** A shell job's working directory, an absolute path; null removes it. Not with `payload`. */
  cwd?: string | null;
  /** An HTTP job's URL; not with `payload`. */
  url?: string;
  /** An HTTP job's method; not with `payload`. */
  method?: string;
  /** An HTTP job's headers, replacing the ones it had; null removes them. Not with `payload`. */
  headers?: Record<string, string> | null;
  /** An HTTP job's body (a string, or JSON sent as JSON); null removes it. Not with `payload`. */
  body?: unknown;
  /** A new group key (Job.group); null: no group. Its queue's group limits then count it in that group. */
  group?: string | null;
}

/** The bulk forms take ids, or a filter over one queue or every queue (e.g. retry all dead in a queue). */
export interface BulkParams {
  ids?: string[];
  /** Every job matching it, across every queue unless it names one; at least one field must be given. */
  filter?: JobFilter;
  /** Count what the action would apply to, in `count` and `queues`, and change nothing. */
  dryRun?: boolean;
}

/** `jobs.updateMany`: the jobs as for the other bulk forms, and the change to make to each. */
export interface BulkUpdateParams extends BulkParams {
  /** The priority every job named gets. */
  priority: number;
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
  /** With `dryRun`: how many queues the jobs it would apply to are in. */
  queues?: number;
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
  /**
   * The fields of each claimed job to send back (`id` always comes); absent = all of them. A
   * worker that reads only what it runs (`["kind", "payload", "attempts"]`) gets an answer a
   * fifth of the size, which the daemon writes and the worker parses faster.
   */
  fields?: ClaimedJobField[];
}

/** Every field of a claimed job, as `jobs.claim`'s `fields` may name them. */
export const CLAIMED_JOB_FIELDS = [
  'id',
  'queue',
  'kind',
  'payload',
  'priority',
  'weight',
  'state',
  'runAt',
  'attempts',
  'maxAttempts',
  'backoff',
  'timeoutMs',
  'leaseExpiresAt',
  'workerId',
  'idempotencyKey',
  'progress',
  'progressMessage',
  'checkpoint',
  'result',
  'lastError',
  'cancelRequested',
  'tags',
  'context',
  'createdAt',
  'updatedAt',
  'startedAt',
  'finishedAt',
  'dependsOn',
  'waitingFor',
  'dependents',
  'step',
  'workflowRunId',
  'uniqueness',
  'retry',
  'expiresAt',
  'deadlineAt',
  'pausedAt',
  'group',
  'agedPriority',
  'dependencies',
] as const satisfies readonly (keyof ClaimedJob)[];

/** A field of a claimed job. */
export type ClaimedJobField = (typeof CLAIMED_JOB_FIELDS)[number];

/** A field of a job. */
export type JobField = Exclude<ClaimedJobField, 'dependencies'>;

/** Every field of a job, as `jobs.enqueueBatch`'s `fields` may name them. */
export const JOB_FIELDS: readonly JobField[] = CLAIMED_JOB_FIELDS.filter((field): field is JobField => field !== 'dependencies');

/** The claimed jobs, now running and leased to the worker; empty when none was ready in time. */
export interface ClaimResult {
  jobs: ClaimedJob[];
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
  /** True while a user has the job paused (jobs.pause); only the daemon's own shell executor acts on it. */
  paused?: boolean;
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

/** One job of a jobs.completeMany. */
export interface CompleteManyItem {
  id: string;
  result?: unknown;
}

/** Several running jobs of one worker finished successfully: one call, one transaction. */
export interface CompleteManyParams {
  workerId: string;
  /** 1..LIMITS.maxBatch jobs, each named once. */
  jobs: CompleteManyItem[];
}

/** A job of a jobs.completeMany that was not completed, with the error its own jobs.complete would have had. */
export interface CompleteManyFailure {
  id: string;
  code: number;
  message: string;
}

/**
 * How many of the jobs were completed, and the ones that were not (a lost lease, an unknown id).
 * Unlike jobs.complete, the completed jobs are not sent back: a worker completing a batch
 * already has them.
 */
export interface CompleteManyResult {
  completed: number;
  failed: CompleteManyFailure[];
}

/** A running job's attempt failed. */
export interface FailParams extends WorkerJobParams {
  error: string;
  stack?: string;
  exitCode?: number;
  httpStatus?: number;
  /** Straight to dead, whatever attempts are left. */
  permanent?: boolean;
  /**
   * When the next attempt may start (epoch ms), instead of the backoff. The attempt is used up;
   * the job's retry rule and deadline still apply. Exclusive with permanent.
   */
  retryAt?: number;
}

/**
 * A worker puts off a job it holds: it runs again at `runAt` (epoch ms) or `delayMs` from now,
 * one of the two, without using up an attempt.
 */
export interface SnoozeParams extends WorkerJobParams {
  delayMs?: number;
  runAt?: number;
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
  /** The most weight of jobs (Job.weight) the worker holds at once; jobs.claim gives it no more. 1..100000. */
  capacity?: number;
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

/** Which of a queue's groups `queues.groups` lists. */
export interface QueueGroupsParams {
  name: string;
  /** 1..1000, default 100. */
  limit?: number;
  /** Continue after this group: the previous answer's `nextAfter`. */
  after?: string;
  /**
   * Only the groups at their limit: jobs wait in them and their running weight has reached the
   * queue's groupConcurrency (none when the queue sets no groupConcurrency).
   */
  atLimit?: boolean;
}

/** One group of a queue with its waiting and running jobs. */
export interface QueueGroup {
  /** The group key; null for the queue's jobs without one. */
  group: string | null;
  /** Queued (due or delayed) and retrying jobs. */
  waiting: number;
  running: number;
  /** What the running jobs weigh: what the queue's groupConcurrency counts. */
  runningWeight: number;
}

/** A page of a queue's groups with waiting or running jobs, by key. */
export interface QueueGroupsResult {
  groups: QueueGroup[];
  /** Pass as `after` for the next page; null on the last. */
  nextAfter: string | null;
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
  /**
   * Limits on the queue's shell jobs' processes: each field given replaces that limit, a field
   * given as null removes it, and `limits: null` removes them all.
   */
  limits?: ResourceLimitChanges | null;
  /** The retry rule its jobs get unless they bring their own; null removes it. */
  retry?: RetryRule | null;
  /** Its jobs end dead if not started within this long, unless they set their own; null removes it. */
  defaultExpireAfterMs?: number | null;
  /** Most weight running at once per group (1..100000); null removes the limit. */
  groupConcurrency?: number | null;
  /** A token bucket per group, as rateLimit; null removes it. */
  groupRate?: RateLimit | null;
  /** Fairness weights by group key (each 1..1000, others weigh 1); null or {} for plain round-robin. */
  groupWeights?: Record<string, number> | null;  /** Priority ageing, e.g. "1 per 10m" (see Queue.ageing); null turns it off. */
  ageing?: string | null;
}

/** Changes to a queue's resource limits: a number sets one, null removes it, absent leaves it. */
export type ResourceLimitChanges = { [K in keyof ResourceLimits]?: number | null };

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

/** The params of `project.state`: the project whose plan is being made. */
export interface ProjectStateParams {
  /** The jobs file's `project`: the owner name. */
  project: string;
}

/**
 * Everything a plan is made against: every queue, template and schedule on the daemon, owned by
 * any project or by none, each with its owner and what its owner last applied.
 */
export interface ProjectStateResult {
  objects: LiveObject[];
}

/** The params of `project.apply`. */
export interface ApplyProjectParams {
  /** The owner name; must be the declaration's own `project`. */
  project: string;
  /** The jobs file as `parseJobsFile` declared it (shared/jobsfile's Declaration). */
  file: Declaration;
  /** Delete queues that still hold jobs (their jobs too). Running jobs always refuse. */
  force?: boolean;
  /**
   * The fingerprint (`planHash`) of the plan the person saw. When the daemon's own plan, made in
   * the apply's transaction, differs, the apply is refused and nothing changes.
   */
  expected?: string;
}

/** What an apply did. */
export interface ApplyProjectResult {
  /** The plan that was applied, made inside the apply's transaction. */
  changes: Change[];
  /** False when there was nothing to change. */
  applied: boolean;
  /** `planHash` of that plan. */
  hash: string;
  /** Objects no project owns, left alone. */
  unmanaged: { type: ObjectType; name: string }[];
  /** Objects changed by hand since the last apply, which this apply put back. */
  drift: Drift[];
}

/** A template a project's apply stored: the declaration, its owner and times. */
export interface Template extends DeclaredTemplate {
  /** The project whose apply made it. */
  owner?: string;
  createdAt: number;
  updatedAt: number;
}

/** The params of a method that names one template. */
export interface TemplateNameParams {
  name: string;
}

/** One template. */
export interface TemplateResult {
  template: Template;
}

/** Every template. */
export interface TemplatesListResult {
  templates: Template[];
}

/** A template enqueued by name, as `spool run` does. */
export interface EnqueueTemplateParams {
  name: string;
  /** Values of the template's `{{name}}` parameters; its defaults fill the rest. */
  params?: Record<string, string>;
  /** When given, the template must be this project's: a run never picks another project's template by mistake. */
  project?: string;
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
  /** True while every queue is paused (`daemon.pauseAll`): no job starts on any daemon of the store. Absent from a daemon that predates it. */
  allPaused?: boolean;
}

/** The params of `stats.history`: one queue or all, a time range (epoch ms) and a step. */
export interface StatsHistoryParams {
  /** One queue; absent: every queue, one series each. */
  queue?: string;
  /** Start of the range, epoch ms, rounded down to the step. */
  from: number;
  /** End of the range (exclusive), epoch ms, rounded down to the step. */
  to: number;
  /** Minutes are kept 7 days by default, hours 90 days. */
  step: 'minute' | 'hour';
}

/**
 * One queue's activity in one minute or hour of `stats.history`. Counts are of what happened in
 * that step; times are in ms; `backlog` and `running` are at the end of the step.
 */
export interface HistoryPoint {
  queue: string;
  /** The start of the minute or hour, epoch ms. */
  at: number;
  enqueued: number;
  started: number;
  completed: number;
  /** Attempts that failed and were retried. */
  failed: number;
  dead: number;
  cancelled: number;
  /** Wait from enqueue (or the time it was due) to start, ms; null when nothing started. */
  waitP50: number | null;
  waitP95: number | null;
  waitMax: number | null;
  /** Run time of attempts that ended, ms; null when none ended. */
  runP50: number | null;
  runP95: number | null;
  runMax: number | null;
  /** Jobs waiting at the end of the step. */
  backlog: number;
  /** Jobs running at the end of the step. */
  running: number;
}

/**
 * What `stats.history` answers, oldest first per queue. A step with no activity may be absent:
 * a reader fills the gap with zeros and the last known backlog.
 */
export interface StatsHistoryResult {
  step: 'minute' | 'hour';
  points: HistoryPoint[];
}

/** Why a job changed state, in `jobs.history`. */
export type JobHistoryCause =
  | 'enqueue'
  | 'claim'
  | 'complete'
  | 'fail'
  | 'retry'
  | 'retry by user'
  | 'cancel'
  | 'hold'
  | 'release'
  | 'edit'
  | 'run now'
  | 'reaper'
  | 'expire'
  | `schedule ${string}`
  | `workflow ${string}#${string}`
  | 'apply'
  | 'dependency';

/** One state change of a job: when, into which state, why and by whom. */
export interface JobHistoryEvent {
  at: number;
  state: JobState;
  /**
   * One of `enqueue`, `claim`, `complete`, `fail`, `retry`, `retry by user`, `cancel`, `hold`,
   * `release`, `edit`, `run now`, `reaper`, `expire`, `schedule <name>`, `workflow <name>#<run>`,
   * `apply`, `dependency`.
   */
  cause: string;
  /** The Unix user on the socket, or the token's name over TLS; null for the daemon itself. */
  who: string | null;
  /** The attempt it concerns, when it concerns one. */
  attempt: number | null;
  /** More words: the error of a failed attempt, the fields an edit changed. */
  detail: string | null;
}

/** What `jobs.history` answers: the job's state changes, oldest first. */
export interface JobHistoryResult {
  events: JobHistoryEvent[];
}

/** What `daemon.pauseAll` and `daemon.resumeAll` answer. */
export interface PauseAllResult {
  /** Whether every queue is paused now. */
  allPaused: boolean;
}
