/**
 * A user's actions on jobs: cancel, retry, update, delete, and their bulk forms.
 */
import { SpoolError, jobNotFound } from '../../../../shared/errors';
import { ErrorCode, type BulkResult } from '../../../../shared/protocol';
import type { Job } from '../../../../shared/types';
import { invalidState } from '../../errors';
import type { SqliteContext } from './context';
import type { BulkInput, UpdateInput } from '../../../engine/validate/jobs';

function existing(ctx: SqliteContext, id: string): Job {
  const job = ctx.store.jobs.byId(id);
  if (!job) throw jobNotFound(id);
  return job;
}

/** queued/retrying → cancelled; running → cancel requested (the worker stops it); finished → error. */
export function cancel(ctx: SqliteContext, id: string): Job {
  const job = existing(ctx, id);
  const now = ctx.now();
  let updated: Job | undefined;
  if (job.state === 'queued' || job.state === 'retrying') updated = ctx.store.jobs.cancelWaiting(job, now);
  else if (job.state === 'running') updated = ctx.store.jobs.requestCancel(id, now);
  else throw invalidState(job, `Cannot cancel job ${id}: it is already finished (${job.state}). Retry it to run it again, or delete it.`);
  if (!updated) throw new Error(`Job ${id} changed while being cancelled`);
  ctx.events.job(updated);
  return updated;
}

/** dead/cancelled/completed → queued with a fresh attempt budget; the run history stays. */
export function retry(ctx: SqliteContext, id: string): Job {
  const job = existing(ctx, id);
  if (job.state === 'queued' || job.state === 'retrying' || job.state === 'running') {
    const advice = job.state === 'running' ? 'Cancel it first, or wait for it to finish.' : 'It will run when its turn comes; update its run time to run it sooner.';
    throw invalidState(job, `Cannot retry job ${id}: it is ${job.state}. ${advice}`);
  }
  // The job row is about to stop describing its completed attempt: the history gets its row.
  if (job.state === 'completed') ctx.store.runs.keepCompleted(id);
  const updated = ctx.store.jobs.retry(job, ctx.now());
  if (!updated) throw new Error(`Job ${id} changed while being retried`);
  ctx.events.job(updated);
  return updated;
}

export function update(ctx: SqliteContext, input: UpdateInput): Job {
  const job = existing(ctx, input.id);
  if (job.state !== 'queued' && job.state !== 'retrying') {
    const advice = job.state === 'running' ? 'Cancel it first, or wait for it to finish.' : 'Retry it to run it again.';
    throw invalidState(job, `Cannot update job ${input.id}: only queued or retrying jobs can change, and it is ${job.state}. ${advice}`);
  }
  if (input.maxAttempts !== null && input.maxAttempts <= job.attempts) {
    throw new SpoolError(
      ErrorCode.InvalidParams,
      `maxAttempts must be more than the ${job.attempts} attempt(s) job ${input.id} has made already (got ${input.maxAttempts})`,
      { field: 'maxAttempts', allowed: `${job.attempts + 1}..`, id: input.id },
    );
  }
  // The payload must suit the job's kind, which only the stored job knows.
  if (input.payload !== null) ctx.policy.checkPayload(job.kind, JSON.parse(input.payload), 'payload');
  const now = ctx.now();
  const runAt = input.runAt ?? (input.delayMs !== undefined ? now + input.delayMs : null);
  const updated = ctx.store.jobs.update({ id: input.id, priority: input.priority, runAt, payload: input.payload, maxAttempts: input.maxAttempts, tags: input.tags, now });
  if (!updated) throw new Error(`Job ${input.id} changed while being updated`);
  ctx.events.job(updated);
  return updated;
}

export function deleteJob(ctx: SqliteContext, id: string): void {
  const job = existing(ctx, id);
  if (job.state === 'running') throw invalidState(job, `Cannot delete job ${id}: it is running. Cancel it first, then delete it.`);
  if (!ctx.store.jobs.delete(id)) throw new Error(`Job ${id} changed while being deleted`);
  ctx.events.job(job, true);
}

/** The ids a bulk action applies to, resolved from ids or a filter (one queue, all matches). */
export function bulkIds(ctx: SqliteContext, input: BulkInput): string[] {
  if ('ids' in input) return input.ids;
  const ids: string[] = [];
  let after: { id: string; runAt: number } | undefined;
  for (;;) {
    const page = ctx.store.list.list({ ...input.filter, order: 'oldest', limit: ctx.policy.batchSize, after, now: ctx.now() });
    for (const job of page) ids.push(job.id);
    const last = page[page.length - 1];
    if (page.length < ctx.policy.batchSize || !last) return ids;
    after = { id: last.id, runAt: last.runAt };
  }
}

/**
 * Applies `action` to each id inside the caller's transaction. Each action checks the job before it
 * writes anything, so a refused one (SpoolError) leaves nothing half-done: it is collected, not thrown.
 */
export function applyEach(ids: string[], action: (id: string) => void, result: BulkResult): void {
  for (const id of ids) {
    try {
      action(id);
      result.count += 1;
    } catch (error) {
      if (!(error instanceof SpoolError)) throw error;
      result.errors.push({ id, code: error.code, message: error.message });
    }
  }
}
