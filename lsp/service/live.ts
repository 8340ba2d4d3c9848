/**
 * What a daemon knows, as the language service takes it: a snapshot handed in with each request.
 * Every part is optional, and absent means "not known" — no daemon answered, or it is an older one
 * without the method — so the checks that need it are skipped, never turned into warnings (an
 * unreachable daemon must not make a correct file look wrong).
 */
import type { LiveObject } from '../../shared/jobsfile';
import type { JobCounts } from '../../shared/types';

/** A queue on the daemon and how many jobs it holds per state. */
export interface LiveQueue {
  name: string;
  counts: JobCounts;
}

/** A snapshot of the daemon for one request. */
export interface LiveData {
  /** The daemon's queues (`queues.list`); undefined: no daemon answered. */
  queues?: readonly LiveQueue[];
  /**
   * The daemon's objects with their owners and last-applied values (`project.state`); undefined:
   * no daemon answered, or it does not have `project.state`.
   */
  objects?: readonly LiveObject[];
}

/** No daemon: every live check is skipped. */
export const NO_LIVE_DATA: LiveData = Object.freeze({});

/** A queue's counts in a few words, busiest states first: "3 queued · 1 dead", "empty". */
export function countsText(counts: JobCounts): string {
  const parts = [`${counts.queued} queued`];
  if (counts.running > 0) parts.push(`${counts.running} running`);
  if (counts.retrying > 0) parts.push(`${counts.retrying} retrying`);
  if (counts.dead > 0) parts.push(`${counts.dead} dead`);
  return parts.join(' · ');
}
