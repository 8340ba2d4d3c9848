/**
 * Statements of groups (see ./index.ts for the protocol): a job's group key, the per-group rows
 * (`queue_groups`: waiting count and running weight kept by triggers on the jobs, a token bucket,
 * and a fairness turn), and the steps of a grouped queue's claim. The policy (which groups, how
 * many of each, in what turn) is the engine's (daemon/engine/ops/groups.ts).
 */
import type { Job } from '../../../shared/protocol/types';
import type { KindFilter } from './claim';
import type { QueueRateState } from './queues';

/** One due job of a group, peeked before the claim decides whose turn it is. */
export type GroupCandidate = {
  group: string;
  id: string;
  weight: number;
  /** Characters of payload and checkpoint the job adds to the answer. */
  chars: number;
};

/** One group of a grouped queue's claim, as it is inside the claim's transaction. */
export type GroupTurn = {
  /** The group key; '' for the jobs without one. */
  group: string;
  /** Its fairness turn: the lowest goes next. */
  pass: number;
  /** What its running jobs weigh. */
  running: number;
  /** Its token bucket as stored (tokens null: full). */
  rate: QueueRateState;
  /** Its queued and retrying jobs, due or not: with 1, its head is all a peek could find. */
  waiting: number;
  /** Its first due job of the kinds in claim order: what the group gives if it gets one turn. */
  head: GroupCandidate;
};

/** A group's turn and bucket after a claim served it. */
export type GroupServed = {
  group: string;
  pass: number;
  /** The bucket after the claim; null when the queue has no rate per group. */
  tokens: number | null;
  refilledAt: number | null;
};

/** A group of a queue with its waiting and running jobs, for listings. */
export type GroupCounts = {
  /** null for the jobs without a group. */
  group: string | null;
  /** The key as stored ('' for the jobs without a group): what `after` continues from. */
  key: string;
  /** Queued and retrying jobs. */
  waiting: number;
  /** Running jobs. */
  running: number;
  /** What the running jobs weigh. */
  runningWeight: number;
};

/** Which of a queue's groups `groupList` reads. */
export type GroupListParams = { queue: string; limit: number; after?: string | null; minRunning?: number | null };

export interface GroupSql {
  /**
   * Marks a queue as grouped and gives its unfinished jobs without a group the key '' (a group
   * of their own); true when it was not grouped before.
   */
  queueMarkGrouped(p: { name: string; now: number }): boolean;
  /**
   * Up to `limit` groups of `queue` with a due job of the kinds, lowest turn first, each with its
   * first due job (PostgreSQL: each group row locked, skipping groups another claimer holds).
   */
  groupTurns(p: { queue: string; kinds: KindFilter; now: number; limit: number }): GroupTurn[];
  /** The next `room` due jobs of each group, in claim order within each group. */
  groupPeek(p: { queue: string; groups: readonly { group: string; room: number }[]; kinds: KindFilter; now: number }): GroupCandidate[];
  /** Claims these jobs (those still waiting and due) for `workerId`, leased from now. */
  claimJobIds(p: { queue: string; ids: readonly string[]; workerId: string; now: number }): Job[];
  /** Stores the turns and buckets of the groups a claim served. */
  groupServed(p: { queue: string; served: readonly GroupServed[] }): void;
  /**
   * A queue's groups with waiting or running jobs, by key, at most `limit`: those after the key
   * `after` (the stored key, '' for the jobs without a group) when it is given, and with
   * `minRunning` only those with waiting jobs whose running weight is at least it.
   */
  groupList(p: GroupListParams): GroupCounts[];
  /** Groups with waiting jobs and fewer than one token in queues with a rate per group, earliest refill first. */
  wakeGroupRateLimited(limit: number): { queue: string; tokens: number; refilledAt: number }[];
}
