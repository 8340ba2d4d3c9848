/**
 * The worker side after the claim (ops/claim.ts): heartbeats, progress, output, completes,
 * failures; leases and recovery.
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
import type { CompleteOutcome } from '../../backend';
import { leaseLost as leaseLostError } from '../../../engine/errors';
import { mapJob } from '../../mappers';
import { int, intOrNull, text } from '../../rows';
import type { PgTx, Transactions } from '../db';
import { findJob, JOB_COLUMNS, JOBS_DOT_COLUMNS } from './common';
import { countFinished, recordRun, runsOf } from './runs';

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
export async function reapExpiredLeases(store: Transactions): Promise<number> {
  const size = store.policy.batchSize;
  let total = 0;
  for (;;) {
    const reaped = await store.writeTx(async (tx) => {
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
