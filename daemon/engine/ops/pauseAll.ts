/**
 * Pausing every queue at once (`spool pause --all`), written once for every store: a daemon-wide
 * setting in the store, so that every daemon sharing it (several on PostgreSQL) stops claiming;
 * running jobs go on to their end. Each claim reads it in its own transaction: one primary-key
 * read, which on PostgreSQL is one more statement per claim.
 */
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/** The setting's name in the store's `settings` table. */
const CLAIMS_PAUSED = 'claimsPaused';

/** Whether every queue is paused. */
export function* allPaused(): Op<boolean> {
  return (yield* sql('settingGet', CLAIMS_PAUSED)) === 'true';
}

/** Pauses (or resumes) every queue; each queue is reported changed, so that waiting claims and views look again. */
export function* setAllPaused(c: OpContext, paused: boolean): Op<boolean> {
  yield* sql('settingSet', { name: CLAIMS_PAUSED, value: String(paused), now: c.now() });
  for (const queue of yield* sql('queueList')) c.changes.queue(queue.name);
  return paused;
}
