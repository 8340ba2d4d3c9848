/**
 * Claims: up to `max` due jobs, in claim order, with FOR UPDATE SKIP LOCKED so that daemons
 * claiming at once never take the same job. Per-queue concurrency (counting job weights), rate
 * limits and the worker's capacity hold across daemons: a limited queue's row is locked inside
 * the claim's transaction while its running weight and token bucket are read and drawn on;
 * unlimited queues take no queue-row lock at all.
 */
import type { Job } from '../../../../shared/types';
import type { ClaimRequest } from '../../backend';
import { mapJob, mapSettings, type QueueSettings } from '../../mappers';
import { int, intOrNull, text, textOrNull, type Row } from '../../rows';
import type { PgTx } from '../db';
import { JOBS_DOT_COLUMNS } from './common';

/**
 * What one claim's answer may carry: payload and checkpoint characters of the jobs it takes (the
 * SQLite store's CLAIM_ANSWER_BUDGET, for the same reason: one answer stays far below what one
 * JSON-RPC line can hold). A claim stops at the job that crosses it.
 */
const CLAIM_ANSWER_BUDGET = 128 * 1024 * 1024;

type Bucket = { tokens: number; refilledAt: number };

interface Eligible {
  queue: QueueSettings;
  /** Most jobs this queue may give now (the claim's max, its rate limit, its weight room). */
  room: number;
  /** Most weight it may give now (its concurrency and the claimer's capacity); null when nothing bounds it. */
  weightRoom: number | null;
  bucket: Bucket | null;
}

function smaller(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/** Highest priority first, then earliest run time, then oldest (ids are time-ordered): the claim order. */
function compareClaimOrder(a: { priority: number; runAt: number; id: string }, b: { priority: number; runAt: number; id: string }): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.runAt !== b.runAt) return a.runAt - b.runAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Due jobs of queue `queue` (default $1) at $2, of the kinds $3 (an include or exclude list): a walk of jobs_claim. */
function dueSql(include: boolean, queue = '$1'): string {
  return `queue = ${queue} AND state IN ('queued', 'retrying') AND run_at <= $2 AND ${include ? '' : 'NOT '}(kind = ANY($3::text[]))`;
}
const CLAIM_ORDER = 'ORDER BY priority DESC, run_at, id';

/**
 * The claim of one queue, one statement. The CTE picks the next $4 due jobs in claim order and
 * locks them with SKIP LOCKED: a claimer never waits for another, and a row another claimer has
 * locked (or, once it committed, claimed: READ COMMITTED re-checks the state of a row it locks)
 * is stepped over, so no job is claimed twice. The CTE is also the fence that keeps the planner
 * from updating more rows than the LIMIT (Oban's note on its engine). The second step keeps the
 * longest prefix whose weights fit in $6 (the queue's concurrency or the claimer's capacity
 * left; NULL when nothing bounds it) and whose answer stays under the budget $7: a job too heavy
 * for the room stops the claim there, so it is never overtaken by lighter ones behind it.
 */
function claimSql(include: boolean): string {
  return `
    WITH next AS (
      SELECT id, weight, priority, run_at, length(payload) + coalesce(length(checkpoint), 0) AS chars
      FROM jobs WHERE ${dueSql(include)} ${CLAIM_ORDER} LIMIT $4
      FOR UPDATE SKIP LOCKED
    ), fitting AS (
      SELECT id FROM (
        SELECT id, sum(weight) OVER w AS used, sum(chars) OVER w - chars AS before
        FROM next WINDOW w AS (${CLAIM_ORDER} ROWS UNBOUNDED PRECEDING)
      ) walked
      WHERE ($6::bigint IS NULL OR used <= $6) AND before < $7
    )
    UPDATE jobs SET claimed_from = jobs.state, state = 'running', attempts = jobs.attempts + 1, runs = jobs.runs + 1,
      worker_id = $5, lease_expires_at = $2 + jobs.timeout_ms, started_at = $2, finished_at = NULL,
      progress = NULL, progress_message = NULL, cancel_requested = 0, updated_at = $2
    FROM fitting WHERE jobs.id = fitting.id
    RETURNING ${JOBS_DOT_COLUMNS}`;
}

function kindList(kinds: ClaimRequest['kinds']): { include: boolean; list: string[] } {
  return 'include' in kinds ? { include: true, list: kinds.include } : { include: false, list: kinds.exclude };
}

/**
 * How much more weight the worker may take: its registered capacity less the weight of the jobs
 * it holds; null when it declared none (or never registered). The worker's row is locked first
 * and the weight read after, in a statement of its own (a fresh snapshot under READ COMMITTED):
 * two claims of one worker on two daemons then count each other's jobs.
 */
async function capacityLeft(tx: PgTx, workerId: string): Promise<number | null> {
  const worker = await tx.row('SELECT capacity FROM workers WHERE id = $1 AND capacity IS NOT NULL FOR UPDATE', [workerId]);
  if (!worker) return null;
  const held = await tx.row(`SELECT coalesce(sum(weight), 0) AS held FROM jobs WHERE state = 'running' AND worker_id = $1`, [workerId]);
  return int(worker, 'capacity') - (held ? int(held, 'held') : 0);
}

function isLimited(q: QueueSettings): boolean {
  return q.concurrency !== null || q.rateLimit !== null;
}

function rateState(row: Row): { tokens: number | null; refilledAt: number | null } {
  const tokens = row.get('rate_tokens');
  return { tokens: typeof tokens === 'number' ? tokens : null, refilledAt: intOrNull(row, 'rate_refilled_at') };
}

/**
 * The queues the claim may take from, and how much each may give. A queue with a concurrency or
 * rate limit is locked (its row, FOR NO KEY UPDATE, in name order so that claimers never deadlock)
 * before its running weight and tokens are read: every daemon's claims of that queue take turns
 * there, so the limit holds across daemons. Only limited queues with due jobs are locked;
 * unlimited queues take no queue lock at all (no hot row).
 */
async function eligibleQueues(tx: PgTx, request: ClaimRequest, now: number, capacity: number | null): Promise<Eligible[]> {
  const rows =
    request.queues.length === 0
      ? await tx.rows('SELECT * FROM queues WHERE paused = 0 ORDER BY name')
      : await tx.rows('SELECT * FROM queues WHERE name = ANY($1::text[]) AND paused = 0 ORDER BY name', [request.queues]);
  const settings = new Map<string, QueueSettings>();
  const rates = new Map<string, { tokens: number | null; refilledAt: number | null }>();
  for (const row of rows) {
    const q = mapSettings(row);
    settings.set(q.name, q);
    rates.set(q.name, rateState(row));
  }
  let limited = [...settings.values()].filter(isLimited).map((q) => q.name);
  if (limited.length > 0) {
    const { include, list } = kindList(request.kinds);
    const busy = await tx.rows(
      `SELECT q AS name FROM unnest($1::text[]) AS q WHERE EXISTS (SELECT 1 FROM jobs WHERE ${dueSql(include, 'q')})`,
      [limited, now, list],
    );
    const withWork = new Set(busy.map((r) => text(r, 'name')));
    for (const name of limited) if (!withWork.has(name)) settings.delete(name);
    limited = limited.filter((name) => withWork.has(name));
  }
  const running = new Map<string, number>();
  if (limited.length > 0) {
    // The rows as they are once locked (READ COMMITTED returns the latest version of a locked
    // row). FOR NO KEY UPDATE rather than FOR UPDATE: claimers still take turns, but an enqueue
    // into the queue, whose foreign key check takes FOR KEY SHARE on this row, does not wait for
    // them.
    for (const row of await tx.rows('SELECT * FROM queues WHERE name = ANY($1::text[]) ORDER BY name FOR NO KEY UPDATE', [limited])) {
      const q = mapSettings(row);
      if (q.paused) settings.delete(q.name);
      else settings.set(q.name, q);
      rates.set(q.name, rateState(row));
    }
    // A statement of its own, after the locks: its snapshot sees every claim committed before.
    // jobs_running_queue: the running set of a limited queue is bounded by its limit.
    const weights = await tx.rows(
      `SELECT queue, sum(weight) AS weight FROM jobs WHERE state = 'running' AND queue = ANY($1::text[]) GROUP BY queue`,
      [limited],
    );
    for (const row of weights) running.set(text(row, 'queue'), int(row, 'weight'));
  }
  const eligible: Eligible[] = [];
  for (const queue of settings.values()) {
    let room = request.max;
    // The concurrency limit counts weights: a running job of weight 4 holds four of its slots.
    const weightRoom = smaller(queue.concurrency === null ? null : queue.concurrency - (running.get(queue.name) ?? 0), capacity);
    // Every job weighs at least 1, so the weight room bounds the number of jobs too.
    if (weightRoom !== null) room = Math.min(room, weightRoom);
    let bucket: Bucket | null = null;
    if (queue.rateLimit !== null) {
      const stored = rates.get(queue.name) ?? { tokens: null, refilledAt: null };
      bucket = tx.policy.refill(queue.rateLimit, stored, now);
      // The clock stepped back past the last refill: store the bucket as of now even if this
      // claim takes nothing, or every later claim would find it as empty until the clock caught
      // up again (see the SQLite store's claim).
      if (stored.refilledAt !== null && stored.refilledAt > now) await setRate(tx, queue.name, bucket.tokens, now);
      room = Math.min(room, tx.policy.available(bucket));
    }
    if (room > 0) eligible.push({ queue, room, weightRoom, bucket });
  }
  return eligible;
}

async function setRate(tx: PgTx, name: string, tokens: number, refilledAt: number): Promise<void> {
  await tx.run('UPDATE queues SET rate_tokens = $2, rate_refilled_at = $3 WHERE name = $1', [name, tokens, refilledAt]);
}

/**
 * Each queue's share of a claim across several queues: their next due jobs peeked (one
 * statement, a bounded walk of jobs_claim per queue), merged in claim order, each taken while its
 * queue's weight room and the claimer's capacity hold it. A queue whose next job does not fit
 * gives nothing more (a heavy job is not overtaken in its own queue); a job that does not fit
 * the claimer's capacity ends the claim. Each queue's claim then takes its share with its own
 * bounds applied again, since another daemon may have claimed some of the peeked jobs meanwhile.
 */
async function sharesOf(tx: PgTx, eligible: Eligible[], request: ClaimRequest, now: number, capacity: number | null): Promise<Map<string, number>> {
  const { include, list } = kindList(request.kinds);
  const rows = await tx.rows(
    `SELECT e.q AS queue, j.weight, j.priority, j.run_at, j.id
     FROM unnest($1::text[], $4::int[]) AS e(q, room) CROSS JOIN LATERAL (
       SELECT weight, priority, run_at, id FROM jobs WHERE ${dueSql(include, 'e.q')} ${CLAIM_ORDER} LIMIT e.room) j`,
    [eligible.map((e) => e.queue.name), now, list, eligible.map((e) => e.room)],
  );
  const candidates = rows.map((r) => ({ queue: text(r, 'queue'), weight: int(r, 'weight'), priority: int(r, 'priority'), runAt: int(r, 'run_at'), id: text(r, 'id') }));
  candidates.sort(compareClaimOrder);
  const roomLeft = new Map(eligible.map((e) => [e.queue.name, e.weightRoom]));
  const closed = new Set<string>();
  let left = capacity;
  let taken = 0;
  const shares = new Map<string, number>();
  for (const c of candidates) {
    if (taken === request.max) break;
    if (closed.has(c.queue)) continue;
    const room = roomLeft.get(c.queue) ?? null;
    if (room !== null && c.weight > room) {
      closed.add(c.queue);
      continue;
    }
    if (left !== null && c.weight > left) break;
    if (room !== null) roomLeft.set(c.queue, room - c.weight);
    if (left !== null) left -= c.weight;
    shares.set(c.queue, (shares.get(c.queue) ?? 0) + 1);
    taken += 1;
  }
  return shares;
}

/**
 * Claims up to `max` due jobs of the eligible queues in claim order, leased to the worker. All
 * of it is one transaction: the locks of limited queues (and of the worker's row, when it
 * registered a capacity) are held until the claimed jobs are committed as running.
 */
export async function claim(tx: PgTx, request: ClaimRequest): Promise<Job[]> {
  const now = tx.now();
  let capacity = await capacityLeft(tx, request.workerId);
  if (capacity !== null && capacity <= 0) return [];
  const eligible = await eligibleQueues(tx, request, now, capacity);
  if (eligible.length === 0) return [];
  const only = eligible.length === 1 ? eligible[0] : undefined;
  const shares = only ? new Map([[only.queue.name, only.room]]) : await sharesOf(tx, eligible, request, now, capacity);
  const { include, list } = kindList(request.kinds);
  const sql = claimSql(include);
  const claimed: Job[] = [];
  // One answer carries the jobs of every queue: they share the budget.
  let budget = CLAIM_ANSWER_BUDGET;
  for (const e of eligible) {
    const share = shares.get(e.queue.name) ?? 0;
    if (share === 0 || budget <= 0) continue;
    const room = smaller(e.weightRoom, capacity);
    if (room !== null && room <= 0) continue;
    const rows = await tx.rows(sql, [e.queue.name, now, list, share, request.workerId, room, budget]);
    for (const row of rows) {
      budget -= text(row, 'payload').length + (textOrNull(row, 'checkpoint')?.length ?? 0);
      const job = mapJob(row);
      if (capacity !== null) capacity -= job.weight;
      claimed.push(job);
    }
    if (e.bucket !== null && rows.length > 0) await setRate(tx, e.queue.name, e.bucket.tokens - rows.length, now);
  }
  claimed.sort(compareClaimOrder);
  for (const job of claimed) tx.job(job);
  return claimed;
}

// ------------------------------------------------------------------------------------------
// The lease holder's calls
