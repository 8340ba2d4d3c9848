/**
 * What a daemon knows, as the language service takes it: a snapshot handed in with each request.
 * Every part is optional, and absent means "not known" — no daemon answered, or it is an older one
 * without the method — so the checks that need it are skipped, never turned into warnings (an
 * unreachable daemon must not make a correct file look wrong).
 */
import { countsText } from '../../shared/domain/present';
import type { LiveObject } from '../../shared/jobsfile';
import type { JobCounts } from '../../shared/protocol/types';
import type { WorkflowRun } from '../../shared/protocol/workflows';

/** A queue on the daemon and how many jobs it holds per state. */
export interface LiveQueue {
  name: string;
  counts: JobCounts;
  /** Queued jobs whose start time is ahead (a part of counts.queued); absent: none known. */
  delayed?: number;
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
  /**
   * The daemon's address (`tls://host:port`) when it runs on another machine, so the lenses say
   * where Apply goes; undefined for the daemon on this machine, which goes without saying.
   */
  remote?: string;
  /**
   * The last run of each workflow of the file that has run, by workflow name (`workflows.runs`);
   * undefined: no daemon answered, or it has no workflow runs.
   */
  lastRuns?: ReadonlyMap<string, WorkflowRun>;
}

/** No daemon: every live check is skipped. */
export const NO_LIVE_DATA: LiveData = Object.freeze({});

/**
 * A queue's counts in a few words, as the Queues view and the CLI say them ("3 queued · 1 dead",
 * "empty"); `completed` adds the completed count, for a hover that has the room.
 */
export function liveCountsText(queue: LiveQueue, options: { completed?: boolean } = {}): string {
  return countsText(queue.counts, queue.delayed ?? 0, options);
}
