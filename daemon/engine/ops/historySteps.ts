/**
 * What the operations tell the queue history (daemon/engine/history.ts): a step recorded on the
 * transaction's change sink, tallied in memory once it commits. No statement runs for it.
 */
import type { Job, JobState, RunOutcome } from '../../../shared/protocol/types';
import type { HistoryStep } from '../../storage/statements/history';
import type { OpContext } from './context';

export function stepped(c: OpContext, job: Pick<Job, 'queue'>, type: HistoryStep['type'], at: number, ms: number | null = null): void {
  c.changes.step?.({ queue: job.queue, type, at, ms });
}

/** Jobs just enqueued (not those an enqueue found already there). */
export function enqueued(c: OpContext, jobs: readonly Job[], at: number): void {
  for (const job of jobs) stepped(c, job, 'enqueued', at);
}

/** Jobs just claimed: each waited from when it was due (or enqueued, if later) until now. */
export function started(c: OpContext, jobs: readonly Job[], at: number): void {
  for (const job of jobs) stepped(c, job, 'started', at, Math.max(0, at - Math.max(job.runAt, job.createdAt)));
}

/** How an attempt's end counts: a failure that will be retried is `failed`; a release or snooze is not counted. */
export function attemptEnded(c: OpContext, before: Job, state: JobState, outcome: Exclude<RunOutcome, 'running'>, at: number): void {
  const type: HistoryStep['type'] | null =
    state === 'completed' || state === 'dead' || state === 'cancelled' ? state : outcome === 'failed' || outcome === 'lease_expired' ? 'failed' : null;
  if (type !== null) stepped(c, before, type, at, before.startedAt === null ? null : Math.max(0, at - before.startedAt));
}

/** A job that ended without running now (cancelled or expired while waiting). */
export function endedWaiting(c: OpContext, job: Job, type: 'dead' | 'cancelled', at: number): void {
  stepped(c, job, type, at);
}
