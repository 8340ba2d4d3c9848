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

const WAITING: ReadonlySet<JobState> = new Set(['queued', 'retrying', 'blocked', 'held']);
const RUNNING: ReadonlySet<JobState> = new Set(['running']);
const ENDED: ReadonlySet<JobState> = new Set(['completed', 'dead', 'cancelled']);
const WAITING_OR_RUNNING: ReadonlySet<JobState> = new Set([...WAITING, ...RUNNING]);

/** The states a recorded change can have found the job in. */
function startStates(change: JobHistoryEvent): ReadonlySet<JobState> {
  if (change.cause === 'retry by user') return ENDED;
  if (change.state === 'running') return RUNNING;
  return WAITING.has(change.state) ? WAITING : WAITING_OR_RUNNING;
}

/**
 * Places the recorded changes (oldest first) among the events derived from the job row and its
 * runs (in time order), each after the change recorded before it. Within its millisecond a change
 * goes at the first place whose previous event left the job in a state it can start from, else
 * after that millisecond's events: on a fast machine a run now and the claim it allowed, or a run's
 * end and a user's retry, share a millisecond, and their order is the one the states allow.
 */
function placeRecorded(events: JobHistoryEvent[], recorded: readonly JobHistoryEvent[]): void {
  const at = (i: number): number => (events[i] as JobHistoryEvent).at;
  let from = 0;
  for (const change of recorded) {
    let first = from;
    while (first < events.length && at(first) < change.at) first += 1;
    let end = first;
    while (end < events.length && at(end) === change.at) end += 1;
    const startsFrom = startStates(change);
    let place = end;
    for (let j = Math.max(first, 1); j < end; j += 1) {
      if (startsFrom.has((events[j - 1] as JobHistoryEvent).state)) {
        place = j;
        break;
      }
    }
    events.splice(place, 0, change);
    from = place + 1;
  }
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
  if (recorded.length > 0) placeRecorded(events, recorded);
  const last = events[events.length - 1];
  // A change that left no run (a cancel while waiting, an expiry, a hold): the state the job is in now.
  if (last !== undefined && last.state !== job.state && job.state !== 'running') {
    const finished = last.state === 'completed' || last.state === 'dead' || last.state === 'cancelled';
    const cause = job.state === 'held' ? 'hold' : job.state === 'cancelled' ? 'cancel' : job.state === 'dead' ? 'expire' : finished ? 'retry by user' : 'release';
    events.push({ at: job.updatedAt, state: job.state, cause, who: null, attempt: null, detail: job.lastError });
  }
  return events;
}
