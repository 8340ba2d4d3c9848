/**
 * Statements of a claim (see ./index.ts for the protocol): which queues may give jobs and what
 * they hold, the claimer's capacity, the next due jobs of several queues, and the claim of one
 * queue's jobs. The flow (rooms, shares, tokens) is the engine's (daemon/engine/ops/claim.ts);
 * each store's statements do their own SQL, which differs most here: SQLite holds the write lock
 * for the whole transaction, PostgreSQL locks the rows it draws on and skips the rows others hold.
 */
import type { Job } from '../../../shared/protocol/types';
import type { QueueRateState, StoredQueue } from './queues';

/** Which kinds a claimer may get: only these, or all but these (the built-in kinds a remote worker never gets). */
export type KindFilter = { include: string[] } | { exclude: string[] };

/**
 * What one claim's answer may carry: payload and checkpoint characters of the jobs it takes. A
 * claim stops at the job that crosses it, so one answer stays far below what a JavaScript string
 * (and so one JSON-RPC line) can hold, whatever `max` and the payload sizes are.
 */
export const CLAIM_ANSWER_BUDGET = 128 * 1024 * 1024;

/** A queue a claim may take from, as it is inside the claim's transaction. */
export type ClaimQueue = {
  settings: StoredQueue;
  /** What its running jobs weigh (what its concurrency counts); 0 when it has no concurrency limit. */
  runningWeight: number;
  /** Its token bucket as stored; null when it has no rate limit. */
  rate: QueueRateState | null;
};

/** What a claim starts from (ClaimSql.claimStart). */
export type ClaimStart = {
  /** Weight the worker may still take; null when it declared no capacity. */
  capacity: number | null;
  /** The queues it may take from; empty when its capacity is used up. */
  queues: ClaimQueue[];
};

/** One due job of a claim across several queues, peeked before the shares are decided. */
export type ClaimCandidate = {
  queue: string;
  weight: number;
  priority: number;
  runAt: number;
  id: string;
};

export type ClaimJobs = {
  queue: string;
  kinds: KindFilter;
  /** Most jobs to take. */
  limit: number;
  workerId: string;
  now: number;
  /** Characters of payload and checkpoint the answer may still carry. */
  budget: number;
  /** Most weight to take (the queue's concurrency or the claimer's capacity left); null when nothing bounds it. */
  room: number | null;
  /** The limit is a share decided from a peek of this transaction (claimPeek). */
  peeked: boolean;
  /** The fields the claimer named (ClaimJobFields); absent for the whole job. */
  fields?: ClaimJobFields;
};

/**
 * The fields of a claimed job the claimer will read (`jobs.claim`'s `fields`). The statement then
 * reads back only those and what the engine reads of a claimed job (../mappers.ts,
 * claimReadBack); the other fields of the jobs it answers are absent.
 */
export type ClaimJobFields = readonly (keyof Job)[];

/** A claim that may be simple (ClaimSql.claimSimple): the claim's request, its max and the answer's budget. */
export type ClaimSimple = {
  workerId: string;
  queues: readonly string[];
  kinds: KindFilter;
  now: number;
  /** Most jobs to take. */
  limit: number;
  /** Characters of payload and checkpoint the answer may carry. */
  budget: number;
  /** As ClaimJobs' fields. */
  fields?: ClaimJobFields;
};

/** The jobs a claim took, in claim order, and the characters of payload and checkpoint they carry. */
export type ClaimedJobs = {
  jobs: Job[];
  chars: number;
};

export interface ClaimSql {
  /**
   * The unpaused queues a claim of `queues` (every queue when empty) may take from, with the
   * running weight of those with a concurrency limit and the bucket of those with a rate limit.
   * None while every queue is paused (the `claimsPaused` setting, `spool pause --all`): read in
   * the same statement, so that a claim costs no extra round trip for it.
   */
  claimQueues(p: { queues: readonly string[]; kinds: KindFilter; now: number }): ClaimQueue[];
  /**
   * The start of a claim by `workerId`: how much more weight it may take (workerCapacityLeft) and,
   * unless that is none (0 or less), the queues it may take from (claimQueues; none otherwise).
   * PostgreSQL reads both in one round trip when the worker declared no capacity.
   */
  claimStart(p: { workerId: string; queues: readonly string[]; kinds: KindFilter; now: number }): ClaimStart;
  /** The next `room` due jobs of each queue, in no particular order across queues. */
  claimPeek(p: { queues: readonly { name: string; room: number }[]; kinds: KindFilter; now: number }): ClaimCandidate[];
  /** Claims the next due jobs of one queue for `workerId`, leased from now. */
  claimJobs(p: ClaimJobs): ClaimedJobs;
  /**
   * The whole claim in one statement when it is simple: the worker declared no capacity, and the
   * claim's queues hold no claimable queue, or one without concurrency, rate limit or groups.
   * Then it claims as claimStart followed by claimJobs (no room, not peeked) would, and answers
   * what that took (nothing when there is no queue); otherwise it changes nothing and answers
   * null, and the engine goes the long way. PostgreSQL saves a round trip per claim by it.
   */
  claimSimple(p: ClaimSimple): ClaimedJobs | null;
}

/** Highest priority first, then earliest run time, then oldest (ids are time-ordered): the claim order. */
export function compareClaimOrder(a: { priority: number; runAt: number; id: string }, b: { priority: number; runAt: number; id: string }): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.runAt !== b.runAt) return a.runAt - b.runAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
