/**
 * Enqueueing: defaults from the queue, idempotency, the insert.
 */
import type { EnqueueResult } from '../../../shared/protocol';
import type { QueueSettings } from '../../store';
import type { EngineContext } from '../context';
import { mergedBackoff, type EnqueueInput } from '../validate/jobs';
import { ensureQueue } from './queues';

/**
 * One job, inside the caller's write transaction. A batch passes `queues`, the settings it has
 * read already in this transaction, so a thousand jobs to one queue read its row once.
 */
export function enqueueOne(ctx: EngineContext, input: EnqueueInput, queues?: Map<string, QueueSettings>): EnqueueResult {
  // Same key, same job: the first one wins and is returned as it is now, never overwritten.
  if (input.idempotencyKey !== null) {
    const existing = ctx.store.jobs.byIdempotencyKey(input.idempotencyKey);
    if (existing) return { job: existing, created: false };
  }
  let queue = queues?.get(input.queue);
  if (queue === undefined) {
    queue = ensureQueue(ctx, input.queue);
    queues?.set(input.queue, queue);
  }
  const now = ctx.now();
  const backoff = input.backoffField === null ? { ...queue.defaultBackoff, ...input.backoff } : mergedBackoff(queue.defaultBackoff, input.backoff, input.backoffField);
  const job = ctx.store.jobs.insert({
    id: ctx.ids.next(),
    queue: input.queue,
    kind: input.kind,
    payload: input.payload,
    priority: input.priority,
    runAt: input.runAt ?? now + (input.delayMs ?? 0),
    maxAttempts: input.maxAttempts ?? queue.defaultMaxAttempts,
    backoffStrategy: backoff.strategy,
    backoffBaseMs: backoff.baseMs,
    backoffCapMs: backoff.capMs,
    backoffJitter: backoff.jitter,
    timeoutMs: input.timeoutMs ?? queue.defaultTimeoutMs,
    idempotencyKey: input.idempotencyKey,
    tags: input.tags,
    context: input.context,
    now,
  });
  ctx.events.job(job);
  return { job, created: true };
}
