/**
 * Statements over single jobs (see ./index.ts for the protocol). Every statement that changes a
 * running job for its worker carries `state = 'running' AND worker_id = workerId` in its WHERE,
 * so that a worker whose lease expired changes nothing, whatever it read before.
 */
import type { Job, JobState } from '../../../shared/protocol/types';

/** A heartbeat's extension of a lease. */
export type JobHeartbeat = {
  id: string;
  workerId: string;
  /** The new expiry (epoch ms); the stored one is kept if later. */
  lease: number;
  now: number;
};

/** What a heartbeat tells the worker: its lease, and what a user asked of the job meanwhile. */
export type JobHeartbeatResult = { leaseExpiresAt: number; cancelRequested: boolean; paused: boolean };

export type JobProgress = {
  id: string;
  workerId: string;
  percent: number;
  message: string | null;
  now: number;
};

export type JobCheckpoint = {
  id: string;
  workerId: string;
  checkpoint: string;
  now: number;
};

/** A user's change to a waiting job; null keeps the stored value. */
export type JobUpdate = {
  id: string;
  priority: number | null;
  runAt: number | null;
  /** JSON text. */
  payload: string | null;
  maxAttempts: number | null;
  /** JSON text of the tag list. */
  tags: string | null;
  weight: number | null;
  timeoutMs: number | null;
  now: number;
  /** A new group key ('' for the jobs without a group of a grouped queue); null or absent: leave it. */
  groupKey?: string | null;
};

/** A waiting job put on hold, or a held one released: `from` the state it was read in, `to` the one the engine chose. */
export type JobHoldMove = {
  id: string;
  from: 'blocked' | 'queued' | 'retrying' | 'held';
  to: 'blocked' | 'queued' | 'retrying' | 'held';
  now: number;
};

/** A job leaving `from`, the state the operation read it in (SQLite's counters move it from there). */
export type JobMove = {
  id: string;
  from: JobState;
  now: number;
};

/**
 * The stored form of a new job, as the engine computes it from the input and its queue's
 * defaults: JSON already serialized, every default already resolved. The store only inserts it.
 */
export type JobInsert = {
  id: string;
  queue: string;
  kind: string;
  payload: string;
  priority: number;
  weight: number;
  runAt: number;
  maxAttempts: number;
  backoffStrategy: string;
  backoffBaseMs: number;
  backoffCapMs: number;
  backoffJitter: number;
  timeoutMs: number;
  idempotencyKey: string | null;
  tags: string;
  context: string | null;
  /**
   * `queued`; `blocked` while `waitingFor` is above 0; `cancelled` (finished now, `lastError`
   * saying why) when a dependency already ended so that its condition cannot hold.
   */
  state: 'queued' | 'blocked' | 'cancelled';
  lastError: string | null;
  /** How many jobs it depends on, and how many of them have not ended. */
  dependsOn: number;
  waitingFor: number;
  step: string | null;
  workflowRunId: string | null;
  /** JSON of the JobUniqueness it was enqueued with; absent or null for none. */
  uniqueness?: string | null;
  /** The retry rule as JSON text (the job's own, else its queue's), or null. */
  retryRule: string | null;
  /** When the job expires unless it has started (epoch ms), or null. */
  expireAt: number | null;
  /** No retry after this time (epoch ms), or null. */
  deadlineAt: number | null;
  /** Its group key; '' for a job without one in a grouped queue (a group of its own), null elsewhere. */
  groupKey: string | null;
  now: number;
};

/** The fields of a JobInsert for a job with no dependencies and no workflow: queued at once. */
export const PLAIN_JOB_INSERT = {
  state: 'queued',
  lastError: null,
  dependsOn: 0,
  waitingFor: 0,
  step: null,
  workflowRunId: null,
  retryRule: null,
  expireAt: null,
  deadlineAt: null,
  groupKey: null,
} as const satisfies Partial<JobInsert>;

export type JobSql = {
  /** One job, or undefined. */
  jobGet(id: string): Job | undefined;
  /**
   * One job, its row locked for the rest of the transaction (PostgreSQL: FOR UPDATE), so that
   * what an operation computes from it still holds when it writes.
   */
  jobGetForUpdate(id: string): Job | undefined;
  /** Extends the lease of a job `workerId` holds; undefined when it does not hold it. */
  jobHeartbeat(p: JobHeartbeat): JobHeartbeatResult | undefined;
  /** Records progress on a job `workerId` holds; the job, or undefined when it does not hold it. */
  jobSetProgress(p: JobProgress): Job | undefined;
  /** Stores the checkpoint of a job `workerId` holds; false when it does not hold it. */
  jobSetCheckpoint(p: JobCheckpoint): boolean;
  /** A waiting (blocked, queued, retrying or held) job → cancelled; the job, or undefined if it was not waiting. */
  jobCancelWaiting(p: JobMove): Job | undefined;
  /** Asks the worker of a running job to stop; the job, or undefined if it is not running. */
  jobRequestCancel(p: { id: string; now: number }): Job | undefined;
  /**
   * Marks a running job that is not paused as paused at `now` (its processes are stopped by the
   * daemon running it); the job, or undefined if it is not running or is paused already.
   */
  jobPause(p: { id: string; now: number }): Job | undefined;
  /**
   * A paused running job runs on: not paused, its lease moved on by the time it was paused (a
   * frozen lease). The job, or undefined if it is not running or not paused.
   */
  jobResume(p: { id: string; now: number }): Job | undefined;
  /**
   * A finished (dead, cancelled, completed) job → queued with a fresh attempt budget, or
   * blocked when `waitingFor` (its dependencies that have not ended) is above 0; its
   * checkpoint stays, unless it completed. The job, or undefined if it had not finished.
   */
  jobRetry(p: JobMove & { waitingFor: number }): Job | undefined;
  /**
   * Changes a waiting (blocked, queued, retrying) or held job; the job, or undefined if it is
   * neither. A priority given replaces one that ageing raised (the next ageing pass counts from it).
   */
  jobUpdate(p: JobUpdate): Job | undefined;
  /** Moves a job between a waiting state and held (jobs.hold, jobs.unhold); the job, or undefined if it was not in `from`. */
  jobSetHeld(p: JobHoldMove): Job | undefined;
  /** Deletes a job that is not running (its runs and output go with it); false if none was deleted. */
  jobDelete(id: string): boolean;
  /**
   * Inserts a new job and returns it as stored; undefined when another transaction inserted
   * its idempotency key meanwhile (only PostgreSQL can see that: SQLite's write lock excludes it).
   */
  jobInsert(row: JobInsert): Job | undefined;
  /** Inserts new jobs together, each as jobInsert would (undefined for a key lost to another transaction), in order. */
  jobInsertMany(rows: readonly JobInsert[]): (Job | undefined)[];
  /** The job holding an idempotency key, or undefined. */
  jobGetByIdempotencyKey(key: string): Job | undefined;
  /** The jobs holding any of these (distinct) idempotency keys, in no order. */
  jobGetByIdempotencyKeys(keys: readonly string[]): Job[];
};
