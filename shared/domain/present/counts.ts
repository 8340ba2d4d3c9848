/**
 * A queue's counts in words, one way everywhere they are shown: the Queues view, the status bar
 * and its tooltip, the queue pickers of Enqueue Job and Create Schedule, the language server's
 * code lens and hover, and `spool queues` / `spool stats`. Each word means one thing:
 *
 * - `queued`: due jobs waiting for a worker (their start time has come);
 * - `delayed`: queued jobs whose start time is still ahead (the protocol counts those inside
 *   `queued` as well, so they are taken out here rather than shown twice);
 * - `retrying`: jobs waiting for their next attempt after a failure;
 * - `held`: waiting jobs a user has put on hold (never started until released);
 * - `running`, `dead`, `completed`, `cancelled`: as the states say.
 */
import type { JobCounts } from '../../protocol/types';

/** Queued jobs that may start now: the queued count less the delayed ones. */
export function dueCount(counts: Pick<JobCounts, 'queued'>, delayed: number): number {
  return Math.max(0, counts.queued - delayed);
}

/**
 * "3 running · 12 queued · 2 delayed · 1 dead": the states with jobs that are not finished, busiest
 * first, then the dead ones; "40 completed" or "empty" when nothing waits, runs or died. With
 * `completed`, the completed count ends the line whenever it is not zero (a hover has the room).
 */
export function countsText(counts: JobCounts, delayed = 0, options: { completed?: boolean } = {}): string {
  const parts: string[] = [];
  const add = (n: number, words: string): void => {
    if (n > 0) parts.push(`${n} ${words}`);
  };
  add(counts.running, 'running');
  add(dueCount(counts, delayed), 'queued');
  add(delayed, 'delayed');
  add(counts.retrying, 'retrying');
  // A daemon from before the held state sends no count for it.
  add(counts.held ?? 0, 'held');
  add(counts.dead, 'dead');
  if (options.completed === true || parts.length === 0) add(counts.completed, 'completed');
  return parts.length === 0 ? 'empty' : parts.join(' · ');
}

/** A queue's description: its counts, after "paused · " when it is paused. */
export function queueText(queue: { paused: boolean; counts: JobCounts; delayed: number }): string {
  return `${queue.paused ? 'paused · ' : ''}${countsText(queue.counts, queue.delayed)}`;
}

/** The delayed jobs of several queues added up (`stats.get` gives them per queue only). */
export function delayedTotal(queues: readonly { delayed: number }[]): number {
  return queues.reduce((sum, q) => sum + q.delayed, 0);
}

/**
 * The counts of the status bar's tooltip, one row per queue, in the words of `countsText`:
 * running, queued (due), delayed, retrying, dead.
 */
export function countColumns(counts: JobCounts, delayed: number): { running: number; queued: number; delayed: number; retrying: number; dead: number } {
  return { running: counts.running, queued: dueCount(counts, delayed), delayed, retrying: counts.retrying, dead: counts.dead };
}
