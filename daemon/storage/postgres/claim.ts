/**
 * The statements of a claim (../statements/claim.ts), in PostgreSQL: FOR UPDATE SKIP LOCKED so
 * that daemons claiming at once never take the same job. Per-queue concurrency (counting job
 * weights) and rate limits hold across daemons: a limited queue's row is locked inside the
 * claim's transaction while its running weight and token bucket are read and drawn on;
 * unlimited queues take no queue-row lock at all (no hot row).
 */
import type { Job } from '../../../shared/protocol/types';
import type { AsyncPart } from '../statements';
import type { ClaimQueue, ClaimSql, KindFilter } from '../statements/claim';
import { claimReadBack, mapClaimedJob, mapJob, mapSettings, type ClaimReadBack } from '../mappers';
import type { StoredQueue } from '../statements/queues';
import { int, intOrNull, text, textOrNull, type Row } from '../rows';
import type { PgTx } from './db';
import { JOBS_DOT_COLUMNS } from './jobs';

/** Due jobs of queue `queue` (default $1) at $2, of the kinds $3 (an include or exclude list): a walk of jobs_claim. */
function dueSql(include: boolean, queue = '$1'): string {
  // A job past its expiry is never claimed, even before the upkeep has ended it (see SQLite's DUE).
  return `queue = ${queue} AND state IN ('queued', 'retrying') AND run_at <= $2 AND (expire_at IS NULL OR expire_at > $2) AND ${include ? '' : 'NOT '}(kind = ANY($3::text[]))`;
}
const CLAIM_ORDER = 'ORDER BY priority DESC, run_at, id';

/**
 * The claim of the jobs in `fitting` by worker $5 at $2, leased for each job's timeout; the
 * claimed rows answered, whole or (`returning`) only the columns of a ClaimReadBack.
 */
const claimUpdate = (returning: string): string => `UPDATE jobs SET claimed_from = jobs.state, state = 'running', attempts = jobs.attempts + 1, runs = jobs.runs + 1,
      worker_id = $5, lease_expires_at = $2 + jobs.timeout_ms, started_at = $2, finished_at = NULL,
      progress = NULL, progress_message = NULL, cancel_requested = 0, expire_at = NULL, paused_at = NULL, updated_at = $2
    FROM fitting WHERE jobs.id = fitting.id
    RETURNING ${returning}`;

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
function claimSql(include: boolean, returning: string): string {
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
    ${claimUpdate(returning)}`;
}

function kindList(kinds: KindFilter): { include: boolean; list: string[] } {
  return 'include' in kinds ? { include: true, list: kinds.include } : { include: false, list: kinds.exclude };
}

function isLimited(q: StoredQueue): boolean {
  return q.concurrency !== null || q.rateLimit !== null;
}

function rateState(row: Row): { tokens: number | null; refilledAt: number | null } {
  const tokens = row.get('rate_tokens');
  return { tokens: typeof tokens === 'number' ? tokens : null, refilledAt: intOrNull(row, 'rate_refilled_at') };
}

/** No queue is claimable while every queue is paused (ops/pauseAll.ts): read with the queues, no round trip of its own. */
const NOT_ALL_PAUSED = `NOT EXISTS (SELECT 1 FROM settings WHERE name = 'claimsPaused' AND value = 'true')`;

/**
 * claimStart and claimJobs in one statement, when the claim is simple (ClaimSql.claimSimple):
 * `s` reads, as claimStart would, whether the worker ($5) declared a capacity and the claim's
 * unpaused queues ($1, every queue when empty); it is simple when the worker declared none and
 * there is at most one queue, unlimited and ungrouped. Only then does `next` see a queue name,
 * and the rest is claimSql's claim of that queue without a room. The answer's first column says
 * whether it was simple; its one row has no job when nothing was claimed.
 */
function claimSimpleSql(include: boolean, returning: string): string {
  return `
    WITH q AS (
      SELECT name, concurrency IS NULL AND rate_per_second IS NULL AND grouped = 0 AS plain FROM queues
      WHERE paused = 0 AND ${NOT_ALL_PAUSED} AND (cardinality($1::text[]) = 0 OR name = ANY($1::text[]))
    ), s AS (
      SELECT NOT EXISTS (SELECT 1 FROM workers WHERE id = $5 AND capacity IS NOT NULL) AND count(*) <= 1 AND coalesce(bool_and(plain), true) AS simple,
        min(name) AS name
      FROM q
    ), next AS (
      SELECT id, weight, priority, run_at, length(payload) + coalesce(length(checkpoint), 0) AS chars
      FROM jobs WHERE ${dueSql(include, '(SELECT name FROM s WHERE simple)')} ${CLAIM_ORDER} LIMIT $4
      FOR UPDATE SKIP LOCKED
    ), fitting AS (
      SELECT id FROM (SELECT id, sum(chars) OVER w - chars AS before FROM next WINDOW w AS (${CLAIM_ORDER} ROWS UNBOUNDED PRECEDING)) walked
      WHERE before < $6
    ), done AS (
      ${claimUpdate(returning)}
    )
    SELECT s.simple AS spool_simple_claim, done.* FROM s LEFT JOIN done ON true`;
}

/** The claim statements' text by shape and RETURNING list; more read-backs than this (clients varying `fields`) start afresh. */
const claimTexts = new Map<string, string>();
const CLAIM_TEXTS_KEPT = 256;

function claimText(simple: boolean, include: boolean, readBack: ClaimReadBack | null): string {
  const returning = readBack === null ? JOBS_DOT_COLUMNS : readBack.columns.map((c) => `jobs.${c}`).join(', ');
  const key = `${simple ? 's' : 'j'}${include ? 'i' : 'e'} ${returning}`;
  const known = claimTexts.get(key);
  if (known !== undefined) return known;
  if (claimTexts.size >= CLAIM_TEXTS_KEPT) claimTexts.clear();
  const text = simple ? claimSimpleSql(include, returning) : claimSql(include, returning);
  claimTexts.set(key, text);
  return text;
}

/**
 * The claimable queues of `rows` (unpaused queue rows): a limited queue only with due jobs, its
 * row locked and read again, with its running weight (claimQueues' documentation).
 */
async function claimable(tx: PgTx, p: { kinds: KindFilter; now: number }, rows: Row[]): Promise<ClaimQueue[]> {
  const settings = new Map<string, StoredQueue>();
  const rates = new Map<string, { tokens: number | null; refilledAt: number | null }>();
  for (const row of rows) {
    const q = mapSettings(row);
    settings.set(q.name, q);
    rates.set(q.name, rateState(row));
  }
  let limited = [...settings.values()].filter(isLimited).map((q) => q.name);
  if (limited.length > 0) {
    const { include, list } = kindList(p.kinds);
    const busy = await tx.rows(`SELECT q AS name FROM unnest($1::text[]) AS q WHERE EXISTS (SELECT 1 FROM jobs WHERE ${dueSql(include, 'q')})`, [limited, p.now, list]);
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
    const weights = await tx.rows(`SELECT queue, sum(weight) AS weight FROM jobs WHERE state = 'running' AND queue = ANY($1::text[]) GROUP BY queue`, [limited]);
    for (const row of weights) running.set(text(row, 'queue'), int(row, 'weight'));
  }
  const queues: ClaimQueue[] = [];
  for (const q of settings.values()) {
    queues.push({ settings: q, runningWeight: running.get(q.name) ?? 0, rate: q.rateLimit === null ? null : (rates.get(q.name) ?? { tokens: null, refilledAt: null }) });
  }
  return queues;
}

export const claimStatements: AsyncPart<PgTx, ClaimSql> = {
  /**
   * A queue with a concurrency or rate limit is locked (its row, FOR NO KEY UPDATE, in name
   * order so that claimers never deadlock) before its running weight and tokens are read: every
   * daemon's claims of that queue take turns there, so the limit holds across daemons. Unlike
   * SQLite, which holds the write lock anyway, only limited queues with due jobs are locked and
   * returned, so that a claimer does not queue behind others for a queue it would take nothing
   * from.
   */
  async claimQueues(tx, p) {
    const rows =
      p.queues.length === 0
        ? await tx.rows(`SELECT * FROM queues WHERE paused = 0 AND ${NOT_ALL_PAUSED} ORDER BY name`)
        : await tx.rows(`SELECT * FROM queues WHERE name = ANY($1::text[]) AND paused = 0 AND ${NOT_ALL_PAUSED} ORDER BY name`, [p.queues]);
    return claimable(tx, p, rows);
  },

  /**
   * One statement reads the queues and locks the worker's row if it declared a capacity (as
   * workerCapacityLeft does). Only then does a second statement add up what the worker holds:
   * after the lock, so that its snapshot sees every claim of this worker committed before.
   */
  async claimStart(tx, p) {
    const rows = await tx.rows(
      `WITH w AS (SELECT capacity FROM workers WHERE id = $1 AND capacity IS NOT NULL FOR UPDATE)
       SELECT (SELECT capacity FROM w) AS worker_capacity, q.* FROM (SELECT 1) AS one
       LEFT JOIN queues q ON q.paused = 0 AND ${NOT_ALL_PAUSED} AND (cardinality($2::text[]) = 0 OR q.name = ANY($2::text[]))
       ORDER BY q.name`,
      [p.workerId, p.queues],
    );
    const declared = rows.length === 0 ? null : intOrNull(rows[0] as Row, 'worker_capacity');
    let capacity: number | null = null;
    if (declared !== null) {
      const held = await tx.row(`SELECT coalesce(sum(weight), 0) AS held FROM jobs WHERE state = 'running' AND worker_id = $1`, [p.workerId]);
      capacity = declared - (held ? int(held, 'held') : 0);
      if (capacity <= 0) return { capacity, queues: [] };
    }
    // With no queue to take from, the left join's one row is all NULLs.
    return { capacity, queues: await claimable(tx, p, rows.filter((row) => row.get('name') !== null)) };
  },

  /** One statement for every queue: a bounded walk of jobs_claim per queue, joined laterally. */
  async claimPeek(tx, p) {
    const { include, list } = kindList(p.kinds);
    const rows = await tx.rows(
      `SELECT e.q AS queue, j.weight, j.priority, j.run_at, j.id
       FROM unnest($1::text[], $4::int[]) AS e(q, room) CROSS JOIN LATERAL (
         SELECT weight, priority, run_at, id FROM jobs WHERE ${dueSql(include, 'e.q')} ${CLAIM_ORDER} LIMIT e.room) j`,
      [p.queues.map((q) => q.name), p.now, list, p.queues.map((q) => q.room)],
    );
    return rows.map((r) => ({ queue: text(r, 'queue'), weight: int(r, 'weight'), priority: int(r, 'priority'), runAt: int(r, 'run_at'), id: text(r, 'id') }));
  },

  /**
   * Unlike SQLite, the room applies even to a `peeked` share: another daemon may have claimed
   * some of the peeked jobs meanwhile, and the jobs behind them must still fit.
   */
  async claimJobs(tx, p) {
    const { include, list } = kindList(p.kinds);
    const readBack = claimReadBack(p.fields);
    const rows = await tx.rows(claimText(false, include, readBack), [p.queue, p.now, list, p.limit, p.workerId, p.room, p.budget]);
    let chars = 0;
    const jobs = rows.map((row) => {
      chars += text(row, 'payload').length + (textOrNull(row, 'checkpoint')?.length ?? 0);
      return readBack === null ? mapJob(row) : mapClaimedJob(row, readBack, p.now, p.workerId);
    });
    return { jobs, chars };
  },

  async claimSimple(tx, p) {
    const { include, list } = kindList(p.kinds);
    const readBack = claimReadBack(p.fields);
    const rows = await tx.rows(claimText(true, include, readBack), [p.queues, p.now, list, p.limit, p.workerId, p.budget]);
    if (rows[0]?.get('spool_simple_claim') !== true) return null;
    let chars = 0;
    const jobs: Job[] = [];
    for (const row of rows) {
      if (row.get('id') === null) continue;
      chars += text(row, 'payload').length + (textOrNull(row, 'checkpoint')?.length ?? 0);
      jobs.push(readBack === null ? mapJob(row) : mapClaimedJob(row, readBack, p.now, p.workerId));
    }
    return { jobs, chars };
  },
};
