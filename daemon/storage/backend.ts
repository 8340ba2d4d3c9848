/**
 * The storage interface: every operation the queue engine needs from a store, one method each,
 * as River's driver interface has one method per storage operation. A store (SQLite today,
 * PostgreSQL next) implements it with its own SQL; the engine (daemon/engine/) validates the
 * raw params, keeps the policy and delivers the events, and never names a store.
 *
 * Every method takes input the engine has already validated, does its work in one transaction
 * (or, where it says so, in batches of `StoragePolicy.batchSize` rows, one transaction each) and
 * returns a promise. A store that reports a refusal (no such job, a lost lease, a state that
 * forbids the action) rejects with the SpoolError named at the method; anything else is a fault.
 *
 * Events: a store records what its transaction changed on the `ChangeRecorder` it was made with,
 * marks where each transaction (or savepoint) began, discards what a rollback undid, and flushes
 * only after the outermost commit: a listener never hears of a change that was undone.
 *
 * Group commit: a store whose calls do their work synchronously, inside the call (SQLite:
 * better-sqlite3 is synchronous), offers `batch`, which runs a synchronous function in one
 * transaction; every call that function makes runs inside it, as a savepoint. A store whose
 * calls wait for a server (PostgreSQL) leaves `batch` out, and the engine runs them one by one.
 */
import type { BulkResult, HeartbeatResult, JobOutputResult, JobWithRuns, Stats, TokenScope } from '../../shared/protocol';
import type { Backoff, Job, JobState, JobTemplate, OutputLine, OutputStream, Queue, RateLimit, Schedule, Worker, WorkerType } from '../../shared/types';
import type { OverlapPolicy } from '../../shared/jobsfile';
import type { BulkInput, ListCursor, ListInput, UpdateInput } from '../engine/validate/jobs';
import type { ConfigureInput } from '../engine/validate/queues';
import type { ScheduleChanges, ScheduleInput } from '../engine/validate/schedules';
import type { FailInput, ReleaseInput, RegisterInput } from '../engine/validate/worker';
import type { JobRules } from '../engine/rules';
import type { ChangeSink, Op } from './statements';

export type { FailureOutcome, JobRules } from '../engine/rules';

export type { ListCursor };

export type { KindFilter } from './statements/claim';

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

/** One complete of a completeMany: the completed job, or the error its own call would have had. */
export type CompleteOutcome = { ok: true; job: Job } | { ok: false; error: unknown };

/** A per-queue counter that disagrees with the jobs it counts. */
export interface CounterMismatch {
  queue: string;
  state: JobState;
  counted: number;
  actual: number;
}

/** The three kinds of object a project's jobs file declares. */
export type ManagedType = 'queue' | 'template' | 'schedule';

/** That a project's apply made (or adopted) an object, and what it last declared. */
export interface Ownership {
  type: ManagedType;
  name: string;
  project: string;
  /** canonicalJson (shared/jobsfile) of the declared value; the engine reads it back. */
  applied: string;
  appliedAt: number;
}

/**
 * A template as a store holds it: the declaration without its name, as canonical JSON text the
 * engine reads back with its own validation (the store keeps no policy about templates).
 */
export interface StoredTemplate {
  name: string;
  queue: string;
  kind: string;
  body: string;
  createdAt: number;
  updatedAt: number;
}

/** Everything a plan is made against: every queue, template and schedule, and every ownership record. */
export interface ProjectObjects {
  queues: Queue[];
  templates: StoredTemplate[];
  schedules: Schedule[];
  owned: Ownership[];
}

/** A schedule as apply writes it: its fields, where its job came from, its overlap policy. */
export interface ScheduleDeclared extends ScheduleInput {
  overlapPolicy: OverlapPolicy;
  template: string;
  params: Record<string, string>;
}

/**
 * One write of an apply, decided by the engine from what the store read in the same
 * transaction. A `put` creates the object or changes it, and records `project` as its owner and
 * `applied` as what it declared.
 */
export type ApplyWrite =
  | { type: 'queue'; action: 'put'; name: string; settings: ConfigureInput; paused: boolean | undefined; project: string; applied: string }
  /** Deletes the queue; with `force` its waiting and finished jobs first. Running jobs refuse it (InvalidState). */
  | { type: 'queue'; action: 'delete'; name: string; force: boolean }
  | { type: 'template'; action: 'put'; name: string; queue: string; kind: string; body: string; project: string; applied: string }
  | { type: 'template'; action: 'delete'; name: string }
  /** `nextRunAt` undefined keeps the stored next fire time (the cron, zone and enabled did not change). */
  | { type: 'schedule'; action: 'put'; schedule: ScheduleDeclared; nextRunAt: number | null | undefined; project: string; applied: string }
  | { type: 'schedule'; action: 'delete'; name: string };

/** What the engine decided, from what the store read: the writes, and what the call answers. */
export interface ApplyDecision<T> {
  writes: ApplyWrite[];
  result: T;
}

/** The store in neutral words, as `daemon.status` reports it. */
export interface StoreDescription {
  /** Which store: 'sqlite' (later 'postgres'). */
  kind: string;
  /** Where its data is: a file for SQLite, a server and database for PostgreSQL (never a password). */
  location: string;
}

/**
 * What a store records while its transaction runs, and when it may be told. The engine's event
 * hub implements it. Its marks assume one transaction at a time, as SQLite's synchronous calls
 * give; a store whose transactions overlap (PostgreSQL, awaiting a server) keeps each one's
 * changes apart and records them, then flushes, once that transaction has committed.
 */
export interface ChangeRecorder {
  /** A job was created, changed or (deleted) removed. */
  job(job: Job, deleted?: boolean): void;
  /** A queue was created, changed, had jobs removed, or (deleted) was removed. */
  queue(name: string, deleted?: boolean): void;
  /** Output lines were stored for a job. */
  output(jobId: string, queue: string, lines: OutputLine[]): void;
  /** Where the transaction (or savepoint) about to start begins, to discard back to. */
  mark(): number;
  /** Forgets what was recorded since `mark`: the transaction or savepoint rolled back. */
  discard(mark: number): void;
  /** The outermost transaction committed: what it recorded may be delivered now. */
  flush(): void;
  /**
   * Another daemon on the same store made jobs claimable (enqueued, retried, freed a concurrency
   * slot): jobs of `queue` (of every queue when null) from `dueAt` on (epoch ms; now when left
   * out). `kinds`: the kinds of the jobs concerned, when known (so that built-in executors are
   * woken only for theirs). Optional: only a store that several daemons share calls it, outside
   * any transaction.
   */
  wake?(queue: string | null, dueAt?: number, kinds?: readonly string[]): void;
  /**
   * Whether anything here listens for job changes made by other daemons. Reading them back costs
   * the store a query per notification, so a store asks first and reads only when this says yes.
   */
  wantsRemoteJobs?(): boolean;
  /**
   * A job another daemon changed, as this store read it back after that daemon's commit:
   * delivered (at the next flush) like a change of this daemon's own, marked as remote.
   */
  remoteJob?(job: Job): void;
}

/**
 * The policy a store applies inside its transaction, handed to it as plain synchronous functions
 * and values. They are passed in rather than applied by the engine around the store call because
 * each needs what the store reads in the same transaction (the attempt count a failure ends, the
 * queue's current defaults, the tokens left in a rate limit): applying them afterwards would
 * take a second transaction and let another daemon change the row in between. They must never
 * do I/O: SQLite runs them inside a transaction that must not span an await.
 */
export interface StoragePolicy {
  /** The clock, epoch ms (injected by tests). */
  now(): number;
  /** A new id for a job or worker: a UUIDv7 of now, so ids sort by creation time. */
  newId(): string;
  /** The smallest id a job created at `time` can have (retention finds old jobs by id). */
  firstIdAt(time: number): string;
  /** The job rules: what a job's state allows, how a failure ends, how long a lease runs. */
  rules: JobRules;
  /** The settings a queue gets when its first job creates it. */
  queueDefaults: {
    concurrency: number | null;
    maxAttempts: number;
    backoff: Backoff;
    timeoutMs: number;
    retentionMs: number | null;
  };
  /** A job's or template's partial backoff completed from a queue's default; refuses a cap below the base, naming `field`. */
  mergeBackoff(defaults: Backoff, given: Partial<Backoff>, field: string): Backoff;
  /** Turns a schedule's stored template back into its type, checking it again rather than trusting the store. */
  parseTemplate(json: string, scheduleName: string): JobTemplate;
  /** A rate limit's token bucket, refilled to `now` from what the store kept. */
  refill(limit: RateLimit, stored: { tokens: number | null; refilledAt: number | null }, now: number): { tokens: number; refilledAt: number };
  /** Whole tokens a bucket can give now. */
  available(bucket: { tokens: number; refilledAt: number }): number;
  /** When the bucket will next hold a whole token. */
  nextTokenAt(limit: RateLimit, bucket: { tokens: number; refilledAt: number }): number;
  /** Rows moved per transaction by bulk work (purge, retention, reaping, bulk actions): no write lock is held long. */
  batchSize: number;
  /** Most output lines kept per job; older ones go, with a marker line. */
  maxOutputLinesPerJob: number;
  /** An output line cut to the stored maximum. */
  truncateLine(line: string): string;
}

/** An access token as stored: its SHA-256 (hex), never the token. */
export interface StoredToken {
  name: string;
  scope: TokenScope;
  /** Lower-case hex of the SHA-256 of the token. */
  hash: string;
  createdAt: number;
}

/** A daemon running on the store (or stopped, until a successor has recovered what it left running). */
export interface DaemonInstance {
  /** Chosen by the daemon when it starts: one per process. */
  id: string;
  host: string;
  pid: number;
  /**
   * When the process started, as the kernel counts it (Linux: /proc/<pid>/stat field 22), so that
   * a pid reused by another process is not taken for the daemon; null where it cannot be read.
   */
  processStart: string | null;
  socketPath: string;
  /** The worker id its built-in executors claim under. */
  executorId: string;
  startedAt: number;
  /** Its last heartbeat: when it was last known alive. */
  heartbeatAt: number;
  /** When it stopped cleanly; null while it runs, or if it died. */
  stoppedAt: number | null;
}

/** What a daemon records about itself when it starts. */
export type DaemonRegistration = Pick<DaemonInstance, 'id' | 'host' | 'pid' | 'processStart' | 'socketPath' | 'executorId'>;

/** Makes a store for an engine: the engine hands over its policy and its event hub. */
export type StorageFactory = (policy: StoragePolicy, changes: ChangeRecorder) => StorageBackend;

export interface StorageBackend {
  /** The store in neutral words, for `daemon.status` and the daemon's log. */
  readonly description: StoreDescription;
  /** The schema migrations opening the store applied (all of them for a new store), and how long they took. */
  readonly migrated: { versions: number[]; ms: number };
  /**
   * Settles once the store is open and migrated, or rejects with why it cannot be (a store that
   * opens asynchronously: PostgreSQL connects to its server). A store that opened inside its
   * factory (SQLite) leaves it out. Every other call waits for the opening itself.
   */
  open?(): Promise<void>;

  /**
   * Runs a job operation (daemon/engine/ops/, through the protocol of ./statements/index.ts) in
   * one write transaction; what it recorded on `changes` is delivered after the commit.
   */
  write<T>(op: (changes: ChangeSink) => Op<T>): Promise<T>;
  /** Runs a reading operation in one read transaction (one consistent snapshot). */
  read<T>(op: (changes: ChangeSink) => Op<T>): Promise<T>;

  // Jobs

  /** A job and its runs. Rejects with JobNotFound. */
  getJob(id: string): Promise<JobWithRuns>;
  /** Up to `limit` jobs matching the filter, in the order, after the cursor. */
  listJobs(input: ListInput): Promise<Job[]>;
  /** A page of a job's output lines after `after`, and whether the job has finished and the page is its last. Rejects with JobNotFound. */
  output(id: string, after: number, limit: number): Promise<JobOutputResult>;
  /** The newest `last` lines of a job, oldest first; done once the job has finished. Rejects with JobNotFound. */
  outputTail(id: string, last: number): Promise<JobOutputResult>;
  /** queued/retrying → cancelled; running → cancel requested. Rejects with JobNotFound or InvalidState (finished). */
  cancel(id: string): Promise<Job>;
  /** A finished job → queued with a fresh attempt budget. Rejects with JobNotFound or InvalidState (not finished). */
  retry(id: string): Promise<Job>;
  /** A waiting job's priority, run time, payload, attempts or tags. Rejects with JobNotFound, InvalidState or InvalidParams (against the stored job). */
  update(input: UpdateInput): Promise<Job>;
  /** Deletes a job that is not running. Rejects with JobNotFound or InvalidState (running). */
  deleteJob(id: string): Promise<void>;
  /** Cancel for every id or filter match, `batchSize` jobs per transaction; refusals are collected, not thrown. `stopRequested` counts running jobs asked to stop. */
  cancelMany(input: BulkInput): Promise<BulkResult>;
  /** Retry for every id or filter match, as cancelMany. */
  retryMany(input: BulkInput): Promise<BulkResult>;
  /** Delete for every id or filter match, as cancelMany. */
  deleteMany(input: BulkInput): Promise<BulkResult>;

  // The worker side: every method here acts only for the worker holding the lease and
  // rejects with LeaseLost (or JobNotFound) for anyone else, changing nothing.

  /** Extends the lease by `extendMs` (default: the job's timeout) from now. */
  heartbeat(id: string, workerId: string, extendMs: number | undefined): Promise<HeartbeatResult>;
  /** Records progress, percent and message. */
  progress(id: string, workerId: string, percent: number, message: string | null): Promise<void>;
  /** Stores the job's checkpoint, handed to its next attempt. */
  checkpoint(id: string, workerId: string, value: string): Promise<void>;
  /** Appends output lines (each chunk at most the wire's batch size), all in one transaction. */
  appendOutput(id: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, chunks: readonly string[][]): Promise<void>;
  /** Completes the attempt with its result. */
  complete(id: string, workerId: string, result: string | null): Promise<Job>;
  /** Many completes in one transaction, each with the outcome its own complete would have had. */
  completeMany(items: readonly { id: string; workerId: string; result: string | null }[]): Promise<CompleteOutcome[]>;
  /** A failed attempt: retrying after the backoff, dead when no attempt is left or it is permanent, cancelled if a cancel was requested. */
  fail(input: FailInput): Promise<Job>;
  /** The worker hands the job back unfinished: the attempt is given back and it runs again at once (cancelled if a cancel was requested). */
  release(input: ReleaseInput): Promise<Job>;
  /** A running job whose cancel the worker carried out ends cancelled. */
  markCancelled(id: string, workerId: string): Promise<Job>;

  // Workers

  /** Registers (or re-registers) a worker, with its capacity if it declares one; an id is made when the input has none. */
  registerWorker(input: RegisterInput, type: WorkerType): Promise<Worker>;
  /** Every known worker. */
  listWorkers(): Promise<Worker[]>;
  /** The worker was heard from now. Rejects with WorkerNotFound. */
  touchWorker(workerId: string): Promise<void>;
  /** The worker's connection closed; its leases run out normally. Rejects with WorkerNotFound. */
  markWorkerGone(workerId: string): Promise<void>;

  // Daemons: the instances running on the store, so that a daemon can tell its dead predecessors.

  /** Records a daemon as running from now (again, if the id was recorded before). */
  registerDaemon(registration: DaemonRegistration): Promise<DaemonInstance>;
  /** Every daemon recorded, oldest first: running ones, and stopped or dead ones whose successor has not yet recovered what they left. */
  listDaemons(): Promise<DaemonInstance[]>;
  /**
   * The daemon is alive now: its heartbeat, and its built-in executors' worker row (if it still
   * has `pid`, the daemon's own) marked alive and seen now. False if the daemon has no row or is
   * recorded as stopped.
   */
  daemonHeartbeat(id: string, pid: number): Promise<boolean>;
  /** The daemon stopped cleanly: recorded with the time, and its executors' worker row (if still its own, by `pid`) shown as gone. False if it has no row. */
  daemonStopped(id: string, pid: number): Promise<boolean>;
  /** A successor has recovered what the daemon left: its row goes, and its executors' worker row (if still its, by `pid`) shows as gone. False if it had no row. */
  forgetDaemon(id: string, pid: number): Promise<boolean>;

  // Access tokens (clients over TCP): stored hashed.

  /** Stores a new token. Rejects with AlreadyExists when the name is taken. */
  createToken(token: StoredToken): Promise<void>;
  /** Every token, by name. */
  listTokens(): Promise<StoredToken[]>;
  /** Removes a token; false when there was none by that name. */
  revokeToken(name: string): Promise<boolean>;

  // Queues

  /** Every queue with its counts. */
  listQueues(): Promise<Queue[]>;
  /** One queue with its counts. Rejects with QueueNotFound. */
  getQueue(name: string): Promise<Queue>;
  /** Changes a queue's settings, creating it if new. */
  configureQueue(input: ConfigureInput): Promise<Queue>;
  /** Pauses or resumes a queue. A pause creates the queue with the defaults if new (a queue may be paused before its first job); a resume rejects with QueueNotFound. */
  setPaused(name: string, paused: boolean): Promise<Queue>;
  /** Deletes a queue's jobs in these states, `batchSize` per transaction; how many. Rejects with QueueNotFound. */
  purgeQueue(name: string, states: JobState[]): Promise<number>;
  /** Deletes a queue; with `force`, its waiting and finished jobs first (how many). Rejects with QueueNotFound, or InvalidState while jobs run (or any is left, without force). */
  deleteQueue(name: string, force: boolean): Promise<number>;

  // Schedules

  /** Every schedule. */
  listSchedules(): Promise<Schedule[]>;
  /** One schedule. Rejects with ScheduleNotFound. */
  getSchedule(name: string): Promise<Schedule>;
  /** Creates a schedule with its first fire time. Rejects with AlreadyExists. */
  createSchedule(input: ScheduleInput, nextRunAt: number | null): Promise<Schedule>;
  /** Changes a schedule; `nextRunAt` undefined keeps the stored one. Rejects with ScheduleNotFound. */
  updateSchedule(changes: ScheduleChanges, nextRunAt: number | null | undefined): Promise<Schedule>;
  /** Deletes a schedule. Rejects with ScheduleNotFound. */
  deleteSchedule(name: string): Promise<void>;

  // Jobs as code: templates, ownership and apply

  /** Every queue (with counts and owner), template, schedule and ownership record, read in one snapshot. */
  projectObjects(): Promise<ProjectObjects>;
  /** Every template, by name. */
  listTemplates(): Promise<StoredTemplate[]>;
  /** One template. Rejects with TemplateNotFound. */
  getTemplate(name: string): Promise<StoredTemplate>;
  /**
   * A project's apply, all or nothing: in ONE write transaction, reads the project objects,
   * hands them to `decide` (the engine's plan; synchronous, no I/O; it throws to refuse, and
   * then nothing is written), and makes every write it returns. Two applies never interleave:
   * the second plans against what the first committed, so nothing is created twice. A store
   * whose transactions overlap must serialize applies (PostgreSQL: a transaction-level advisory
   * lock taken before the read) or an apply racing another could plan against a stale read.
   * A write the store refuses (a queue with running jobs) rolls every write back.
   */
  applyProject<T>(decide: (objects: ProjectObjects) => ApplyDecision<T>): Promise<T>;

  // Stats and upkeep

  /** Counts per queue and state from the maintained counters, and the finished counts of the last minute and hour. */
  stats(): Promise<Stats>;
  /** Running jobs whose lease expired end as failed attempts ("lease expired"), `batchSize` per transaction; how many. */
  reapExpiredLeases(): Promise<number>;
  /**
   * Jobs left running by these workers go back to retrying, due now, their attempt given back;
   * how many. Each interrupted run is recorded as ending when its daemon last knew it running:
   * the latest of its claim, its job row's last update (heartbeat, progress), its last output
   * line and `aliveUntil` (the stopped daemon's last heartbeat, when known), never after now.
   */
  recoverInterrupted(workerIds: string[], aliveUntil?: number): Promise<number>;
  /** Ids of the jobs running under these workers. */
  runningJobIds(workerIds: string[]): Promise<string[]>;
  /** Retention: deletes up to `limit` finished jobs older than their queue's retention, and old stat buckets; how many jobs. */
  cleanup(limit: number): Promise<number>;
  /** The earliest future time something becomes due (a waiting job, a lease expiry, a schedule, a rate limit's token). */
  nextWakeAt(): Promise<number | null>;
  /**
   * Takes or keeps the lease on `role` for `daemonId` for `ttlMs` from now: true while this
   * daemon holds it. A lease another daemon holds is taken over only once it has expired; a
   * `ttlMs` of 0 gives it up. A store shared by daemons on several machines (PostgreSQL) has it,
   * so that maintenance (the lease reaper, retention) runs on one daemon at a time; a store
   * without it lets every daemon maintain (SQLite: one machine; its writes serialize anyway).
   */
  holdLeadership?(role: string, daemonId: string, ttlMs: number): Promise<boolean>;
  /** Recounts the jobs and compares with the maintained counters. */
  verifyCounters(): Promise<{ ok: boolean; mismatches: CounterMismatch[] }>;

  /**
   * Group commit, for stores whose calls work synchronously: runs `fn` in one transaction, and
   * every call of this store made while it runs inside it, each as a savepoint (a call that fails
   * undoes only itself). Changes are flushed after the one commit. `fn` must be synchronous.
   */
  batch?<T>(fn: () => T): T;

  /** Closes the store; nothing may be called after. */
  close(): Promise<void>;
}
