/**
 * The queue work of an enqueue (a queue created on first use) and of an apply (listing,
 * configuring, deleting), made inside their one transaction (the engine's own queue operations
 * are in daemon/engine/ops/queues.ts).
 */
import { SpoolError } from '../../../../shared/protocol/errors';
import { ErrorCode } from '../../../../shared/protocol';
import type { JobState, Queue } from '../../../../shared/protocol/types';
import { limitColumns, withCounts, type QueueSettings } from '..';
import { queueNotFound } from '../../../engine/errors';
import type { SqliteContext } from './context';
import type { ConfigureInput } from '../../../engine/validate/queues';
import { changedLimits } from '../../queueLimits';

/** The queue's settings, creating it with the defaults if it does not exist. Inside a write transaction. */
export function ensureQueue(ctx: SqliteContext, name: string): QueueSettings {
  const existing = ctx.store.queues.get(name);
  if (existing) return existing;
  const now = ctx.now();
  ctx.store.queues.insert({
    name,
    concurrency: ctx.policy.queueDefaults.concurrency,
    ratePerSecond: null,
    rateBurst: null,
    paused: 0,
    defaultMaxAttempts: ctx.policy.queueDefaults.maxAttempts,
    backoffStrategy: ctx.policy.queueDefaults.backoff.strategy,
    backoffBaseMs: ctx.policy.queueDefaults.backoff.baseMs,
    backoffCapMs: ctx.policy.queueDefaults.backoff.capMs,
    backoffJitter: ctx.policy.queueDefaults.backoff.jitter,
    defaultTimeoutMs: ctx.policy.queueDefaults.timeoutMs,
    retentionMs: ctx.policy.queueDefaults.retentionMs,
    now,
  });
  ctx.events.queue(name);
  const created = ctx.store.queues.get(name);
  if (!created) throw new Error(`Queue "${name}" was inserted but cannot be read back`);
  return created;
}

export function describeQueue(ctx: SqliteContext, settings: QueueSettings): Queue {
  return withCounts(settings, ctx.store.queues.counts(settings.name), ctx.store.queues.delayed(settings.name, ctx.now()));
}

export function getQueue(ctx: SqliteContext, name: string): Queue {
  const settings = ctx.store.queues.get(name);
  if (!settings) throw queueNotFound(name);
  return describeQueue(ctx, settings);
}

export function listQueues(ctx: SqliteContext): Queue[] {
  const counts = ctx.store.queues.allCounts();
  const now = ctx.now();
  return ctx.store.queues.all().map((settings) => {
    const c = counts.get(settings.name);
    return withCounts(settings, c ?? ctx.store.queues.counts(settings.name), ctx.store.queues.delayed(settings.name, now));
  });
}

export function configureQueue(ctx: SqliteContext, input: ConfigureInput): Queue {
  const current = ensureQueue(ctx, input.name);
  const backoff = ctx.policy.mergeBackoff(current.defaultBackoff, input.defaultBackoff ?? {}, 'defaultBackoff');
  const rate = input.rateLimit === undefined ? current.rateLimit : input.rateLimit;
  ctx.store.queues.update({
    name: input.name,
    concurrency: input.concurrency === undefined ? current.concurrency : input.concurrency,
    ratePerSecond: rate?.perSecond ?? null,
    rateBurst: rate?.burst ?? null,
    defaultMaxAttempts: input.defaultMaxAttempts ?? current.defaultMaxAttempts,
    backoffStrategy: backoff.strategy,
    backoffBaseMs: backoff.baseMs,
    backoffCapMs: backoff.capMs,
    backoffJitter: backoff.jitter,
    defaultTimeoutMs: input.defaultTimeoutMs ?? current.defaultTimeoutMs,
    retentionMs: input.retentionMs === undefined ? current.retentionMs : input.retentionMs,
    ...limitColumns(changedLimits(current.limits, input.limits)),
    now: ctx.now(),
  });
  ctx.events.queue(input.name);
  return getQueue(ctx, input.name);
}

/** One batch of a purge. */
export function purgeBatch(ctx: SqliteContext, name: string, states: JobState[]): number {
  const deleted = ctx.store.upkeep.queuePurge({ name, states, limit: ctx.policy.batchSize });
  if (deleted > 0) ctx.events.queue(name);
  return deleted;
}

/** Refuses while jobs run, and without `force` while any job is left. */
export function checkQueueDeletable(ctx: SqliteContext, name: string, force: boolean): void {
  if (!ctx.store.queues.get(name)) throw queueNotFound(name);
  const counts = ctx.store.queues.counts(name);
  if (counts.running > 0) {
    throw new SpoolError(ErrorCode.InvalidState, `Cannot delete queue "${name}": ${counts.running} job(s) are running. Pause it, wait for them or cancel them, then delete.`, {
      queue: name,
    });
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (total > 0 && !force) {
    throw new SpoolError(ErrorCode.InvalidState, `Queue "${name}" still has ${total} job(s). Purge it first, or delete it with force (spool queue ${name} delete --force; queues.delete with force: true) to remove them too.`, { queue: name });
  }
}

export function deleteQueueRow(ctx: SqliteContext, name: string): void {
  ctx.store.queues.delete(name);
  ctx.events.queue(name, true);
}
