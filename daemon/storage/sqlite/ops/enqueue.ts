/**
 * Enqueueing: defaults from the queue, idempotency, the insert.
 */
import type { EnqueueResult } from '../../../../shared/protocol';
import type { Job } from '../../../../shared/types';
import type { JobInsert, QueueSettings } from '..';
import type { SqliteContext } from './context';
import type { EnqueueInput } from '../../../engine/validate/jobs';
import { ensureQueue } from './queues';
import { jobInsert } from '../../jobInsert';

function toInsert(ctx: SqliteContext, input: EnqueueInput, queue: QueueSettings, now: number): JobInsert {
  return jobInsert(ctx.policy, input, queue, now);
}

/** One job, inside the caller's write transaction. */
export function enqueueOne(ctx: SqliteContext, input: EnqueueInput): EnqueueResult {
  // Same key, same job: the first one wins and is returned as it is now, never overwritten.
  if (input.idempotencyKey !== null) {
    const existing = ctx.store.jobs.byIdempotencyKey(input.idempotencyKey);
    if (existing) return { job: existing, created: false };
  }
  const job = ctx.store.jobs.insert(toInsert(ctx, input, ensureQueue(ctx, input.queue), ctx.now()));
  ctx.events.job(job);
  return { job, created: true };
}

/**
 * Many jobs, inside the caller's write transaction, inserted together (JobStatements.insertMany).
 * Each queue's settings are read once. A key repeated within the batch gets the job its first
 * use created, as it would one call at a time.
 */
export function enqueueMany(ctx: SqliteContext, inputs: readonly EnqueueInput[]): EnqueueResult[] {
  const now = ctx.now();
  const queues = new Map<string, QueueSettings>();
  /** Per input: the job that already had its key, or the index of its row in `inserts`. */
  const slots: ({ existing: Job } | { insert: number; created: boolean })[] = [];
  const inserts: JobInsert[] = [];
  const insertedKeys = new Map<string, number>();
  for (const input of inputs) {
    const key = input.idempotencyKey;
    if (key !== null) {
      const inBatch = insertedKeys.get(key);
      if (inBatch !== undefined) {
        slots.push({ insert: inBatch, created: false });
        continue;
      }
      const existing = ctx.store.jobs.byIdempotencyKey(key);
      if (existing) {
        slots.push({ existing });
        continue;
      }
    }
    let queue = queues.get(input.queue);
    if (queue === undefined) {
      queue = ensureQueue(ctx, input.queue);
      queues.set(input.queue, queue);
    }
    if (key !== null) insertedKeys.set(key, inserts.length);
    slots.push({ insert: inserts.length, created: true });
    inserts.push(toInsert(ctx, input, queue, now));
  }
  const jobs = ctx.store.jobs.insertMany(inserts);
  for (const job of jobs) ctx.events.job(job);
  return slots.map((slot) => {
    if ('existing' in slot) return { job: slot.existing, created: false };
    const job = jobs[slot.insert];
    if (job === undefined) throw new Error(`enqueueMany lost the job of row ${slot.insert}`);
    return { job, created: slot.created };
  });
}
