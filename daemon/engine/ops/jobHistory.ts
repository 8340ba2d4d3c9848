/**
 * `jobs.history`: a job's state changes. What the hot path does is derived from what is already
 * stored — the job row (when it was created, where from) and its runs (each claim, and how each
 * attempt ended) — so that nothing more is written per job. The changes that leave no run (a
 * user's retry, cancel, hold and release, edit, run now, pause and resume) are recorded as they
 * happen, in the same transaction, with who made them (job_events; ./actor.ts). A change from
 * before that record existed shows as the job's state now, with no `who`.
 */
import type { JobHistoryEvent } from '../../../shared/protocol';
import type { Job, JobRun, JobState } from '../../../shared/protocol/types';
import type { UpdateInput } from '../../../shared/domain/rules/jobs';
import type { OpContext } from './context';
import { jobNotFound } from '../../../shared/protocol/errors';
import { shortId } from '../../../shared/domain/present';
import { sql, type Op } from '../../storage/statements';

/** Why a job exists: the schedule that enqueued it, the workflow run it is a step of (`workflow release#1a2b3c4d`), or an enqueue. */
function* enqueueCause(job: Job): Op<string> {
  const origin = job.context?.origin ?? '';
  if (origin.startsWith('schedule:')) return `schedule ${origin.slice('schedule:'.length)}`;
  if (job.workflowRunId !== null) {
    const run = yield* sql('workflowRunGet', job.workflowRunId);
    if (run) return `workflow ${run.workflow}#${shortId(run.id)}`;
  }
  return 'enqueue';
}

/**
 * How a run ended. A failure is followed by another attempt (`retrying`) unless it was the last
 * one (`dead`); one that a user's retry took up again ended `dead` even though a run follows.
 */
function ending(run: JobRun, next: JobRun | undefined, job: Job, retriedByUser: boolean): { state: JobState; cause: string } | null {
  const again = !retriedByUser && (next !== undefined || job.state === 'retrying');
  switch (run.outcome) {
    case 'completed':
      return { state: 'completed', cause: 'complete' };
    case 'cancelled':
      return { state: 'cancelled', cause: 'cancel' };
    case 'interrupted':
      return { state: 'retrying', cause: 'reaper' };
    case 'lease_expired':
      return { state: again ? 'retrying' : 'dead', cause: 'reaper' };
    case 'failed':
      return { state: again ? 'retrying' : 'dead', cause: 'fail' };
    default:
      return null;
  }
}

/** Records a change of `job` (as it is now) that leaves no run, made by the one the operation acts for. */
export function* noteChange(c: OpContext, job: Job, cause: string, detail: string | null): Op<void> {
  yield* sql('jobEventAdd', { jobId: job.id, at: c.now(), state: job.state, cause, who: c.who, attempt: job.attempts > 0 ? job.attempts : null, detail });
}

/** The fields an edit set, in the protocol's words ("priority, runAt, payload.command"). */
export function editedFields(input: UpdateInput): string {
  const fields = Object.entries(input)
    // null leaves a field as it was, except a group, which it clears (undefined leaves it).
    .filter(([name, value]) => name !== 'id' && name !== 'payloadEdits' && value !== undefined && (value !== null || name === 'group'))
    .map(([name]) => (name === 'delayMs' ? 'runAt' : name));
  fields.push(...Object.keys(input.payloadEdits).map((name) => `payload.${name}`));
  return [...new Set(fields)].join(', ');
}

export function* jobHistory(id: string): Op<JobHistoryEvent[]> {
  const job = yield* sql('jobGet', id);
  if (!job) throw jobNotFound(id);
  const runs = yield* sql('runsOfJob', id);
  const first: JobState = job.dependsOn > 0 ? 'blocked' : 'queued';
  const events: JobHistoryEvent[] = [{ at: job.createdAt, state: first, cause: yield* enqueueCause(job), who: null, attempt: null, detail: job.context?.origin ?? null }];
  const recorded = yield* sql('jobEventsOf', id);
  runs.forEach((run, i) => {
    events.push({ at: run.startedAt, state: 'running', cause: 'claim', who: null, attempt: run.attempt, detail: `worker ${run.workerId}` });
    const next = runs[i + 1];
    const retriedByUser =
      run.finishedAt !== null && recorded.some((e) => e.cause === 'retry by user' && e.at >= (run.finishedAt ?? 0) && (next === undefined || e.at <= next.startedAt));
    const end = ending(run, next, job, retriedByUser);
    if (end !== null && run.finishedAt !== null) events.push({ at: run.finishedAt, ...end, who: null, attempt: run.attempt, detail: run.error });
  });
  if (recorded.length > 0) {
    events.push(...recorded);
    // Stable: a recorded change and a run's end in the same millisecond keep the order they were stored in.
    events.sort((a, b) => a.at - b.at);
  }
  const last = events[events.length - 1];
  // A change that left no run (a cancel while waiting, an expiry, a hold): the state the job is in now.
  if (last !== undefined && last.state !== job.state && job.state !== 'running') {
    const finished = last.state === 'completed' || last.state === 'dead' || last.state === 'cancelled';
    const cause = job.state === 'held' ? 'hold' : job.state === 'cancelled' ? 'cancel' : job.state === 'dead' ? 'expire' : finished ? 'retry by user' : 'release';
    events.push({ at: job.updatedAt, state: job.state, cause, who: null, attempt: null, detail: job.lastError });
  }
  return events;
}
