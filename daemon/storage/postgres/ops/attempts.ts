/**
 * The worker side: claims, heartbeats, progress, output, completes, failures; leases and recovery.
 *
 * Only the worker holding the lease (the job is running and its worker_id is the caller's) may
 * act. Every statement that changes a running job carries `state = 'running' AND worker_id = $w`
 * in its WHERE, so that a worker whose lease expired and whose job another daemon claimed
 * changes nothing, whatever it read before: the guard is checked on the row as it is when the
 * UPDATE reaches it (READ COMMITTED re-checks it after waiting for a concurrent writer). Paths
 * that compute the new state from the job (fail, release, markCancelled, output) first lock its
 * row (FOR UPDATE), so that what they computed from still holds when they write.
 */
import { jobNotFound, type SpoolError } from '../../../../shared/errors';
import type { HeartbeatResult } from '../../../../shared/protocol';
import type { Job, JobState, OutputLine, OutputStream, RunOutcome } from '../../../../shared/types';
import type { FailInput, ReleaseInput } from '../../../engine/validate/worker';
import type { ClaimRequest, CompleteOutcome } from '../../backend';
import { leaseLost as leaseLostError } from '../../errors';
import { mapJob, mapSettings, type QueueSettings } from '../../mappers';
import { int, intOrNull, text, textOrNull, type Row } from '../../rows';
import type { PgTx } from '../db';
import type { PostgresBackend } from '../index';
import { findJob, JOB_COLUMNS } from './common';
import { countFinished, recordRun, runsOf } from './runs';

/** The job columns, each prefixed with `jobs.` (for UPDATE … FROM, where `id` alone is ambiguous). */
export const JOBS_DOT_COLUMNS = JOB_COLUMNS.split(',')
  .map((c) => `jobs.${c.trim()}`)
  .join(', ');

// ------------------------------------------------------------------------------------------
// Claims

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

/** LeaseLost (or JobNotFound) for `workerId` on job `id`, worded from the job and its history as they are now. */
async function leaseLost(tx: PgTx, id: string, workerId: string): Promise<SpoolError> {
  const job = await findJob(tx, id);
  if (!job) return jobNotFound(id);
  return leaseLostError(job, workerId, (await runsOf(tx, id)).some((run) => run.workerId === workerId));
}

/** The job, its row locked, if `workerId` holds its lease; LeaseLost or JobNotFound otherwise. */
async function requireLease(tx: PgTx, id: string, workerId: string): Promise<Job> {
  const job = await findJob(tx, id, true);
  if (!job || job.state !== 'running' || job.workerId !== workerId) throw await leaseLost(tx, id, workerId);
  return job;
}

export async function heartbeat(tx: PgTx, id: string, workerId: string, extendMs: number | undefined): Promise<HeartbeatResult> {
  const now = tx.now();
  const job = await requireLease(tx, id, workerId);
  const row = await tx.row(
    `UPDATE jobs SET lease_expires_at = greatest(lease_expires_at, $3), updated_at = $4
     WHERE id = $1 AND state = 'running' AND worker_id = $2
     RETURNING lease_expires_at, cancel_requested`,
    [id, workerId, tx.policy.rules.leaseUntil(job, extendMs, now), now],
  );
  if (!row) throw await leaseLost(tx, id, workerId);
  return { leaseExpiresAt: int(row, 'lease_expires_at'), cancelRequested: int(row, 'cancel_requested') !== 0 };
}

export async function progress(tx: PgTx, id: string, workerId: string, percent: number, message: string | null): Promise<void> {
  const row = await tx.row(
    `UPDATE jobs SET progress = $3, progress_message = $4, updated_at = $5
     WHERE id = $1 AND state = 'running' AND worker_id = $2
     RETURNING ${JOB_COLUMNS}`,
    [id, workerId, percent, message, tx.now()],
  );
  if (!row) throw await leaseLost(tx, id, workerId);
  tx.job(mapJob(row));
}

export async function checkpoint(tx: PgTx, id: string, workerId: string, value: string): Promise<void> {
  const changed = await tx.run(
    `UPDATE jobs SET checkpoint = $3, updated_at = $4 WHERE id = $1 AND state = 'running' AND worker_id = $2`,
    [id, workerId, value, tx.now()],
  );
  if (changed === 0) throw await leaseLost(tx, id, workerId);
}

export async function appendOutput(tx: PgTx, id: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, chunks: readonly string[][]): Promise<void> {
  const job = await requireLease(tx, id, workerId);
  // Chunk by chunk, as the SQLite store appends them: each is capped and recorded as it lands.
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    const written = await appendLines(tx, job.id, job.attempts, stream, chunk.map((l) => tx.policy.truncateLine(l)), tx.now());
    tx.output(job.id, job.queue, written);
  }
}

/**
 * Appends lines to a job's output, numbered on from its output_seq, and keeps at most
 * maxOutputLinesPerJob of them: past the cap, the oldest go, and one marker line takes the seq
 * of the newest line dropped, saying how many were dropped in all (as the SQLite store does, see
 * its output.ts). The caller holds the job's row lock, so two appends never number alike.
 * Returns the lines as a reader will find them (lines already dropped are not reported).
 */
async function appendLines(tx: PgTx, jobId: string, attempt: number, stream: Exclude<OutputStream, 'marker'>, texts: string[], at: number): Promise<OutputLine[]> {
  const state = await tx.row('SELECT output_seq, output_lines, output_dropped, runs FROM jobs WHERE id = $1', [jobId]);
  if (!state) return [];
  const cap = tx.policy.maxOutputLinesPerJob;
  const run = Math.max(int(state, 'runs'), 1);
  const first = int(state, 'output_seq') + 1;
  let lines = int(state, 'output_lines') + texts.length;
  let dropped = int(state, 'output_dropped');
  const seq = first + texts.length - 1;
  let written: OutputLine[] = texts.map((t, i) => ({ seq: first + i, attempt, run, stream, text: t, at }));
  await tx.run(
    `INSERT INTO job_output (job_id, seq, attempt, run, stream, text, at)
     SELECT $1, $2 + ord - 1, $3, $4, $5, line, $6 FROM unnest($7::text[]) WITH ORDINALITY AS t(line, ord)`,
    [jobId, first, attempt, run, stream, at, texts],
  );
  if (lines > cap) {
    const excess = lines - cap;
    const newest = await tx.row(`SELECT seq FROM job_output WHERE job_id = $1 AND stream <> 'marker' ORDER BY seq LIMIT 1 OFFSET $2`, [jobId, excess - 1]);
    if (newest) {
      const newestDropped = int(newest, 'seq');
      // Everything up to and including it goes, the old marker with it; the new marker reuses
      // its seq so that seq order still reads oldest to newest.
      await tx.run(`DELETE FROM job_output WHERE job_id = $1 AND (seq <= $2 OR stream = 'marker')`, [jobId, newestDropped]);
      dropped += excess;
      lines = cap;
      const marker: OutputLine = { seq: newestDropped, attempt, run, stream: 'marker', text: `[${dropped} older lines dropped]`, at };
      await tx.run(`INSERT INTO job_output (job_id, seq, attempt, run, stream, text, at) VALUES ($1, $2, $3, $4, 'marker', $5, $6)`, [
        jobId,
        marker.seq,
        attempt,
        run,
        marker.text,
        at,
      ]);
      written = [marker, ...written.filter((line) => line.seq > newestDropped)];
    }
  }
  await tx.run('UPDATE jobs SET output_seq = $2, output_lines = $3, output_dropped = $4 WHERE id = $1', [jobId, seq, lines, dropped]);
  return written;
}

interface Ending {
  state: JobState;
  runAt: number;
  lastError: string | null;
  result: string | null;
  outcome: Exclude<RunOutcome, 'running'>;
  error: string | null;
  stack: string | null;
  exitCode: number | null;
  httpStatus: number | null;
}

/** Ends the running attempt of `job` (held by `workerId`, row locked): the job row, its run, the stat bucket. */
async function endAttempt(tx: PgTx, job: Job, workerId: string, ending: Ending): Promise<Job> {
  const now = tx.now();
  const terminal = ending.state === 'completed' || ending.state === 'dead' || ending.state === 'cancelled';
  // The run's history row first: it is read from the job row while that still says 'running'.
  // If the update below finds the lease gone, the throw rolls the row back with it.
  await recordRun(tx, {
    jobId: job.id,
    outcome: ending.outcome,
    error: ending.error,
    stack: ending.stack,
    exitCode: ending.exitCode,
    httpStatus: ending.httpStatus,
    now,
  });
  // The lease is cleared; worker_id stays so a finished job still says who ran it last.
  const row = await tx.row(
    `UPDATE jobs SET state = $3, run_at = $4, last_error = $5, result = coalesce($6, result), lease_expires_at = NULL,
       finished_at = $7, cancel_requested = 0, updated_at = $8
     WHERE id = $1 AND state = 'running' AND worker_id = $2
     RETURNING ${JOB_COLUMNS}`,
    [job.id, workerId, ending.state, ending.runAt, ending.lastError, ending.result, terminal ? now : null, now],
  );
  if (!row) throw await leaseLost(tx, job.id, workerId);
  if (ending.outcome === 'completed') await countFinished(tx, 'completed', now);
  else if (ending.outcome === 'failed' || ending.outcome === 'lease_expired') await countFinished(tx, 'failed', now);
  const updated = mapJob(row);
  tx.job(updated);
  return updated;
}

/** The complete of one attempt: one UPDATE … RETURNING that checks the lease (no read before). No history row: see ops/runs.ts. */
const COMPLETE_SET = `state = 'completed', last_error = NULL, lease_expires_at = NULL, cancel_requested = 0`;

export async function complete(tx: PgTx, id: string, workerId: string, result: string | null): Promise<Job> {
  const now = tx.now();
  const row = await tx.row(
    `UPDATE jobs SET ${COMPLETE_SET}, result = coalesce($3, result), finished_at = $4, updated_at = $4
     WHERE id = $1 AND state = 'running' AND worker_id = $2
     RETURNING ${JOB_COLUMNS}`,
    [id, workerId, result, now],
  );
  if (!row) throw await leaseLost(tx, id, workerId);
  await countFinished(tx, 'completed', now);
  const job = mapJob(row);
  tx.job(job);
  return job;
}

/**
 * Completes many jobs with one UPDATE … FROM unnest (River's completer shape), each guarded by
 * its own lease, with the outcome each `complete` call would have had: a job whose lease the
 * worker does not hold gets its LeaseLost error, the others are completed. A job named more than
 * once (by its worker and a stale one, say) is left out of the shared statement and completed
 * call by call, in order, each in a savepoint, so that whichever of its completes holds the lease
 * wins. The finished count is written once for the batch.
 */
export async function completeMany(tx: PgTx, items: readonly { id: string; workerId: string; result: string | null }[]): Promise<CompleteOutcome[]> {
  const now = tx.now();
  const mentions = new Map<string, number>();
  for (const { id } of items) mentions.set(id, (mentions.get(id) ?? 0) + 1);
  const once = items.filter((item) => mentions.get(item.id) === 1);
  const done = new Map<string, Job>();
  if (once.length > 0) {
    const rows = await tx.rows(
      `UPDATE jobs SET ${COMPLETE_SET}, result = coalesce(item.result, jobs.result), finished_at = $4, updated_at = $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS item(id, worker_id, result)
       WHERE jobs.id = item.id AND jobs.state = 'running' AND jobs.worker_id = item.worker_id
       RETURNING ${JOBS_DOT_COLUMNS}`,
      [once.map((i) => i.id), once.map((i) => i.workerId), once.map((i) => i.result), now],
    );
    for (const row of rows) {
      const job = mapJob(row);
      done.set(job.id, job);
    }
    await countFinished(tx, 'completed', now, done.size);
  }
  const outcomes: CompleteOutcome[] = [];
  for (const item of items) {
    if (mentions.get(item.id) !== 1) {
      try {
        outcomes.push({ ok: true, job: await tx.savepoint(() => complete(tx, item.id, item.workerId, item.result)) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
      continue;
    }
    const completed = done.get(item.id);
    if (completed === undefined) {
      outcomes.push({ ok: false, error: await leaseLost(tx, item.id, item.workerId) });
      continue;
    }
    tx.job(completed);
    outcomes.push({ ok: true, job: completed });
  }
  return outcomes;
}

/**
 * A failed attempt: retrying after its backoff while attempts are left, dead when none are or
 * the failure is permanent, cancelled when a cancel was requested.
 */
async function failed(tx: PgTx, job: Job, workerId: string, failure: Omit<FailInput, 'id' | 'workerId'>, outcome: 'failed' | 'lease_expired'): Promise<Job> {
  const { state, runAt } = tx.policy.rules.afterFailure(job, failure.permanent, tx.now());
  return endAttempt(tx, job, workerId, {
    state,
    runAt,
    lastError: failure.error,
    result: null,
    outcome: state === 'cancelled' ? 'cancelled' : outcome,
    error: failure.error,
    stack: failure.stack,
    exitCode: failure.exitCode,
    httpStatus: failure.httpStatus,
  });
}

export async function fail(tx: PgTx, input: FailInput): Promise<Job> {
  const job = await requireLease(tx, input.id, input.workerId);
  return failed(tx, job, input.workerId, input, 'failed');
}

export async function markCancelled(tx: PgTx, id: string, workerId: string): Promise<Job> {
  return endCancelled(tx, await requireLease(tx, id, workerId), workerId);
}

async function endCancelled(tx: PgTx, job: Job, workerId: string): Promise<Job> {
  return endAttempt(tx, job, workerId, {
    state: 'cancelled',
    runAt: job.runAt,
    lastError: job.cancelRequested ? 'cancelled on request' : 'cancelled by its worker',
    result: null,
    outcome: 'cancelled',
    error: null,
    stack: null,
    exitCode: null,
    httpStatus: null,
  });
}

/**
 * A worker hands back a job it holds without finishing it: the attempt is recorded as
 * interrupted and given back, and the job runs again at once; it costs no attempt. A job whose
 * cancel was requested ends cancelled.
 */
export async function release(tx: PgTx, input: ReleaseInput): Promise<Job> {
  const job = await requireLease(tx, input.id, input.workerId);
  if (job.cancelRequested) return endCancelled(tx, job, input.workerId);
  const released = await interrupt(tx, job, input.reason);
  if (!released) throw await leaseLost(tx, input.id, input.workerId);
  return released;
}

/**
 * Ends the running attempt of `job` (row locked) as interrupted, for `reason`, and gives the
 * attempt back: the job is retrying at once. Undefined if it is no longer running. The output
 * gets a line saying why the run's output stops there. The run ends at `endedAt` (now unless
 * start-up recovery knows better).
 */
async function interrupt(tx: PgTx, job: Job, reason: string, endedAt?: number): Promise<Job | undefined> {
  const now = tx.now();
  await recordRun(tx, { jobId: job.id, outcome: 'interrupted', error: reason, stack: null, exitCode: null, httpStatus: null, now: endedAt ?? now });
  // Recovery gives the attempt back: the daemon (or worker) stopping is not the job failing.
  const row = await tx.row(
    `UPDATE jobs SET state = 'retrying', attempts = attempts - 1, run_at = $2, lease_expires_at = NULL,
       last_error = $3, cancel_requested = 0, updated_at = $2
     WHERE id = $1 AND state = 'running' RETURNING ${JOB_COLUMNS}`,
    [job.id, now, `Interrupted: ${reason}`],
  );
  if (!row) return undefined;
  const note = `Attempt ${job.attempts} was interrupted (${reason}); it runs again without using up an attempt.`;
  const written = await appendLines(tx, job.id, job.attempts, 'log', [tx.policy.truncateLine(note)], now);
  tx.output(job.id, job.queue, written);
  const back = mapJob(row);
  tx.job(back);
  return back;
}

/**
 * Expired leases end as failed attempts ("lease expired"), batchSize per transaction. Each batch
 * locks its jobs with SKIP LOCKED: two daemons reaping at once (or a worker completing a job the
 * reaper looks at) never wait on each other, and a job is reaped once. A batch that comes back
 * full is followed by another.
 */
export async function reapExpiredLeases(store: PostgresBackend): Promise<number> {
  const size = store.policy.batchSize;
  let total = 0;
  for (;;) {
    const reaped = await store.write(async (tx) => {
      const rows = await tx.rows(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE state = 'running' AND lease_expires_at <= $1
         ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [tx.now(), size],
      );
      for (const row of rows) {
        const job = mapJob(row);
        await failed(tx, job, job.workerId ?? '', { error: 'lease expired', stack: null, exitCode: null, httpStatus: null, permanent: false }, 'lease_expired');
      }
      return rows.length;
    });
    total += reaped;
    if (reaped < size) return total;
  }
}

/**
 * Start-up recovery of the jobs these workers left running: retried at once, the attempt given
 * back. Each interrupted run ends when its daemon last knew it running: the latest of the claim,
 * the job row's last update, its last output line and `aliveUntil`; never later than now.
 */
export async function recoverInterrupted(tx: PgTx, workerIds: string[], aliveUntil: number | undefined): Promise<number> {
  if (workerIds.length === 0) return 0;
  const rows = await tx.rows(
    `SELECT ${JOB_COLUMNS}, (SELECT o.at FROM job_output o WHERE o.job_id = jobs.id ORDER BY o.seq DESC LIMIT 1) AS last_output_at
     FROM jobs WHERE state = 'running' AND worker_id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    [workerIds],
  );
  const now = tx.now();
  let recovered = 0;
  for (const row of rows) {
    const job = mapJob(row);
    const known = Math.max(job.startedAt ?? job.updatedAt, job.updatedAt, intOrNull(row, 'last_output_at') ?? 0, aliveUntil ?? 0);
    if (await interrupt(tx, job, 'the daemon stopped while the job ran', Math.min(known, now))) recovered += 1;
  }
  return recovered;
}

export async function runningJobIds(tx: PgTx, workerIds: string[]): Promise<string[]> {
  if (workerIds.length === 0) return [];
  const rows = await tx.rows(`SELECT id FROM jobs WHERE state = 'running' AND worker_id = ANY($1::text[]) ORDER BY id`, [workerIds]);
  return rows.map((r) => text(r, 'id'));
}

/**
 * The earliest future moment something becomes due: a delayed or retrying job of a queue that
 * is not paused (jobs_due, per queue), a lease expiry (jobs_lease), a schedule, or a
 * rate-limited queue's next token while it has due jobs waiting for one.
 */
export async function nextWakeAt(tx: PgTx): Promise<number | null> {
  const now = tx.now();
  const row = await tx.row(
    `SELECT least(
       (SELECT min(d.next) FROM queues q CROSS JOIN LATERAL (
          SELECT min(run_at) AS next FROM jobs
          WHERE queue = q.name AND state IN ('queued', 'retrying') AND run_at > created_at AND run_at > $1) d
        WHERE q.paused = 0),
       (SELECT min(lease_expires_at) FROM jobs WHERE state = 'running'),
       (SELECT min(next_run_at) FROM schedules WHERE enabled = 1)) AS next`,
    [now],
  );
  let next = row === undefined ? null : intOrNull(row, 'next');
  const limited = await tx.rows(
    `SELECT q.name, q.rate_per_second, q.rate_burst, q.rate_tokens, q.rate_refilled_at FROM queues q
     WHERE q.paused = 0 AND q.rate_per_second IS NOT NULL
       AND EXISTS (SELECT 1 FROM jobs WHERE queue = q.name AND state IN ('queued', 'retrying'))`,
  );
  for (const q of limited) {
    const limit = { perSecond: Number(q.get('rate_per_second')), burst: intOrNull(q, 'rate_burst') ?? 1 };
    const tokens = q.get('rate_tokens');
    const bucket = tx.policy.refill(limit, { tokens: typeof tokens === 'number' ? tokens : null, refilledAt: intOrNull(q, 'rate_refilled_at') }, now);
    if (bucket.tokens < 1) {
      const at = tx.policy.nextTokenAt(limit, bucket);
      if (next === null || at < next) next = at;
    }
  }
  return next;
}
