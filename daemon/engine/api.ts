/**
 * What the engine (./engine.ts) is given and gives besides its methods: its options, the
 * listener of what changed, and the values some of its methods take and return. Callers use
 * the Engine class itself as the engine's type.
 *
 * Every Engine method that takes input validates it first (types, unknown fields, ranges,
 * sizes), rejecting with `SpoolError` `InvalidParams` and `data.field` naming the field, before
 * anything reaches the store. Events are delivered to listeners after the transaction that
 * caused them has committed.
 */
import type { ClaimParams, EnqueueResult, JobChange } from '../../shared/protocol';
import type { Job, JobState, OutputLine } from '../../shared/protocol/types';
import type { ChangedJob } from '../storage/statements';
export type { ChangedJob };
import type { StoreFactory } from '../storage/store';

export interface EngineOptions {
  /** Opens the store the engine works on (sqliteStore({ dbPath }) for a SQLite file, postgresStore({ url }) for a database). */
  store: StoreFactory;
  /** Injected clock (epoch ms) for tests; default Date.now. */
  now?: () => number;
  /** Injected randomness (0..1) for jitter in tests; default Math.random. */
  random?: () => number;
  /**
   * The per-queue history (docs/history.md): how long it is kept, or false to keep none. Default:
   * kept, 7 days of minutes and 90 days of hours.
   */
  history?: import('./history').HistoryOptions | false;
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
  jobChanged?(change: JobChange, job: ChangedJob, origin: ChangeOrigin): void;
  queueChanged?(name: string, deleted: boolean): void;
  /** A token was revoked, by this daemon or by another on the same store: close its sessions. */
  tokenRevoked?(name: string): void;
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
  /** Whether this listener follows the output of job `jobId` (of `queue`) made on other daemons. */
  wantsRemoteOutput?(jobId: string, queue: string): boolean;
}

/** The claim as the daemon asks for it: waiting (long-poll) is the daemon's business, not the engine's. */
export interface EngineClaimParams extends Omit<ClaimParams, 'waitMs'> {
  /**
   * Claim only these kinds even if they are built-in ones. The daemon's own executors claim
   * ['shell', 'http'] this way; remote workers leave it out.
   */
  builtinKinds?: string[];
}

export type { StoreDescription } from '../storage/store';
export type { DaemonInstance, DaemonRegistration } from '../storage/statements/daemons';

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

/** One enqueue of an enqueueEach: its result, or the error its own call would have had. */
export type EnqueueOutcome = { ok: true; result: EnqueueResult } | { ok: false; error: unknown };
