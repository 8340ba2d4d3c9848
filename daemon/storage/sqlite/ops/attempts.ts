/**
 * The worker side of a running job: heartbeat, progress, checkpoint, output, and how an attempt
 * ends (complete, fail, cancelled, lease expired, interrupted).
 *
 * Only the worker holding the lease (the job is running and its worker_id is the caller's) may
 * act. Everyone else gets LeaseLost and nothing changes; the SQL carries the same condition,
 * so the rule holds even between two processes on one file.
 */
import { jobNotFound, type SpoolError } from '../../../../shared/errors';
import type { HeartbeatResult } from '../../../../shared/protocol';
import type { Job, JobState, OutputStream, RunOutcome } from '../../../../shared/types';
import type { CompleteOutcome } from '../../backend';
import { leaseLost as leaseLostError } from '../../../engine/errors';
import type { SqliteContext } from './context';
import type { FailInput, ReleaseInput } from '../../../engine/validate/worker';

/** LeaseLost (or JobNotFound) for `workerId` on job `id`, worded from the job and its history as they are now. */
export function leaseLost(ctx: SqliteContext, id: string, workerId: string): SpoolError {
  const job = ctx.store.jobs.byId(id);
  if (!job) return jobNotFound(id);
  return leaseLostError(job, workerId, ctx.store.runs.ofJob(id).some((run) => run.workerId === workerId));
}

/** The job, if `workerId` holds its lease; LeaseLost or JobNotFound otherwise. */
export function requireLease(ctx: SqliteContext, id: string, workerId: string): Job {
  const job = ctx.store.jobs.byId(id);
  if (!job || job.state !== 'running' || job.workerId !== workerId) throw leaseLost(ctx, id, workerId);
  return job;
}

export function heartbeat(ctx: SqliteContext, id: string, workerId: string, extendMs: number | undefined): HeartbeatResult {
  const now = ctx.now();
  const job = requireLease(ctx, id, workerId);
  const result = ctx.store.jobs.heartbeat({ id, workerId, lease: ctx.policy.rules.leaseUntil(job, extendMs, now), now });
  if (!result) throw leaseLost(ctx, id, workerId);
  return result;
}

export function progress(ctx: SqliteContext, id: string, workerId: string, percent: number, message: string | null): void {
  const job = ctx.store.jobs.progress({ id, workerId, percent, message, now: ctx.now() });
  if (!job) throw leaseLost(ctx, id, workerId);
  ctx.events.job(job);
}

export function checkpoint(ctx: SqliteContext, id: string, workerId: string, value: string): void {
  if (!ctx.store.jobs.checkpoint({ id, workerId, checkpoint: value, now: ctx.now() })) throw leaseLost(ctx, id, workerId);
}

export function appendOutput(ctx: SqliteContext, id: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, lines: string[]): void {
  const job = requireLease(ctx, id, workerId);
  if (lines.length === 0) return;
  const written = ctx.store.output.append(id, job.attempts, stream, lines.map((l) => ctx.policy.truncateLine(l)), ctx.now(), ctx.policy.maxOutputLinesPerJob);
  ctx.events.output(id, job.queue, written);
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

/** Ends the running attempt of `job` (held by `workerId`): the job row, its run, the stat bucket. */
function endAttempt(ctx: SqliteContext, job: Job, workerId: string, ending: Ending): Job {
  const now = ctx.now();
  const terminal = ending.state === 'completed' || ending.state === 'dead' || ending.state === 'cancelled';
  // The run's history row first: it is read from the job row while that still says 'running'.
  // If the update below finds the lease gone, the throw rolls the row back with it.
  ctx.store.runs.record({
    jobId: job.id,
    outcome: ending.outcome,
    error: ending.error,
    stack: ending.stack,
    exitCode: ending.exitCode,
    httpStatus: ending.httpStatus,
    now,
  });
  const updated = ctx.store.jobs.endAttempt(job, {
    id: job.id,
    workerId,
    state: ending.state,
    runAt: ending.runAt,
    lastError: ending.lastError,
    result: ending.result,
    finishedAt: terminal ? now : null,
    now,
  });
  if (!updated) throw leaseLost(ctx, job.id, workerId);
  if (ending.outcome === 'completed') ctx.store.runs.countFinished('completed', now);
  else if (ending.outcome === 'failed' || ending.outcome === 'lease_expired') ctx.store.runs.countFinished('failed', now);
  ctx.events.job(updated);
  return updated;
}

export function complete(ctx: SqliteContext, id: string, workerId: string, result: string | null): Job {
  // The most common ending gets its own path: one UPDATE that checks the lease and returns the
  // job (no read of the job first), and no history row: the job row is the record of its
  // completed attempt (RunStatements).
  const now = ctx.now();
  const job = ctx.store.jobs.complete({ id, workerId, result, now });
  if (!job) throw leaseLost(ctx, id, workerId);
  ctx.store.runs.countFinished('completed', now);
  ctx.events.job(job);
  return job;
}

/**
 * Completes many jobs in one UPDATE (JobStatements.completeMany), with the
 * outcome each `complete` call would have had: a job whose lease the worker does not hold gets
 * its LeaseLost error, the others are completed. A job named more than once (by its worker and
 * a stale one, say) is left out of the shared statement and completed call by call, in order, so
 * that whichever of its completes holds the lease is the one that wins.
 */
export function completeMany(ctx: SqliteContext, items: readonly { id: string; workerId: string; result: string | null }[]): CompleteOutcome[] {
  const now = ctx.now();
  const mentions = new Map<string, number>();
  for (const { id } of items) mentions.set(id, (mentions.get(id) ?? 0) + 1);
  const once = items.filter((item) => mentions.get(item.id) === 1);
  const done = ctx.store.jobs.completeMany(once, now);
  ctx.store.runs.countFinished('completed', now, done.size);
  return items.map((item): CompleteOutcome => {
    if (mentions.get(item.id) !== 1) {
      try {
        return { ok: true, job: complete(ctx, item.id, item.workerId, item.result) };
      } catch (error) {
        return { ok: false, error };
      }
    }
    const completed = done.get(item.id);
    if (completed === undefined) return { ok: false, error: leaseLost(ctx, item.id, item.workerId) };
    ctx.events.job(completed);
    return { ok: true, job: completed };
  });
}

/**
 * A failed attempt: retrying after its backoff while attempts are left, dead when none are or
 * the failure is permanent, cancelled when a cancel was requested (the failure is most likely
 * the worker stopping because of it).
 */
function failed(ctx: SqliteContext, job: Job, workerId: string, failure: Omit<FailInput, 'id' | 'workerId'>, outcome: 'failed' | 'lease_expired'): Job {
  const { state, runAt } = ctx.policy.rules.afterFailure(job, failure.permanent, ctx.now());
  return endAttempt(ctx, job, workerId, {
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

export function fail(ctx: SqliteContext, input: FailInput): Job {
  const job = requireLease(ctx, input.id, input.workerId);
  return failed(ctx, job, input.workerId, input, 'failed');
}

/** The reaper's verdict on one running job whose lease ran out. */
export function expireLease(ctx: SqliteContext, job: Job): Job {
  return failed(ctx, job, job.workerId ?? '', { error: 'lease expired', stack: null, exitCode: null, httpStatus: null, permanent: false }, 'lease_expired');
}

export function markCancelled(ctx: SqliteContext, id: string, workerId: string): Job {
  return endCancelled(ctx, requireLease(ctx, id, workerId), workerId);
}

/** Ends the running attempt of `job` (held by `workerId`) as cancelled. */
function endCancelled(ctx: SqliteContext, job: Job, workerId: string): Job {
  return endAttempt(ctx, job, workerId, {
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
 * A worker hands back a job it holds without finishing it, because it is stopping: the attempt
 * is recorded as interrupted and given back, and the job runs again at once, as start-up
 * recovery does for the daemon's own jobs. Stopping a worker is not the job failing, so it costs
 * no attempt and can never make the job dead. A job whose cancel was requested ends cancelled.
 */
export function release(ctx: SqliteContext, input: ReleaseInput): Job {
  const job = requireLease(ctx, input.id, input.workerId);
  if (job.cancelRequested) return endCancelled(ctx, job, input.workerId);
  const released = interrupt(ctx, job, input.reason);
  if (!released) throw leaseLost(ctx, input.id, input.workerId);
  return released;
}

/**
 * Start-up recovery of one job a stopped daemon's executors left running: retried at once, the
 * attempt given back. The interrupted run ends when its daemon last knew it running, not now:
 * now would count the time the daemon was down as time the job ran. That moment is the latest
 * of what the job row and its output recorded while the daemon ran (the claim, a heartbeat, a
 * progress report, an output line) and `aliveUntil`, the daemon's own last heartbeat when it is
 * known; never later than now.
 */
export function recoverJob(ctx: SqliteContext, job: Job, aliveUntil: number | undefined): Job | undefined {
  const now = ctx.now();
  const known = Math.max(job.startedAt ?? job.updatedAt, job.updatedAt, ctx.store.output.lastAt(job.id) ?? 0, aliveUntil ?? 0);
  return interrupt(ctx, job, 'the daemon stopped while the job ran', Math.min(known, now));
}

/**
 * Ends the running attempt of `job` as interrupted, for `reason`, and gives the attempt back: the
 * job is retrying at once. Undefined if the job is no longer running. The output gets a line
 * saying why the run's output stops there (the next run repeats the attempt number; readers
 * tell the runs apart by the run number each line carries). The run ends at `endedAt` (now
 * unless start-up recovery knows better).
 */
function interrupt(ctx: SqliteContext, job: Job, reason: string, endedAt?: number): Job | undefined {
  const now = ctx.now();
  ctx.store.runs.record({ jobId: job.id, outcome: 'interrupted', error: reason, stack: null, exitCode: null, httpStatus: null, now: endedAt ?? now });
  const back = ctx.store.jobs.recover(job.id, now, `Interrupted: ${reason}`);
  if (!back) return undefined;
  const note = `Attempt ${job.attempts} was interrupted (${reason}); it runs again without using up an attempt.`;
  const written = ctx.store.output.append(job.id, job.attempts, 'log', [ctx.policy.truncateLine(note)], now, ctx.policy.maxOutputLinesPerJob);
  ctx.events.output(job.id, job.queue, written);
  ctx.events.job(back);
  return back;
}
