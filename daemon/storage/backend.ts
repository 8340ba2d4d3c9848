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

import type { Backoff, Job, JobState, JobTemplate, OutputLine, Queue, RateLimit, Schedule } from '../../shared/protocol/types';
import type { OverlapPolicy } from '../../shared/jobsfile';
import type { ConfigureInput } from '../engine/validate/queues';
import type { ScheduleInput } from '../engine/validate/schedules';
import type { JobRules } from '../engine/rules';
import type { ChangeSink, Op } from './statements';
export type { ManagedType, Ownership, StoredTemplate } from './statements/projects';
export type { StoredToken } from './statements/tokens';
export type { DaemonInstance, DaemonRegistration } from './statements/daemons';

import type { Ownership, StoredTemplate } from './statements/projects';


export type { FailureOutcome, JobRules } from '../engine/rules';

/** Which kinds a claimer may get: only these, or all but these (the built-in kinds a remote worker never gets). */
export type KindFilter = { include: string[] } | { exclude: string[] };

/** A claim as the store runs it: the engine has already turned the claimer's kinds into a filter. */
export interface ClaimRequest {
  workerId: string;
  /** Queues to claim from; empty for every queue. */
  queues: string[];
  /** Most jobs to claim, across all queues. */
  max: number;
  kinds: KindFilter;
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

/** One complete of a completeMany: the completed job, or the error its own call would have had. */
export type CompleteOutcome = { ok: true; job: Job } | { ok: false; error: unknown };

/** A per-queue counter that disagrees with the jobs it counts. */
export interface CounterMismatch {
  queue: string;
  state: JobState;
  counted: number;
  actual: number;
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
}

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

  // The worker side: every method here but claim acts only for the worker holding the lease and
  // rejects with LeaseLost (or JobNotFound) for anyone else, changing nothing.

  // Workers

  // Daemons: the instances running on the store, so that a daemon can tell its dead predecessors.

  // Access tokens (clients over TCP): stored hashed.

  // Schedules

  // Jobs as code: templates, ownership and apply

  // Stats and upkeep

  /** The earliest future time something becomes due (a waiting job, a lease expiry, a schedule, a rate limit's token). */
  nextWakeAt(): Promise<number | null>;
  /**
   * Group commit, for stores whose calls work synchronously: runs `fn` in one transaction, and
   * every call of this store made while it runs inside it, each as a savepoint (a call that fails
   * undoes only itself). Changes are flushed after the one commit. `fn` must be synchronous.
   */
  batch?<T>(fn: () => T): T;

  /** Closes the store; nothing may be called after. */
  close(): Promise<void>;
}
