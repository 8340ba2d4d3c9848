/**
 * The queue's nouns — jobs, runs, output, queues, schedules, workers — as they travel on the
 * wire. The daemon maps its SQLite rows onto these; every client reads them. Timestamps are
 * epoch milliseconds (UTC). Pure types and constants: no `vscode`, no `better-sqlite3`.
 */

/**
 * The states a job can be in, and which actions move a job in and out of each (shared/domain/states.ts, JOB_TRANSITIONS):
 *
 * - `blocked`: Entered by retry (`jobs.retry`, `jobs.retryMany`) from `completed`, `dead` or `cancelled`; unhold (`jobs.unhold`, `jobs.unholdMany`) from `held`. Actions: unblock (when the jobs it depends on end) → `queued` or `cancelled`; cancel (`jobs.cancel`, `jobs.cancelMany`) → `cancelled`; update (`jobs.update`, `jobs.updateMany`) keeps it `blocked`; hold (`jobs.hold`, `jobs.holdMany`) → `held`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. A job is enqueued in this state when it depends on jobs that have not all ended (`dependsOn`); it is never claimed, and is queued (or cancelled) in the transaction that ends the last of them. Retention never deletes a job a blocked job depends on.
 * - `queued`: Entered by unblock (when the jobs it depends on end) from `blocked`; retry (`jobs.retry`, `jobs.retryMany`) from `completed`, `dead` or `cancelled`; unhold (`jobs.unhold`, `jobs.unholdMany`) from `held`. Actions: claim (`jobs.claim`) → `running`; cancel (`jobs.cancel`, `jobs.cancelMany`) → `cancelled`; update (`jobs.update`, `jobs.updateMany`) keeps it `queued`; runNow (`jobs.runNow`) keeps it `queued`; hold (`jobs.hold`, `jobs.holdMany`) → `held`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. A job is enqueued in this state (`jobs.enqueue`, `jobs.enqueueBatch`, a schedule's tick) unless it waits for dependencies. A queued job whose `runAt` lies in the future is shown as *delayed*; it is still `queued`.
 * - `running`: Entered by claim (`jobs.claim`) from `queued` or `retrying`. Actions: heartbeat (`jobs.heartbeat`, `jobs.progress`, `jobs.checkpoint`, `jobs.log`) keeps it `running`; complete (`jobs.complete`) → `completed`; fail (`jobs.fail`) → `retrying`, `dead` or `cancelled`; release (`jobs.release`) → `retrying` or `cancelled`; markCancelled (when the daemon's own executors stop it for a requested cancel) → `cancelled`; reap (when its lease runs out) → `retrying`, `dead` or `cancelled`; recover (when the daemon starts and finds it left running by its own executors) → `retrying`; cancel (`jobs.cancel`, `jobs.cancelMany`) keeps it `running`; pause (`jobs.pause`) keeps it `running`; resume (`jobs.resume`) keeps it `running`. A running job is held by one worker under a lease.
 * - `retrying`: Entered by fail (`jobs.fail`) from `running`; release (`jobs.release`) from `running`; reap (when its lease runs out) from `running`; recover (when the daemon starts and finds it left running by its own executors) from `running`; unhold (`jobs.unhold`, `jobs.unholdMany`) from `held`. Actions: claim (`jobs.claim`) → `running`; cancel (`jobs.cancel`, `jobs.cancelMany`) → `cancelled`; update (`jobs.update`, `jobs.updateMany`) keeps it `retrying`; runNow (`jobs.runNow`) keeps it `retrying`; hold (`jobs.hold`, `jobs.holdMany`) → `held`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. It waits out its backoff (`runAt`), then is claimed exactly like a due queued job.
 * - `held`: Entered by hold (`jobs.hold`, `jobs.holdMany`) from `blocked`, `queued` or `retrying`. Actions: unblock (when the jobs it depends on end) → `held` or `cancelled`; cancel (`jobs.cancel`, `jobs.cancelMany`) → `cancelled`; update (`jobs.update`, `jobs.updateMany`) keeps it `held`; unhold (`jobs.unhold`, `jobs.unholdMany`) → `queued`, `retrying` or `blocked`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. A held job is never claimed; schedules whose overlap policy waits for their previous job count it as not finished, and retention never deletes it.
 * - `completed`: Entered by complete (`jobs.complete`) from `running`. Actions: retry (`jobs.retry`, `jobs.retryMany`) → `queued` or `blocked`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. Terminal: retention cleanup deletes it.
 * - `dead`: Entered by fail (`jobs.fail`) from `running`; reap (when its lease runs out) from `running`. Actions: retry (`jobs.retry`, `jobs.retryMany`) → `queued` or `blocked`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. Terminal: retention cleanup deletes it.
 * - `cancelled`: Entered by fail (`jobs.fail`) from `running`; release (`jobs.release`) from `running`; markCancelled (when the daemon's own executors stop it for a requested cancel) from `running`; reap (when its lease runs out) from `running`; unblock (when the jobs it depends on end) from `blocked` or `held`; cancel (`jobs.cancel`, `jobs.cancelMany`) from `blocked`, `queued`, `retrying` or `held`. Actions: retry (`jobs.retry`, `jobs.retryMany`) → `queued` or `blocked`; delete (`jobs.delete`, `jobs.deleteMany`) → `deleted`. Terminal: retention cleanup deletes it.
 */
export type JobState = 'blocked' | 'queued' | 'running' | 'retrying' | 'held' | 'completed' | 'dead' | 'cancelled';

export const JOB_STATES: readonly JobState[] = [
  'blocked',
  'queued',
  'running',
  'retrying',
  'held',
  'completed',
  'dead',
  'cancelled',
];

/** States from which nothing more happens unless a user retries the job. */
export const TERMINAL_STATES: readonly JobState[] = ['completed', 'dead', 'cancelled'];

/** How the wait before the next attempt grows with the attempt number n (1-based). */
export type BackoffStrategy = 'exponential' | 'linear' | 'fixed';

export interface Backoff {
  /** exponential: base·2^(n-1); linear: base·n; fixed: base. */
  strategy: BackoffStrategy;
  baseMs: number;
  /** No wait is longer than this, before jitter. */
  capMs: number;
  /** Fraction (0..1) by which the wait is moved up or down at random; 0.3 means ±30%. */
  jitter: number;
}

/** Where a job was enqueued from, when the enqueuer knows. Shown in the UI, never interpreted. */
export interface JobContext {
  workspace?: string;
  branch?: string;
  commit?: string;
  /** Who enqueued it: "cli", "vscode", "schedule:<name>", a worker's id, ... */
  origin?: string;
}

export interface Job {
  /** UUIDv7: time-ordered, not guessable. */
  id: string;
  queue: string;
  /** `shell` and `http` run in the daemon; any other kind is claimed by remote workers. */
  kind: string;
  payload: unknown;
  /** Higher runs first. */
  priority: number;
  /**
   * How much of its queue's concurrency, and of its worker's capacity, the job takes while it
   * runs (1..1000, default 1): a job of weight 4 takes the room of four jobs of weight 1.
   */
  weight: number;
  state: JobState;
  /** Earliest time the job may start (or restart, when retrying). */
  runAt: number;
  /** Attempts started so far (a claim increments it). */
  attempts: number;
  maxAttempts: number;
  backoff: Backoff;
  /** Lease length: a running job whose lease is not extended within this time is reaped. */
  timeoutMs: number;
  leaseExpiresAt: number | null;
  workerId: string | null;
  idempotencyKey: string | null;
  /** 0..100, set by the worker. */
  progress: number | null;
  progressMessage: string | null;
  /** JSON a worker saved; a retry resumes from it. */
  checkpoint: unknown;
  result: unknown;
  lastError: string | null;
  cancelRequested: boolean;
  tags: string[];
  context: JobContext | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** How many jobs this one was enqueued depending on (`dependsOn`). */
  dependsOn: number;
  /** Of those, how many have not ended yet: the job is `blocked` while this is above 0. */
  waitingFor: number;
  /** How many jobs were enqueued depending on this one (not lowered when one of them is deleted). */
  dependents: number;
  /** The workflow step this job runs, when a workflow made it; null otherwise. */
  step: string | null;
  /** The workflow run this job belongs to, when a workflow made it; null otherwise. */
  workflowRunId: string | null;
  /**
   * The uniqueness, debounce or throttle it was enqueued with (`unique`, `debounce`,
   * `throttle`); null or absent when none.
   */
  uniqueness?: JobUniqueness | null;
  /**
   * Which failures are retried: the job's own rule, else its queue's when it was enqueued; null
   * when neither has one (every failure is retried while attempts are left). Optional: absent
   * from jobs of a daemon that predates retry rules.
   */
  retry?: RetryRule | null;
  /**
   * The job ends `dead` ("expired before it started") if it has not started by then (epoch ms);
   * null when it has no expiry, and once it has started.
   */
  expiresAt?: number | null;
  /** No retry is made after this time (epoch ms): a failure then is final. Null when none. */
  deadlineAt?: number | null;
  /**
   * When a user paused this running shell job (`jobs.pause`: its processes are stopped, its lease
   * and timeout frozen); null when it is not paused. Optional: absent from older daemons.
   */
  pausedAt?: number | null;
  /**
   * The job's group key ("customer:42"), or null. A queue's group limits (groupConcurrency,
   * groupRate) hold per group, and a claim takes the queue's groups in turn.
   */
  group: string | null;
  /**
   * The priority the job counts as in its queue's claims while its queue's ageing (Queue.ageing)
   * has raised it above `priority` (which stays what was set); null or absent when not raised.
   */
  agedPriority?: number | null;
}

/**
 * What makes two jobs "the same" for `unique`, `debounce` and `throttle`: `queue`, `kind`,
 * `payload` (the whole payload, keys in any order), `group` (the job's group key), or
 * `payload.<path>`: one value inside the payload, by object keys and array positions separated
 * by dots (`payload.user.id`, `payload.files.0`).
 */
export type UniqueKeyPart = 'queue' | 'kind' | 'payload' | 'group' | `payload.${string}`;

/** The parts `unique.by` may name besides `payload.<path>`. */
export const UNIQUE_KEY_PARTS: readonly UniqueKeyPart[] = ['queue', 'kind', 'payload', 'group'];

/**
 * How long an equal job holds its place: `waiting` until it starts, `active` until it ends,
 * `any` for the whole window, whatever it became (the default).
 */
export type UniqueWhile = 'waiting' | 'active' | 'any';

export const UNIQUE_WHILE: readonly UniqueWhile[] = ['waiting', 'active', 'any'];

/** Which of the three rules a job was enqueued with. */
export type UniqueRuleKind = 'unique' | 'debounce' | 'throttle';

/** A job's uniqueness as stored with it and shown on its page. */
export interface JobUniqueness {
  rule: UniqueRuleKind;
  /** The window (`unique`), the quiet time (`debounce`) or the spacing of starts (`throttle`), in ms. */
  forMs: number;
  by: UniqueKeyPart[];
  /** `unique` only. */
  while?: UniqueWhile;
}

/**
 * Failures a retry rule names: an exit code of a shell job, an HTTP status of an HTTP job (or
 * what a worker reports), a glob over the first line of the error (`*` any run of characters,
 * `?` one). A failure matches when any one of the lists matches it.
 */
export interface RetryMatch {
  exitCodes?: number[];
  httpStatus?: number[];
  errors?: string[];
}

/**
 * Which failures are retried (per queue, template or job; the job's replaces the template's,
 * which replaces the queue's). A failure matching `never` is final. When `on` is given, a
 * failure not matching it is final too. Otherwise it is retried while attempts are left.
 */
export interface RetryRule {
  on?: RetryMatch;
  never?: RetryMatch;
}

/**
 * When a dependency lets its dependent run: `succeeded` (it completed), `failed` (it ended
 * without completing: dead, or cancelled), `finished` (it ended, whatever the outcome).
 */
export type DependencyCondition = 'succeeded' | 'failed' | 'finished';

export const DEPENDENCY_CONDITIONS: readonly DependencyCondition[] = ['succeeded', 'failed', 'finished'];

/** One dependency as `jobs.enqueue` takes it: a bare id is short for `{ id, on: 'succeeded' }`. */
export type DependsOn = string | { id: string; on?: DependencyCondition };

/**
 * One dependency of a job of `jobs.enqueueBatch`: a job that exists, as in `jobs.enqueue`, or
 * `{ index, on }`, an earlier job of the same batch by its position (0 for the first), so that a
 * whole graph is enqueued in one transaction.
 */
export type BatchDependsOn = DependsOn | { index: number; on?: DependencyCondition };

/** A job at the other end of a dependency, as `jobs.get` and a claim show it. */
export interface JobDependency {
  id: string;
  /** The condition of the edge between the two jobs. */
  on: DependencyCondition;
  state: JobState;
  /** The workflow step of that job, or null. */
  step: string | null;
  queue: string;
  kind: string;
  /** That job's result: what it completed with, or null. */
  result: unknown;
}

/** A claimed job, running and leased to the claimer; `dependencies` when it was enqueued depending on others. */
export interface ClaimedJob extends Job {
  /** The jobs it depends on, as they ended, with their results (present only when `dependsOn` > 0). */
  dependencies?: JobDependency[];
}

/** How one attempt ended. `running` while it has not. */
export type RunOutcome = 'running' | 'completed' | 'failed' | 'lease_expired' | 'cancelled' | 'interrupted';

/** One attempt of a job: the UI shows these as its history. */
export interface JobRun {
  jobId: string;
  /**
   * Which run of the job this was: 1 for its first claim, counting on across user retries and
   * interrupted attempts (which both repeat an attempt number). Output lines carry it too.
   */
  run: number;
  attempt: number;
  workerId: string;
  startedAt: number;
  finishedAt: number | null;
  outcome: RunOutcome;
  error: string | null;
  stack: string | null;
  exitCode: number | null;
  httpStatus: number | null;
  durationMs: number | null;
}

/** `marker` lines are written by the daemon itself, e.g. "[512 older lines dropped]". */
export type OutputStream = 'stdout' | 'stderr' | 'log' | 'marker';

export interface OutputLine {
  /** Increases by one per line of a job, across attempts; the `after` cursor of `jobs.output`. */
  seq: number;
  /**
   * The job's run when the line was written (JobRun.run), and that run's attempt number. 0 for
   * lines a Spool from before run numbers wrote: only their attempt is known.
   */
  run: number;
  attempt: number;
  stream: OutputStream;
  text: string;
  at: number;
}

export type JobCounts = Record<JobState, number>;

/**
 * Operating-system limits on a shell job's processes (setrlimit, applied with `prlimit`), each
 * per process and inherited by the processes it starts. A queue's limits apply to its shell jobs;
 * a job's own (`payload.limits`) override them field by field.
 */
export interface ResourceLimits {
  /** Address space, in bytes (RLIMIT_AS): an allocation past it fails. */
  memoryBytes?: number;
  /** CPU time, in seconds (RLIMIT_CPU): SIGXCPU when it is used up, SIGKILL a second later. */
  cpuSeconds?: number;
  /** Open file descriptors (RLIMIT_NOFILE). */
  openFiles?: number;
  /** Processes (RLIMIT_NPROC), counted for the whole user the daemon runs as, not per job. */
  processes?: number;
}

export interface RateLimit {
  /** Sustained jobs started per second. */
  perSecond: number;
  /** How many may start at once after a quiet spell (token-bucket size). */
  burst: number;
}

export interface Queue {
  name: string;
  /** Max jobs running at once; null = no limit of its own (the global executor cap still applies to built-in kinds). */
  concurrency: number | null;
  rateLimit: RateLimit | null;
  paused: boolean;
  /** Defaults applied to jobs enqueued without their own value. */
  defaultMaxAttempts: number;
  defaultBackoff: Backoff;
  defaultTimeoutMs: number;
  /** Finished jobs older than this are deleted by retention cleanup; null keeps them forever. */
  retentionMs: number | null;
  /** Limits on its shell jobs' processes, which a job's own `payload.limits` override; `{}` when none. */
  limits: ResourceLimits;
  /** Per state; `queued` includes the delayed ones. */
  counts: JobCounts;
  /** Queued jobs whose runAt is in the future (a subset of counts.queued). */
  delayed: number;
  createdAt: number;
  /** The project whose `spool apply` manages the queue; absent when none does (made on first use or by hand). */
  owner?: string;
  /** The retry rule its jobs get unless they bring their own; null or absent when none. */
  retry?: RetryRule | null;
  /** Its jobs end dead if not started within this long of their enqueue, unless they set their own; null or absent when none. */
  defaultExpireAfterMs?: number | null;
  /** Most weight of jobs running at once per group (Job.group), counted like `concurrency`; null = no limit per group. */
  groupConcurrency: number | null;
  /** A token bucket per group, as `rateLimit` is for the queue; null = no rate per group. */
  groupRate: RateLimit | null;
  /**
   * Fairness weights by group key: a group of weight 3 gets three turns for every one of a group
   * of weight 1 (groups not named weigh 1). null = plain round-robin.
   */
  groupWeights: Record<string, number> | null;
  /** True once the queue has groups (a job with a group, or a group setting): its claims take the groups in turn. */
  grouped: boolean;  /**
   * Priority ageing, e.g. "1 per 10m": a waiting job's priority counts one higher for every 10
   * minutes it has waited (higher priority runs first); null or absent = off.
   */
  ageing?: string | null;
}

/** What to do with the fire times a schedule missed while no daemon ran. */
export type MissedRunPolicy = 'skip' | 'runOnce';

/** The job a schedule enqueues each time it fires. */
/** The options a job may set for itself; its queue's defaults apply to the others. */
export interface JobOptions {
  priority?: number;
  maxAttempts?: number;
  backoff?: Partial<Backoff>;
  timeoutMs?: number;
  tags?: string[];
  /** Enqueueing an equal job within the window returns the existing one (see EnqueueParams.unique). */
  unique?: UniqueParams;
  /** See EnqueueParams.debounce. */
  debounce?: DurationValue;
  /** See EnqueueParams.throttle. */
  throttle?: DurationValue;
  /** The job's group key (Job.group); in spool.jsonc templates it may hold {{param}} placeholders. */
  group?: string;
  /** The job's own retry rule (see EnqueueParams.retry); null: none, whatever its queue's. */
  retry?: RetryRule | null;
  /** Ends dead if not started within this long of its enqueue (see EnqueueParams.expireAfterMs). */
  expireAfterMs?: number;
  /** No retry after this long from its enqueue (see EnqueueParams.deadlineMs). */
  deadlineMs?: number;
}

/** A duration on the wire: text in the duration syntax ("10m", "1h30m"), or whole milliseconds. */
export type DurationValue = string | number;

/**
 * `unique` of an enqueue: `for` the window, `by` what makes two jobs equal (default queue, kind
 * and payload), `while` how long the existing job holds (default `any`). With `debounce` or
 * `throttle`, only `by` is given here: it says which jobs are "such jobs" (default queue and kind).
 */
export interface UniqueParams {
  for?: DurationValue;
  by?: UniqueKeyPart[];
  while?: UniqueWhile;
}

export interface JobTemplate extends JobOptions {
  kind: string;
  payload?: unknown;
  /** The weight of each job it makes (1..1000, default 1): what it counts against a queue's concurrency. */
  weight?: number;
}

export interface Schedule {
  name: string;
  /** 5 fields (minute precision) or 6 (seconds first). */
  cron: string;
  /** IANA zone, e.g. "Europe/Paris"; "UTC" by default. */
  timezone: string;
  queue: string;
  job: JobTemplate;
  enabled: boolean;
  missedPolicy: MissedRunPolicy;
  /**
   * `skip`: a tick enqueues nothing while the schedule's last job is queued, retrying or running.
   * Absent (a daemon from before jobs as code): `allow`.
   */
  overlapPolicy?: 'allow' | 'skip';
  /** The project whose `spool apply` manages the schedule; absent for one made by hand. */
  owner?: string;
  /** The jobs file's template the job was made from, and the parameters it was given (set by apply). */
  template?: string;
  params?: Record<string, string>;
  /**
   * The workflow a fire starts a run of instead of enqueueing `job` (set by apply); its `params`
   * are the run's values, and `queue` and `job` are not used.
   */
  workflow?: string;
  nextRunAt: number | null;
  lastRunAt: number | null;
  lastJobId: string | null;
  /** The workflow run the schedule started last (its overlap policy looks at it); absent when it starts none. */
  lastRunId?: string | null;
  createdAt: number;
  updatedAt: number;
}

export type WorkerType = 'builtin' | 'remote';

export interface Worker {
  id: string;
  type: WorkerType;
  name: string | null;
  host: string | null;
  pid: number | null;
  /** Empty = all. */
  queues: string[];
  kinds: string[];
  concurrency: number | null;
  /** The most weight of jobs it holds at once (see Job.weight); null when it declared none. */
  capacity: number | null;
  /** Ids of the jobs it holds a lease on now. */
  runningJobIds: string[];
  startedAt: number;
  lastHeartbeatAt: number;
  /** False once its connection closed or its heartbeat went missing. */
  alive: boolean;
}
