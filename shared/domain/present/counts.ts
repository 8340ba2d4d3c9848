/**
 * A queue's counts in words, one way in the Queues view, the language server's code lens and
 * hover, and `spool queues`: `queued` counts the due jobs only, and `delayed` the queued ones
 * whose start time is still ahead (the protocol counts those inside `queued` as well, so they
 * are taken out here rather than shown twice).
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
  add(counts.dead, 'dead');
  if (options.completed === true || parts.length === 0) add(counts.completed, 'completed');
  return parts.length === 0 ? 'empty' : parts.join(' · ');
}

/** A queue's description: its counts, after "paused · " when it is paused. */
export function queueText(queue: { paused: boolean; counts: JobCounts; delayed: number }): string {
  return `${queue.paused ? 'paused · ' : ''}${countsText(queue.counts, queue.delayed)}`;
}
