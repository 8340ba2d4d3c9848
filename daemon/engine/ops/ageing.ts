/**
 * Priority ageing, written once for every store: a queue with ageing (`"1 per 10m"`) counts each
 * waiting job's priority higher for every interval it has waited since it became due (its run
 * time), so that low-priority work is not starved by a steady stream of higher-priority jobs.
 *
 * The raised priority is stored in the column claims order by, and the priority that was set is
 * kept beside it (what the job shows as its own): the claim statements and their index are
 * untouched, so a claim costs the same with ageing on or off. The upkeep recomputes a queue's
 * raised priorities with one statement per queue (`queueAgeJobs`), every interval of the
 * shortest ageing and at least once a minute, so a step is counted at most that late.
 */
import { LIMITS } from '../../../shared/protocol';
import { parseAgeing, type Ageing } from '../../../shared/domain/ageing';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/** Sets a queue's ageing (null: off, which gives every raised job back the priority it set). */
export function* setAgeing(c: OpContext, name: string, ageing: Ageing | null): Op<void> {
  yield* sql('queueSetAgeing', { name, step: ageing?.step ?? null, everyMs: ageing?.everyMs ?? null, now: c.now() });
  if (ageing === null) yield* sql('queueClearAgeing', name);
  // A changed ageing needs nothing more: the next pass recomputes every job from the priority it set.
}

/** What one ageing pass did: jobs whose claim priority changed, and the shortest interval of any queue's ageing (null when none ages). */
export interface AgeingPass {
  changed: number;
  shortestEveryMs: number | null;
}

/** One ageing pass over every queue with ageing: one statement per queue. */
export function* ageWaiting(c: OpContext): Op<AgeingPass> {
  const now = c.now();
  let changed = 0;
  let shortestEveryMs: number | null = null;
  for (const queue of yield* sql('queueList')) {
    if (queue.ageing == null) continue;
    const ageing = parseAgeing(queue.ageing);
    if (!ageing.ok || ageing.value === null) continue;
    const { step, everyMs } = ageing.value;
    shortestEveryMs = shortestEveryMs === null ? everyMs : Math.min(shortestEveryMs, everyMs);
    const n = yield* sql('queueAgeJobs', { name: queue.name, step, everyMs, maxPriority: LIMITS.maxPriority, now });
    if (n > 0) c.changes.queue(queue.name);
    changed += n;
  }
  return { changed, shortestEveryMs };
}
