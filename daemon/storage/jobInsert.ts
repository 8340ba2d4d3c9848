import type { EnqueueInput } from '../engine/validate/jobs';
import type { StoragePolicy } from './backend';
import type { Queue } from '../../shared/types';

/**
 * The row a new job is inserted as. In a module of its own because both the statements
 * (jobs.ts) and the row mappers (mappers.ts) need it, and jobs.ts imports the mappers.
 */

/** The stored form of a new job: JSON already serialized, defaults already resolved. */
export interface JobInsert {
  id: string;
  queue: string;
  kind: string;
  payload: string;
  priority: number;
  weight: number;
  runAt: number;
  maxAttempts: number;
  backoffStrategy: string;
  backoffBaseMs: number;
  backoffCapMs: number;
  backoffJitter: number;
  timeoutMs: number;
  idempotencyKey: string | null;
  tags: string;
  context: string | null;
  now: number;
}

/** The stored form of a new job: the queue's defaults filled in (the same for every store). */
export function jobInsert(policy: StoragePolicy, input: EnqueueInput, queue: Pick<Queue, 'defaultBackoff' | 'defaultMaxAttempts' | 'defaultTimeoutMs'>, now: number): JobInsert {
  const backoff = input.backoffField === null ? { ...queue.defaultBackoff, ...input.backoff } : policy.mergeBackoff(queue.defaultBackoff, input.backoff, input.backoffField);
  return {
    id: policy.newId(),
    queue: input.queue,
    kind: input.kind,
    payload: input.payload,
    priority: input.priority,
    weight: input.weight,
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
  };
}
