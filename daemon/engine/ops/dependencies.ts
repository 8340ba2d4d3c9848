/**
 * Dependencies between jobs, written once for every store: what a new job waits for, what
 * becomes of the jobs waiting for one that ends, and the checks of a retry and a delete.
 *
 * A job waits `blocked` while any job it depends on has not ended. Ended means completed, dead
 * or cancelled (a job that fails an attempt and will retry has not ended). Each edge has a
 * condition: `succeeded` holds when the job it names completed, `failed` when it ended without
 * completing (dead, or cancelled: so a cleanup `on: 'failed'` still runs when what it cleans up
 * after was cancelled because its own dependency failed), `finished` whatever the outcome. When
 * the last edge is met the job is queued, in the transaction that ended the job it waited for;
 * when one ends so that its condition cannot hold, the job ends cancelled with the reason, and
 * that ending is passed on to its own dependents by the same rule.
 *
 * Cost: a job that ends with no dependents (`dependents` = 0, read from the row its ending
 * returned) costs nothing more. One with dependents costs one read of its unresolved edges and
 * one update of the dependents found, so O(dependents), never a scan of blocked jobs.
 */
import { invalidParams } from '../../../shared/protocol/errors';
import { invalidState } from '../errors';
import { LIMITS } from '../../../shared/protocol';
import type { DependencyCondition, Job, JobDependency, JobState } from '../../../shared/protocol/types';
import { sql, type Op } from '../../storage/statements';
import type { DependencyEdge, JobCount } from '../../storage/statements/dependencies';
import type { JobInsert } from '../../storage/statements/jobs';
import type { DependencyInput } from '../validate/jobs';
import type { OpContext } from './context';
import { runJobsEnded } from './workflowRuns';
import * as history from './historySteps';

/** Whether a job in `state` has ended: nothing more happens to it unless a user retries it. */
export function hasEnded(state: JobState): boolean {
  return state === 'completed' || state === 'dead' || state === 'cancelled';
}

/** Whether a dependency that ended in `state` meets `on`. */
export function conditionHolds(on: DependencyCondition, state: JobState): boolean {
  if (on === 'finished') return true;
  return on === 'succeeded' ? state === 'completed' : state !== 'completed';
}

/** How a job ended, as the reason of a dependent's cancellation says it. */
function endedAs(state: JobState): string {
  return state === 'completed' ? 'succeeded' : state === 'dead' ? 'failed' : 'was cancelled';
}

/** The last error of a job cancelled because dependency `id` ended in `state` and it needed `on`. */
export function cancelReason(id: string, state: JobState, on: DependencyCondition): string {
  return `dependency ${id} ${endedAs(state)}, and this job ran only if it ${on === 'succeeded' ? 'succeeded' : 'failed'}`;
}

/** A job to insert and the dependencies it was given (none for most). */
export interface PlannedJob {
  row: JobInsert;
  dependsOn: readonly DependencyInput[];
}

/**
 * Settles what new jobs wait for, just before their insert: each named job gains them as
 * dependents (its row locked, so it cannot end unseen until this transaction commits), and
 * each new row gets its state, counts and, when a dependency has already ended so that its
 * condition cannot hold, its cancellation. The edges to insert after the jobs come back.
 *
 * `batch`: rows of the same insert that later ones may depend on (`jobs.enqueueBatch` by index),
 * planned in order, so each is settled before its dependents read its state. Their dependents
 * are counted once they exist (batchDependentCounts).
 */
export function* planDependencies(c: OpContext, planned: readonly PlannedJob[], batch?: ReadonlyMap<string, JobInsert>): Op<DependencyEdge[]> {
  const counts = new Map<string, number>();
  for (const { dependsOn } of planned) for (const d of dependsOn) if (batch?.has(d.id) !== true) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
  if (counts.size === 0 && batch === undefined) return [];
  const rows: JobCount[] = [...counts].map(([id, n]) => ({ id, n }));
  const states = new Map<string, JobState>();
  if (rows.length > 0) for (const { id, state } of yield* sql('jobAddDependents', { counts: rows, now: c.now() })) states.set(id, state);
  const edges: DependencyEdge[] = [];
  for (const { row, dependsOn } of planned) {
    if (dependsOn.length === 0) continue;
    let waitingFor = 0;
    let cancelled: string | null = null;
    for (const d of dependsOn) {
      const state = states.get(d.id) ?? batch?.get(d.id)?.state;
      if (state === undefined) throw invalidParams(d.field, `${d.field} names job ${d.id}, which does not exist: a job can depend only on jobs that exist`, 'the id of an existing job');
      const ended = hasEnded(state);
      if (!ended) waitingFor += 1;
      else if (!conditionHolds(d.on, state)) cancelled ??= cancelReason(d.id, state, d.on);
      edges.push({ jobId: row.id, dependsOnId: d.id, on: d.on, resolved: ended });
    }
    row.dependsOn = dependsOn.length;
    row.waitingFor = cancelled === null ? waitingFor : 0;
    row.state = cancelled !== null ? 'cancelled' : waitingFor > 0 ? 'blocked' : 'queued';
    row.lastError = cancelled;
  }
  return edges;
}

/** How many edges of `edges` name each job of `batch` (the counts its rows are inserted without). */
export function batchDependentCounts(edges: readonly DependencyEdge[], batch: ReadonlyMap<string, JobInsert>): JobCount[] {
  const counts = new Map<string, number>();
  for (const edge of edges) if (batch.has(edge.dependsOnId)) counts.set(edge.dependsOnId, (counts.get(edge.dependsOnId) ?? 0) + 1);
  return [...counts].map(([id, n]) => ({ id, n }));
}

/**
 * What jobs that just ended mean for the jobs waiting for them: each dependent whose condition
 * is met counts one dependency less (and is queued at none), each whose condition can no longer
 * hold ends cancelled, and those cancellations are passed on in turn, level by level, in this
 * same transaction. Jobs that have not ended, or have no dependents, are passed over. The ids of
 * the jobs cancelled are added to `cancelledIds` when given.
 */
export function* settleDependents(c: OpContext, jobs: readonly Job[], cancelledIds?: Set<string>): Op<void> {
  let ended = jobs.filter((job) => job.dependents > 0 && hasEnded(job.state));
  while (ended.length > 0) {
    const met = new Map<string, number>();
    const cancels = new Map<string, string[]>();
    const cancelled = new Set<string>();
    const byId = new Map(ended.map((job) => [job.id, job]));
    for (const edge of yield* sql('dependencyResolve', [...byId.keys()])) {
      const job = byId.get(edge.dependsOnId);
      if (job === undefined) continue;
      if (conditionHolds(edge.on, job.state)) {
        met.set(edge.jobId, (met.get(edge.jobId) ?? 0) + 1);
        continue;
      }
      if (cancelled.has(edge.jobId)) continue;
      cancelled.add(edge.jobId);
      const reason = cancelReason(job.id, job.state, edge.on);
      const ids = cancels.get(reason);
      if (ids === undefined) cancels.set(reason, [edge.jobId]);
      else ids.push(edge.jobId);
    }
    const next: Job[] = [];
    const now = c.now();
    for (const [reason, ids] of cancels) {
      const cancelledJobs = yield* sql('jobCancelBlocked', { ids, reason, now });
      for (const job of cancelledJobs) {
        c.changes.job(job);
        history.endedWaiting(c, job, 'cancelled', now);
        cancelledIds?.add(job.id);
        if (job.dependents > 0) next.push(job);
      }
      yield* runJobsEnded(c, cancelledJobs, true);
    }
    const counts: JobCount[] = [];
    for (const [id, n] of met) if (!cancelled.has(id)) counts.push({ id, n });
    if (counts.length > 0) for (const job of yield* sql('jobDependenciesMet', { counts, now })) c.changes.job(job);
    ended = next;
  }
}

/**
 * What a retried job waits for: the ids of its dependencies that have not ended. Refused when
 * one ended so that its condition cannot hold (retry that one first).
 */
export function* retryWaitsFor(job: Job): Op<string[]> {
  if (job.dependsOn === 0) return [];
  const waitingFor: string[] = [];
  for (const d of yield* sql('dependenciesForRetry', job.id)) {
    if (!hasEnded(d.state)) waitingFor.push(d.id);
    else if (!conditionHolds(d.on, d.state)) {
      throw invalidState(job, `Cannot retry job ${job.id}: it depends on job ${d.id}, which ${endedAs(d.state)}, and it runs only if that one ${d.on === 'succeeded' ? 'succeeded' : 'failed'}. Retry job ${d.id} first.`);
    }
  }
  yield* sql('dependencyReopen', { jobId: job.id, waitingFor });
  return waitingFor;
}

/** A job's dependencies and dependents, for `jobs.get`. */
export function* dependenciesAround(job: Job): Op<{ dependencies: JobDependency[]; dependents: JobDependency[] }> {
  const dependencies = job.dependsOn === 0 ? [] : (yield* sql('dependenciesOf', [job.id])).map(({ jobId: _job, resolved: _resolved, ...d }) => d);
  const dependents = job.dependents === 0 ? [] : yield* sql('dependentsOf', { id: job.id, limit: LIMITS.maxListedDependents });
  return { dependencies, dependents };
}

/** The dependencies of claimed jobs, with their results, by job id (only jobs that have any). */
export function* dependenciesOfClaimed(jobs: readonly Job[]): Op<Map<string, JobDependency[]>> {
  const ids = jobs.filter((job) => job.dependsOn > 0).map((job) => job.id);
  const byJob = new Map<string, JobDependency[]>();
  if (ids.length === 0) return byJob;
  for (const { jobId, resolved: _resolved, ...d } of yield* sql('dependenciesOf', ids)) {
    const list = byJob.get(jobId);
    if (list === undefined) byJob.set(jobId, [d]);
    else list.push(d);
  }
  return byJob;
}

/** Refuses to delete `job` while a job that has not ended depends on it (unless cascading, which the caller does). */
export function* checkNoUnfinishedDependents(job: Job): Op<void> {
  if (job.dependents > 0 && (yield* sql('dependentsUnfinished', job.id))) {
    throw invalidState(job, `Cannot delete job ${job.id}: jobs that have not ended depend on it. Delete them first, or delete with cascade to delete them too.`);
  }
}
