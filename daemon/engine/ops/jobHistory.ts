/**
 * `jobs.history`: a job's state changes, derived from what is already stored — the job row (when
 * it was created, where from, its state now) and its runs (each claim, and how each attempt
 * ended) — so that nothing more is written on the hot path. Who made a change, and changes that
 * leave no run (a user's retry, cancel, hold and release, edit, run now), are not recorded yet:
 * `who` is null, and such a change shows only in the job's state now.
 */
import type { JobHistoryEvent } from '../../../shared/protocol';
import type { Job, JobRun, JobState } from '../../../shared/protocol/types';
import { jobNotFound } from '../../../shared/protocol/errors';
import { sql, type Op } from '../../storage/statements';

/** Why a job exists: its enqueuer's origin, when that names a schedule or a workflow. */
function enqueueCause(job: Job): string {
  const origin = job.context?.origin ?? '';
  if (origin.startsWith('schedule:')) return `schedule ${origin.slice('schedule:'.length)}`;
  return 'enqueue';
}

function ending(run: JobRun, next: JobRun | undefined, job: Job): { state: JobState; cause: string } | null {
  switch (run.outcome) {
    case 'completed':
      return { state: 'completed', cause: 'complete' };
    case 'cancelled':
      return { state: 'cancelled', cause: 'cancel' };
    case 'interrupted':
      return { state: 'retrying', cause: 'reaper' };
    case 'lease_expired':
      return { state: next !== undefined || job.state === 'retrying' ? 'retrying' : 'dead', cause: 'reaper' };
    case 'failed':
      return { state: next !== undefined || job.state === 'retrying' ? 'retrying' : 'dead', cause: 'fail' };
    default:
      return null;
  }
}

export function* jobHistory(id: string): Op<JobHistoryEvent[]> {
  const job = yield* sql('jobGet', id);
  if (!job) throw jobNotFound(id);
  const runs = yield* sql('runsOfJob', id);
  const first: JobState = job.dependsOn > 0 ? 'blocked' : 'queued';
  const events: JobHistoryEvent[] = [{ at: job.createdAt, state: first, cause: enqueueCause(job), who: null, attempt: null, detail: job.context?.origin ?? null }];
  runs.forEach((run, i) => {
    events.push({ at: run.startedAt, state: 'running', cause: 'claim', who: null, attempt: run.attempt, detail: `worker ${run.workerId}` });
    const end = ending(run, runs[i + 1], job);
    if (end !== null && run.finishedAt !== null) events.push({ at: run.finishedAt, ...end, who: null, attempt: run.attempt, detail: run.error });
  });
  const last = events[events.length - 1];
  // A change that left no run (a cancel while waiting, an expiry, a hold): the state the job is in now.
  if (last !== undefined && last.state !== job.state && job.state !== 'running') {
    const finished = last.state === 'completed' || last.state === 'dead' || last.state === 'cancelled';
    const cause = job.state === 'held' ? 'hold' : job.state === 'cancelled' ? 'cancel' : job.state === 'dead' ? 'expire' : finished ? 'retry by user' : 'release';
    events.push({ at: job.updatedAt, state: job.state, cause, who: null, attempt: null, detail: job.lastError });
  }
  return events;
}
