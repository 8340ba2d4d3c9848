/**
 * A user's actions on jobs: cancel, retry, update, delete, and their bulk forms.
 */
import { SpoolError, jobNotFound } from '../../../../shared/errors';
import type { BulkResult } from '../../../../shared/protocol';
import type { Job } from '../../../../shared/types';
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
  const updated = ctx.policy.rules.cancel(job) === 'cancel' ? ctx.store.jobs.cancelWaiting(job, now) : ctx.store.jobs.requestCancel(id, now);
  if (!updated) throw new Error(`Job ${id} changed while being cancelled`);
  ctx.events.job(updated);
  return updated;
}

/** dead/cancelled/completed → queued with a fresh attempt budget; the run history stays. */
export function retry(ctx: SqliteContext, id: string): Job {
  const job = existing(ctx, id);
  ctx.policy.rules.checkRetry(job);
  // The job row is about to stop describing its completed attempt: the history gets its row.
  if (job.state === 'completed') ctx.store.runs.keepCompleted(id);
  const updated = ctx.store.jobs.retry(job, ctx.now());
  if (!updated) throw new Error(`Job ${id} changed while being retried`);
  ctx.events.job(updated);
  return updated;
}

export function update(ctx: SqliteContext, input: UpdateInput): Job {
  const job = existing(ctx, input.id);
  ctx.policy.rules.checkUpdate(job, input);
  const now = ctx.now();
  const runAt = input.runAt ?? (input.delayMs !== undefined ? now + input.delayMs : null);
  const updated = ctx.store.jobs.update({ id: input.id, priority: input.priority, runAt, payload: input.payload, maxAttempts: input.maxAttempts, tags: input.tags, now });
  if (!updated) throw new Error(`Job ${input.id} changed while being updated`);
  ctx.events.job(updated);
  return updated;
}

export function deleteJob(ctx: SqliteContext, id: string): void {
  const job = existing(ctx, id);
  ctx.policy.rules.checkDelete(job);
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
