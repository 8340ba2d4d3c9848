/**
 * Queues, written once for every store: a queue is created with the defaults on first use.
 */
import type { QueueSettings } from '../../storage/mappers';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/** The queue's settings, creating it with the defaults if it does not exist. Inside a write transaction. */
export function* ensureQueue(c: OpContext, name: string): Op<QueueSettings> {
  const existing = yield* sql('queueGet', name);
  if (existing) return existing;
  // Another daemon may have created it a moment ago: then it is theirs to announce.
  if (yield* sql('queueCreate', { name, defaults: c.policy.queueDefaults, now: c.now() })) c.changes.queue(name);
  const created = yield* sql('queueGet', name);
  if (!created) throw new Error(`Queue "${name}" was inserted but cannot be read back`);
  return created;
}
