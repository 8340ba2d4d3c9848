/**
 * A workflow run's state kept in step with its jobs, written once for every store: the
 * transaction that ends a job of a run (complete, fail for the last time, the reaper, a cancel,
 * a cancellation passed on by a dependency, a delete) moves the run's counts by one UPDATE, and
 * the one that ends its last job ends the run; a retry of one of its jobs makes it running
 * again. O(1) per job, never a scan of the run. The rule (shared/protocol/workflows.ts): a run
 * ends `cancelled` when a user cancelled one of its jobs, else `failed` when one is dead, else
 * `succeeded`; jobs cancelled because the condition they waited for could not hold count as
 * neither.
 */
import type { Job } from '../../../shared/protocol/types';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/**
 * Whether a cancelled job was cancelled because a job it depended on ended so that its
 * condition could not hold: its reason says so (cancelReason in ./dependencies.ts).
 */
export function cancelledByDependency(job: Job): boolean {
  return job.state === 'cancelled' && job.lastError !== null && job.lastError.startsWith('dependency ');
}

/**
 * Jobs that just ended (those of no run are passed over): each run they belong to counts them.
 * `byDependency`: they were cancelled because a dependency's condition could not hold, not by a
 * user.
 */
export function* runJobsEnded(c: OpContext, jobs: readonly Job[], byDependency = false): Op<void> {
  let runs: Map<string, { jobs: number; dead: number; cancelled: number }> | undefined;
  for (const job of jobs) {
    if (job.workflowRunId === null) continue;
    runs ??= new Map();
    let m = runs.get(job.workflowRunId);
    if (m === undefined) runs.set(job.workflowRunId, (m = { jobs: 0, dead: 0, cancelled: 0 }));
    m.jobs += 1;
    if (job.state === 'dead') m.dead += 1;
    else if (job.state === 'cancelled' && !byDependency && !cancelledByDependency(job)) m.cancelled += 1;
  }
  if (runs === undefined) return;
  const now = c.now();
  for (const [id, m] of runs) yield* sql('workflowRunJobsEnded', { id, ...m, now });
}

/** A job of a run that had ended (`before`, as it was) was retried: its run is running again. */
export function* runJobReopened(c: OpContext, before: Job): Op<void> {
  if (before.workflowRunId === null) return;
  const cancelled = before.state === 'cancelled' && !cancelledByDependency(before) ? 1 : 0;
  yield* sql('workflowRunJobsReopened', { id: before.workflowRunId, jobs: 1, dead: before.state === 'dead' ? 1 : 0, cancelled, now: c.now() });
}

/**
 * A purge (or a forced queue delete) deleted jobs of runs that had not ended: each run counts
 * them as cancelled by a user, as it does a deleted job, so a run does not wait for them forever.
 */
export function* runJobsPurged(c: OpContext, unfinishedByRun: ReadonlyMap<string, number>): Op<void> {
  const now = c.now();
  for (const [id, jobs] of unfinishedByRun) yield* sql('workflowRunJobsEnded', { id, jobs, dead: 0, cancelled: jobs, now });
}

/** A job of a run that had not ended was deleted: the run counts it as cancelled by a user. */
export function* runJobDeleted(c: OpContext, job: Job): Op<void> {
  if (job.workflowRunId === null || job.state === 'completed' || job.state === 'dead' || job.state === 'cancelled') return;
  yield* sql('workflowRunJobsEnded', { id: job.workflowRunId, jobs: 1, dead: 0, cancelled: 1, now: c.now() });
}
