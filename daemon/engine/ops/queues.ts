/**
 * Queues, written once for every store: a queue is created with the defaults by its first job.
 */
import type { QueueSettings } from '../../storage/mappers';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/** The queue's settings, creating it with the defaults if it does not exist. */
export function* ensureQueue(c: OpContext, name: string): Op<QueueSettings> {
  return (yield* sql('queueGet', name)) ?? (yield* createQueue(c, name));
}

/**
 * Creates the queue with the defaults after a read found none (the enqueue of one job reads
 * first itself: one generator less on the hottest path). Another daemon may create it between
 * the read and the insert: the insert then does nothing, and announcing the queue is that
 * daemon's.
 */
export function* createQueue(c: OpContext, name: string): Op<QueueSettings> {
  if (yield* sql('queueCreate', { name, defaults: c.policy.queueDefaults, now: c.now() })) c.changes.queue(name);
  const created = yield* sql('queueGet', name);
  if (!created) throw new Error(`Queue "${name}" was inserted but cannot be read back`);
  return created;
}
