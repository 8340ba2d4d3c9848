/**
 * The worker side of a running job, written once for every store: heartbeat, progress,
 * checkpoint, output, and how an attempt ends (complete, fail, cancelled, released, lease
 * expired, interrupted by a stopped daemon).
 *
 * Only the worker holding the lease (the job is running and its worker_id is the caller's) may
 * act. Everyone else gets LeaseLost and nothing changes; the statements carry the same
 * condition in their WHERE, so the rule holds even between two daemons on one store. Paths that
 * compute the new state from the job (fail, release, markCancelled, output, the reaper,
 * recovery) read it with its row locked (PostgreSQL: FOR UPDATE), so that what they computed
 * from still holds when they write.
 */
import { jobNotFound, type SpoolError } from '../../../shared/protocol/errors';
import type { HeartbeatResult } from '../../../shared/protocol';
import type { Job, JobState, OutputStream, RunOutcome } from '../../../shared/protocol/types';
import type { CompleteOutcome } from '../api';
import { savepoint, sql, type Op } from '../../storage/statements';
import { leaseLost as leaseLostError } from '../errors';
import type { CompletedJob, JobCompleteItem } from '../../storage/statements/attempts';
import type { FailInput, ReleaseInput, SnoozeInput } from '../validate/worker';
import type { OpContext } from './context';
import { appendLines } from './output';
import { settleDependents } from './dependencies';
import { runJobsEnded } from './workflowRuns';
import * as history from './historySteps';

/** LeaseLost (or JobNotFound) for `workerId` on job `id`, worded from the job and its history as they are now. */
export function* leaseLostOf(id: string, workerId: string): Op<SpoolError> {
  const job = yield* sql('jobGet', id);
  if (!job) return jobNotFound(id);
  const runs = yield* sql('runsOfJob', id);
  return leaseLostError(job, workerId, runs.some((run) => run.workerId === workerId));
}

/** The job, its row locked, if `workerId` holds its lease; LeaseLost or JobNotFound otherwise. */
export function* requireLease(id: string, workerId: string): Op<Job> {
  const job = yield* sql('jobGetForUpdate', id);
  if (!job || job.state !== 'running' || job.workerId !== workerId) throw yield* leaseLostOf(id, workerId);
  return job;
}

/** Extends the lease by `extendMs` (default: the job's timeout) from now. */
export function* heartbeat(c: OpContext, id: string, workerId: string, extendMs: number | undefined): Op<HeartbeatResult> {
  const now = c.now();
  const job = yield* requireLease(id, workerId);
  const result = yield* sql('jobHeartbeat', { id, workerId, lease: c.policy.rules.leaseUntil(job, extendMs, now), now });
  if (!result) throw yield* leaseLostOf(id, workerId);
  return result;
}

/** Records progress, percent and message. */
export function* progress(c: OpContext, id: string, workerId: string, percent: number, message: string | null): Op<void> {
  const job = yield* sql('jobSetProgress', { id, workerId, percent, message, now: c.now() });
  if (!job) throw yield* leaseLostOf(id, workerId);
  c.changes.job(job);
}

/** Stores the job's checkpoint, handed to its next attempt. */
export function* checkpoint(c: OpContext, id: string, workerId: string, value: string): Op<void> {
  if (!(yield* sql('jobSetCheckpoint', { id, workerId, checkpoint: value, now: c.now() }))) throw yield* leaseLostOf(id, workerId);
}

/**
 * Appends output lines, chunk by chunk (each at most the wire's batch size): each is capped and
 * recorded as it lands. The lease is checked once, even for no lines.
 */
export function* appendOutput(c: OpContext, id: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, chunks: readonly string[][]): Op<void> {
  const job = yield* requireLease(id, workerId);
  for (const chunk of chunks) yield* appendLines(c, job, stream, chunk);
}

/**
 * The most common ending, and the hottest call of all: one statement that checks the lease,
 * ends the attempt, counts it and returns the job (no read of the job first), and no history
 * row: the job row is the record of its completed attempt (see storage/statements/runs.ts).
 */
export function* complete(c: OpContext, id: string, workerId: string, result: string | null): Op<Job> {
  const job = yield* sql('jobComplete', { id, workerId, result, now: c.now() });
  if (!job) throw yield* leaseLostOf(id, workerId);
  c.changes.job(job);
  history.stepped(c, job, 'completed', job.updatedAt, job.startedAt === null ? null : Math.max(0, job.updatedAt - job.startedAt));
  if (job.workflowRunId !== null) yield* runJobsEnded(c, [job]);
  if (job.dependents > 0) yield* settleDependents(c, [job]);
  return job;
}

/**
 * Completes many jobs in one statement, with the outcome each `complete` call would have had: a
 * job whose lease the worker does not hold gets its LeaseLost error, the others are completed. A
 * job named more than once (by its worker and a stale one, say) is left out of the shared
 * statement and completed call by call, in order, each in a savepoint, so that whichever of its
 * completes holds the lease is the one that wins.
 */
export function* completeMany(c: OpContext, items: readonly JobCompleteItem[]): Op<CompleteOutcome[]> {
  const mentions = new Map<string, number>();
  for (const { id } of items) mentions.set(id, (mentions.get(id) ?? 0) + 1);
  const once = items.length === mentions.size ? items : items.filter((item) => mentions.get(item.id) === 1);
  const done = new Map<string, Job>();
  if (once.length > 0) for (const job of yield* sql('jobCompleteMany', { items: once, now: c.now() })) done.set(job.id, job);
  const withDependents: Job[] = [];
  const ofRuns: Job[] = [];
  for (const job of done.values()) {
    if (job.dependents > 0) withDependents.push(job);
    if (job.workflowRunId !== null) ofRuns.push(job);
  }
  if (ofRuns.length > 0) yield* runJobsEnded(c, ofRuns);
  if (withDependents.length > 0) yield* settleDependents(c, withDependents);
  const outcomes: CompleteOutcome[] = [];
  for (const item of items) {
    if (mentions.get(item.id) !== 1) {
      const settled = yield* savepoint(complete(c, item.id, item.workerId, item.result));
      outcomes.push(settled.ok ? { ok: true, job: settled.value } : { ok: false, error: settled.error });
      continue;
    }
    const completed = done.get(item.id);
    if (completed === undefined) {
      outcomes.push({ ok: false, error: yield* leaseLostOf(item.id, item.workerId) });
      continue;
    }
    c.changes.job(completed);
    history.stepped(c, completed, 'completed', completed.updatedAt, completed.startedAt === null ? null : Math.max(0, completed.updatedAt - completed.startedAt));
    outcomes.push({ ok: true, job: completed });
  }
  return outcomes;
}

/**
 * jobs.completeMany: completeMany's one statement, with each completed job read back only as far
 * as its change event and the history need (no answer sends it). The ids are distinct (the
 * params' rule). Each job not completed gets the error its own complete would have had; null
 * for one that was. The rare job that ends a workflow step or has dependents is read whole, in
 * this transaction, for what follows from it.
 */
export function* completeBatch(c: OpContext, items: readonly JobCompleteItem[]): Op<(SpoolError | null)[]> {
  const done = new Map<string, CompletedJob>();
  for (const job of yield* sql('jobCompleteBatch', { items, now: c.now() })) done.set(job.id, job);
  const followed: Job[] = [];
  for (const job of done.values()) {
    if (job.dependents === 0 && job.workflowRunId === null) continue;
    const whole = yield* sql('jobGet', job.id);
    if (whole) followed.push(whole);
  }
  const ofRuns = followed.filter((job) => job.workflowRunId !== null);
  if (ofRuns.length > 0) yield* runJobsEnded(c, ofRuns);
  const withDependents = followed.filter((job) => job.dependents > 0);
  if (withDependents.length > 0) yield* settleDependents(c, withDependents);
  const outcomes: (SpoolError | null)[] = [];
  for (const item of items) {
    const completed = done.get(item.id);
    if (completed === undefined) {
      outcomes.push(yield* leaseLostOf(item.id, item.workerId));
      continue;
    }
    c.changes.job(completed);
    history.stepped(c, completed, 'completed', completed.updatedAt, completed.startedAt === null ? null : Math.max(0, completed.updatedAt - completed.startedAt));
    outcomes.push(null);
  }
  return outcomes;
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
function* endAttempt(c: OpContext, job: Job, workerId: string, ending: Ending): Op<Job> {
  const now = c.now();
  const terminal = ending.state === 'completed' || ending.state === 'dead' || ending.state === 'cancelled';
  // The run's history row first: it is read from the job row while that still says 'running'.
  // If the update below finds the lease gone, the throw rolls the row back with it.
  yield* sql('runRecord', {
    jobId: job.id,
    outcome: ending.outcome,
    error: ending.error,
    stack: ending.stack,
    exitCode: ending.exitCode,
    httpStatus: ending.httpStatus,
    now,
  });
  const updated = yield* sql('jobEndAttempt', job, {
    id: job.id,
    workerId,
    state: ending.state,
    runAt: ending.runAt,
    lastError: ending.lastError,
    result: ending.result,
    finishedAt: terminal ? now : null,
    now,
  });
  if (!updated) throw yield* leaseLostOf(job.id, workerId);
  if (ending.outcome === 'completed') yield* sql('statsCountFinished', { outcome: 'completed', now, n: 1 });
  else if (ending.outcome === 'failed' || ending.outcome === 'lease_expired') yield* sql('statsCountFinished', { outcome: 'failed', now, n: 1 });
  c.changes.job(updated);
  history.attemptEnded(c, job, ending.state, ending.outcome, now);
  if (terminal && updated.workflowRunId !== null) yield* runJobsEnded(c, [updated]);
  if (terminal && updated.dependents > 0) yield* settleDependents(c, [updated]);
  return updated;
}

/** What a failure says, without the job and worker it is for. */
type Failure = Omit<FailInput, 'id' | 'workerId'>;

const LEASE_EXPIRED: Failure = { error: 'lease expired', stack: null, exitCode: null, httpStatus: null, permanent: false, retryAt: null };

/**
 * A failed attempt: retrying after its backoff while attempts are left, dead when none are or
 * the failure is permanent, cancelled when a cancel was requested (the failure is most likely
 * the worker stopping because of it).
 */
function* failed(c: OpContext, job: Job, workerId: string, failure: Failure, outcome: 'failed' | 'lease_expired'): Op<Job> {
  const { state, runAt, finalBecause } = c.policy.rules.afterFailure(job, failure, c.now());
  return yield* endAttempt(c, job, workerId, {
    state,
    runAt,
    lastError: finalBecause === null ? failure.error : `${failure.error} (${finalBecause})`,
    result: null,
    outcome: state === 'cancelled' ? 'cancelled' : outcome,
    error: failure.error,
    stack: failure.stack,
    exitCode: failure.exitCode,
    httpStatus: failure.httpStatus,
  });
}

export function* fail(c: OpContext, input: FailInput): Op<Job> {
  const job = yield* requireLease(input.id, input.workerId);
  return yield* failed(c, job, input.workerId, input, 'failed');
}

/** The reaper's verdict on one running job whose lease ran out (its row locked). */
export function* expireLease(c: OpContext, job: Job): Op<Job> {
  return yield* failed(c, job, job.workerId ?? '', LEASE_EXPIRED, 'lease_expired');
}

/**
 * One batch of the reaper: up to batchSize running jobs whose lease ran out end as failed
 * attempts ("lease expired"); how many. The engine runs batches, one transaction each, while
 * they come back full.
 */
export function* reapBatch(c: OpContext): Op<number> {
  const expired = yield* sql('jobExpiredLeases', { now: c.now(), limit: c.policy.batchSize });
  for (const job of expired) yield* expireLease(c, job);
  return expired.length;
}

export function* markCancelled(c: OpContext, id: string, workerId: string): Op<Job> {
  return yield* endCancelled(c, yield* requireLease(id, workerId), workerId);
}

/** Ends the running attempt of `job` (held by `workerId`) as cancelled. */
function* endCancelled(c: OpContext, job: Job, workerId: string): Op<Job> {
  return yield* endAttempt(c, job, workerId, {
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
export function* release(c: OpContext, input: ReleaseInput): Op<Job> {
  const job = yield* requireLease(input.id, input.workerId);
  if (job.cancelRequested) return yield* endCancelled(c, job, input.workerId);
  const released = yield* interrupt(c, job, input.reason);
  if (!released) throw yield* leaseLostOf(input.id, input.workerId);
  return released;
}

/**
 * A worker puts off a job it holds: the attempt is recorded as interrupted and given back (as a
 * release does), and the job runs again at `runAt`, not at once. Waiting is not failing: it
 * costs no attempt, never makes the job dead, and its deadline does not apply. A job whose
 * cancel was requested ends cancelled.
 */
export function* snooze(c: OpContext, input: SnoozeInput): Op<Job> {
  const job = yield* requireLease(input.id, input.workerId);
  if (job.cancelRequested) return yield* endCancelled(c, job, input.workerId);
  const until = new Date(input.runAt).toISOString();
  const snoozed = yield* interrupt(c, job, `snoozed by its worker until ${until}`, undefined, input.runAt);
  if (!snoozed) throw yield* leaseLostOf(input.id, input.workerId);
  return snoozed;
}

/**
 * Start-up recovery of the jobs these workers (a stopped daemon's executors) left running:
 * retried at once, the attempt given back; how many. Each interrupted run ends when its daemon
 * last knew it running, not now: now would count the time the daemon was down as time the job
 * ran. That moment is the latest of what the job row and its output recorded while the daemon
 * ran (the claim, a heartbeat, a progress report, an output line) and `aliveUntil`, the
 * daemon's own last heartbeat when it is known; never later than now.
 */
export function* recoverInterrupted(c: OpContext, workerIds: readonly string[], aliveUntil: number | undefined, farDaemon?: FarDaemon): Op<number> {
  const now = c.now();
  let recovered = 0;
  for (const job of yield* sql('jobRunningForUpdate', workerIds)) {
    const lastOutputAt = yield* sql('outputLastAt', job.id);
    const known = Math.max(job.startedAt ?? job.updatedAt, job.updatedAt, lastOutputAt ?? 0, aliveUntil ?? 0);
    if (yield* interrupt(c, job, farDaemon === undefined ? 'the daemon stopped while the job ran' : farReason(job, farDaemon), Math.min(known, now))) recovered += 1;
  }
  return recovered;
}

/** A daemon taken for dead on another host than the one recovering its jobs: where it ran, and its pid there. */
export interface FarDaemon {
  host: string;
  pid: number;
}

/**
 * Why a job of a daemon dead on another host was interrupted. Its processes there cannot be
 * stopped from here: a shell job's may still run, and the run says where, for whoever looks at
 * the job, until a daemon starting on that host stops them (lifecycle/instance.ts).
 */
function farReason(job: Job, far: FarDaemon): string {
  const stopped = `the daemon on host ${far.host} (pid ${far.pid}) stopped answering while the job ran`;
  if (job.kind !== 'shell') return stopped;
  return `${stopped}; its process may still be running on host ${far.host}, under that daemon (pid ${far.pid}), until a daemon starts there again and stops it`;
}

/** Ids of the jobs running under these workers: what recoverInterrupted would recover. */
export function* runningJobIds(workerIds: readonly string[]): Op<string[]> {
  return yield* sql('jobRunningIds', workerIds);
}

/**
 * Ends the running attempt of `job` (row locked) as interrupted, for `reason`, and gives the
 * attempt back: the job is retrying at once. Undefined if the job is no longer running. The
 * output gets a line saying why the run's output stops there (the next run repeats the attempt
 * number; readers tell the runs apart by the run number each line carries). The run ends at
 * `endedAt` (now unless start-up recovery knows better).
 */
function* interrupt(c: OpContext, job: Job, reason: string, endedAt?: number, runAt?: number): Op<Job | undefined> {
  const now = c.now();
  yield* sql('runRecord', { jobId: job.id, outcome: 'interrupted', error: reason, stack: null, exitCode: null, httpStatus: null, now: endedAt ?? now });
  const back = yield* sql('jobInterrupt', { id: job.id, now, runAt: runAt ?? now, reason: `Interrupted: ${reason}` });
  if (!back) return undefined;
  const again = runAt === undefined ? 'it runs again' : `it runs again at ${new Date(runAt).toISOString()}`;
  yield* appendLines(c, job, 'log', [`Attempt ${job.attempts} was interrupted (${reason}); ${again} without using up an attempt.`]);
  c.changes.job(back);
  return back;
}
