/**
 * Groups, written once for every store: a queue becomes grouped with its first job that has a
 * group key (or its first group setting), and a grouped queue's claim takes its groups in turn.
 *
 * The turn is stride scheduling: each group has a `pass`; a claim serves the group with the
 * lowest pass and adds the group's stride (STRIDE / its weight in groupWeights, 1 unless named)
 * to it, so that a group of weight 3 is served three times for each time a group of weight 1
 * is, and with no weights the groups take plain turns. A group that starts waiting (new, or again
 * after it had nothing waiting) starts level with the lowest pass of the groups waiting then
 * (the store's triggers do this, migration 18), so it is owed no turns it was not there for, and
 * waits at most one turn of each other group. Priority orders jobs within a group only.
 *
 * The claim: the store walks the groups with a due job in pass order (PostgreSQL locks their rows,
 * skipping groups another claimer holds), each group's room is computed here (groupConcurrency
 * counted by weight against its running weight, its token bucket), the store peeks each group's
 * next jobs, the turns are taken here until the claim is full, and the store claims the chosen
 * jobs by id and stores each served group's pass and bucket.
 */
import type { EnqueueInput } from '../validate/jobs';
import { sql, type Op } from '../../storage/statements';
import type { ClaimedJobs, KindFilter } from '../../storage/statements/claim';
import type { StoredQueue } from '../../storage/statements/queues';
import type { GroupCandidate, GroupServed, GroupTurn } from '../../storage/statements/groups';
import { available, refill, type Bucket } from '../rateLimit';
import type { OpContext } from './context';
import type { GroupsInput } from '../validate/queues';
import type { QueueGroupsResult } from '../../../shared/protocol';
import { queueNotFound } from '../errors';

/** The pass a group of weight 1 adds per job served; a group of weight w adds STRIDE / w. */
export const STRIDE = 720_720;

/** The queue as it is once `input` is in it: grouped when the job has a group (marking it so the first time). */
export function* groupedFor(c: OpContext, input: Pick<EnqueueInput, 'group'>, queue: StoredQueue): Op<StoredQueue> {
  if (input.group === null || queue.grouped) return queue;
  yield* sql('queueMarkGrouped', { name: queue.name, now: c.now() });
  c.changes.queue(queue.name);
  return { ...queue, grouped: true };
}

/** A grouped queue's claim: what the queue-level checks left it (jobs, weight, the claimer's capacity). */
export interface GroupClaim {
  queue: StoredQueue;
  workerId: string;
  kinds: KindFilter;
  now: number;
  /** Most jobs to take. */
  limit: number;
  /** Most weight to take (the queue's concurrency or the claimer's capacity left); null when nothing bounds it. */
  room: number | null;
  /** Characters of payload and checkpoint the answer may still carry. */
  budget: number;
}

interface Turn {
  turn: GroupTurn;
  pass: number;
  stride: number;
  /** Weight the group may still start; null when unbounded. */
  weightRoom: number | null;
  bucket: Bucket | null;
  candidates: GroupCandidate[];
  next: number;
  taken: number;
}

/** Claims up to `limit` due jobs of a grouped queue, groups in turn. */
export function* claimGroups(claim: GroupClaim): Op<ClaimedJobs> {
  const { queue, now } = claim;
  const turns = yield* sql('groupTurns', { queue: queue.name, kinds: claim.kinds, now, limit: claim.limit });
  if (turns.length === 0) return NONE;
  // A group whose jobs were all delayed kept its old pass; it goes no further ahead than the
  // next group in line (one turn), not as many turns as it fell behind.
  const level = turns.length > 1 ? (turns[1]?.pass ?? 0) : null;
  const open: Turn[] = [];
  for (const [i, turn] of turns.entries()) {
    let jobs = claim.limit;
    const weightRoom = queue.groupConcurrency === null ? null : queue.groupConcurrency - turn.running;
    if (weightRoom !== null) jobs = Math.min(jobs, weightRoom);
    let bucket: Bucket | null = null;
    if (queue.groupRate !== null) {
      bucket = refill(queue.groupRate, turn.rate, now);
      jobs = Math.min(jobs, available(bucket));
    }
    if (jobs <= 0) continue;
    const weight = queue.groupWeights?.[turn.group] ?? 1;
    const pass = i === 0 && level !== null ? Math.max(turn.pass, level) : turn.pass;
    open.push({ turn, pass, stride: Math.max(1, Math.round(STRIDE / weight)), weightRoom, bucket, candidates: [], next: 0, taken: 0 });
  }
  if (open.length === 0) return NONE;
  const byGroup = new Map(open.map((t) => [t.turn.group, t]));
  const rooms = open.map((t) => ({ group: t.turn.group, room: Math.min(claim.limit, t.weightRoom ?? claim.limit, t.bucket === null ? claim.limit : available(t.bucket)) }));
  for (const candidate of yield* sql('groupPeek', { queue: queue.name, groups: rooms, kinds: claim.kinds, now })) byGroup.get(candidate.group)?.candidates.push(candidate);

  const ids: string[] = [];
  const charsOf = new Map<string, number>();
  let room = claim.room;
  let chars = 0;
  let waiting = open.filter((t) => t.candidates.length > 0);
  while (ids.length < claim.limit && waiting.length > 0) {
    // The lowest pass goes next (ties by group key, as the store's walk orders them).
    let at = 0;
    for (let i = 1; i < waiting.length; i++) {
      const t = waiting[i];
      const best = waiting[at];
      if (t !== undefined && best !== undefined && (t.pass < best.pass || (t.pass === best.pass && t.turn.group < best.turn.group))) at = i;
    }
    const t = waiting[at];
    const candidate = t?.candidates[t.next];
    if (t === undefined || candidate === undefined) break;
    // A job too heavy for what its group may still start waits at the head of its group.
    if (t.weightRoom !== null && candidate.weight > t.weightRoom) {
      waiting = waiting.filter((w) => w !== t);
      continue;
    }
    // One too heavy for the queue's room or the claimer's capacity ends the claim (as in an
    // ungrouped queue: it is not overtaken), and so does the answer's budget.
    if (room !== null && candidate.weight > room) break;
    if (ids.length > 0 && chars >= claim.budget) break;
    ids.push(candidate.id);
    charsOf.set(candidate.id, candidate.chars);
    chars += candidate.chars;
    if (room !== null) room -= candidate.weight;
    if (t.weightRoom !== null) t.weightRoom -= candidate.weight;
    t.pass += t.stride;
    t.next += 1;
    t.taken += 1;
    if (t.next >= t.candidates.length) waiting = waiting.filter((w) => w !== t);
  }
  if (ids.length === 0) return NONE;
  const jobs = yield* sql('claimJobIds', { queue: queue.name, ids, workerId: claim.workerId, now });
  // A job cancelled between the peek and the claim (PostgreSQL) was not claimed: its turn and
  // its token stay with its group.
  const claimed = new Map<string, number>();
  for (const job of jobs) claimed.set(job.group ?? '', (claimed.get(job.group ?? '') ?? 0) + 1);
  const served: GroupServed[] = [];
  for (const t of open) {
    const n = claimed.get(t.turn.group) ?? 0;
    if (n === 0) continue;
    const pass = t.taken === n ? t.pass : t.pass - (t.taken - n) * t.stride;
    served.push({ group: t.turn.group, pass, tokens: t.bucket === null ? t.turn.rate.tokens : t.bucket.tokens - n, refilledAt: t.bucket === null ? t.turn.rate.refilledAt : now });
  }
  yield* sql('groupServed', { queue: queue.name, served });
  let answer = 0;
  for (const job of jobs) answer += charsOf.get(job.id) ?? 0;
  return { jobs, chars: answer };
}

const NONE: ClaimedJobs = { jobs: [], chars: 0 };


/**
 * A page of a queue's groups with waiting or running jobs, by key; with `atLimit`, only the
 * groups whose jobs wait because their running weight has reached the queue's groupConcurrency.
 */
export function* listGroups(input: GroupsInput): Op<QueueGroupsResult> {
  const queue = yield* sql('queueGet', input.name);
  if (!queue) throw queueNotFound(input.name);
  if (input.atLimit && queue.groupConcurrency === null) return { groups: [], nextAfter: null };
  const rows = yield* sql('groupList', { queue: input.name, limit: input.limit + 1, after: input.after, minRunning: input.atLimit ? queue.groupConcurrency : null });
  const page = rows.slice(0, input.limit);
  return {
    groups: page.map(({ group, waiting, running, runningWeight }) => ({ group, waiting, running, runningWeight })),
    nextAfter: rows.length > input.limit ? (page.at(-1)?.key ?? null) : null,
  };
}
