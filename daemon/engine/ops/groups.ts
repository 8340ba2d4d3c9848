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
 * The claim: the store walks the groups with a due job in pass order, each with its first due job
 * (PostgreSQL locks their rows, skipping groups another claimer holds); each group's room is
 * computed here (groupConcurrency counted by weight against its running weight, its token
 * bucket); the turns are taken here until the claim is full, and only when a group's turn comes
 * round again does the store peek the next jobs of the groups that may have more (one statement);
 * then the store claims the chosen jobs by id and stores each served group's pass and bucket. In
 * a queue of many groups a claim is thus three statements: the walk, the claim, the turns.
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
  /** Most jobs the group may give: the claim's limit, its weight room and its bucket. */
  room: number;
  /** Its due jobs in claim order: its head from the walk, or what a peek found. */
  candidates: GroupCandidate[];
  /** Whether the candidates are all the group may give (peeked, or it has one job waiting). */
  complete: boolean;
}

/** A turn as one pass of the choice takes it. */
interface Taking {
  t: Turn;
  pass: number;
  weightRoom: number | null;
  next: number;
  taken: number;
}

/** The jobs a claim takes, in turn; `peek` when a group's turn came after its head and it may have more. */
type Choice = { ids: string[]; charsOf: Map<string, number>; takings: Taking[] } | 'peek';

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
    open.push({ turn, pass, stride: Math.max(1, Math.round(STRIDE / weight)), weightRoom, bucket, room: jobs, candidates: [turn.head], complete: turn.waiting <= 1 || jobs === 1 });
  }
  if (open.length === 0) return NONE;
  // Each group's head is its first turn. Most claims in a queue of many groups give each group
  // one turn at most; a group that gets a second is peeked for its next jobs (every such group
  // at once, one statement), and the choice is made again with them.
  let choice = choose(open, claim);
  if (choice === 'peek') {
    const more = open.filter((t) => !t.complete);
    const byGroup = new Map(more.map((t) => [t.turn.group, t]));
    for (const t of more) {
      t.candidates = [];
      t.complete = true;
    }
    for (const candidate of yield* sql('groupPeek', { queue: queue.name, groups: more.map((t) => ({ group: t.turn.group, room: t.room })), kinds: claim.kinds, now })) byGroup.get(candidate.group)?.candidates.push(candidate);
    choice = choose(open, claim);
  }
  if (choice === 'peek' || choice.ids.length === 0) return NONE;
  const jobs = yield* sql('claimJobIds', { queue: queue.name, ids: choice.ids, workerId: claim.workerId, now });
  // A job cancelled between the peek and the claim (PostgreSQL) was not claimed: its turn and
  // its token stay with its group.
  const claimed = new Map<string, number>();
  for (const job of jobs) claimed.set(job.group ?? '', (claimed.get(job.group ?? '') ?? 0) + 1);
  const served: GroupServed[] = [];
  for (const { t, pass, taken } of choice.takings) {
    const n = claimed.get(t.turn.group) ?? 0;
    if (n === 0) continue;
    served.push({
      group: t.turn.group,
      pass: taken === n ? pass : pass - (taken - n) * t.stride,
      tokens: t.bucket === null ? t.turn.rate.tokens : t.bucket.tokens - n,
      refilledAt: t.bucket === null ? t.turn.rate.refilledAt : now,
    });
  }
  yield* sql('groupServed', { queue: queue.name, served });
  let answer = 0;
  for (const job of jobs) answer += choice.charsOf.get(job.id) ?? 0;
  return { jobs, chars: answer };
}

/** Takes the turns, lowest pass first, until the claim is full or no group can give more. */
function choose(open: readonly Turn[], claim: GroupClaim): Choice {
  const ids: string[] = [];
  const charsOf = new Map<string, number>();
  const takings: Taking[] = open.map((t) => ({ t, pass: t.pass, weightRoom: t.weightRoom, next: 0, taken: 0 }));
  let room = claim.room;
  let chars = 0;
  let waiting = takings.filter((w) => w.t.candidates.length > 0);
  while (ids.length < claim.limit && waiting.length > 0) {
    // The lowest pass goes next (ties by group key, as the store's walk orders them).
    let at = 0;
    for (let i = 1; i < waiting.length; i++) {
      const w = waiting[i];
      const best = waiting[at];
      if (w !== undefined && best !== undefined && (w.pass < best.pass || (w.pass === best.pass && w.t.turn.group < best.t.turn.group))) at = i;
    }
    const w = waiting[at];
    if (w === undefined) break;
    const candidate = w.t.candidates[w.next];
    if (candidate === undefined) {
      if (!w.t.complete) return 'peek';
      waiting = waiting.filter((x) => x !== w);
      continue;
    }
    // A job too heavy for what its group may still start waits at the head of its group.
    if (w.weightRoom !== null && candidate.weight > w.weightRoom) {
      waiting = waiting.filter((x) => x !== w);
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
    if (w.weightRoom !== null) w.weightRoom -= candidate.weight;
    w.pass += w.t.stride;
    w.next += 1;
    w.taken += 1;
    if (w.next >= w.t.room) waiting = waiting.filter((x) => x !== w);
  }
  return { ids, charsOf, takings };
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
