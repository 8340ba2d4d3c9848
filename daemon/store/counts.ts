/**
 * The per-queue, per-state job counters (queue_counts), kept by the store itself.
 *
 * Every statement in the store that inserts, deletes or moves jobs between states reports the
 * change here, and the changes of a whole write transaction are written to queue_counts in one
 * UPDATE per queue and state just before it commits (Store.write). A claim of 50 jobs or a group
 * commit of 1,000 enqueues thus costs the counters two or one row updates instead of one or two
 * per job, which is what row triggers cost (they were the counters' first form; migration 3
 * dropped them).
 *
 * Within the transaction, reads of a counter add what is pending (a claim's concurrency check
 * must see the jobs an earlier claim of the same batch started). A savepoint that rolls back
 * takes its own changes back out (mark / rollbackTo), so a refused call inside a batch counts
 * nothing, as it writes nothing.
 */
import type { JobState } from '../../shared/types';
import type { Db } from './db';

interface Change {
  key: string;
  queue: string;
  state: JobState;
  delta: number;
}

export class PendingCounts {
  /** Every change in order, for rolling back to a savepoint. */
  private readonly changes: Change[] = [];
  /** The same, summed per queue and state. */
  private readonly totals = new Map<string, Change>();
  private readonly bumpStmt;

  constructor(db: Db) {
    this.bumpStmt = db.prepare('UPDATE queue_counts SET count = count + @delta WHERE queue = @queue AND state = @state');
  }

  /** `delta` more jobs of `queue` are in `state`. */
  add(queue: string, state: JobState, delta: number): void {
    if (delta === 0) return;
    const key = `${queue}\u0000${state}`;
    this.changes.push({ key, queue, state, delta });
    const total = this.totals.get(key);
    if (total) total.delta += delta;
    else this.totals.set(key, { key, queue, state, delta });
  }

  /** `n` jobs of `queue` went from `from` to `to`. */
  move(queue: string, from: JobState, to: JobState, n = 1): void {
    if (from === to) return;
    this.add(queue, from, -n);
    this.add(queue, to, n);
  }

  /** What the open transaction has changed for one counter so far. */
  pending(queue: string, state: JobState): number {
    return this.totals.get(`${queue}\u0000${state}`)?.delta ?? 0;
  }

  get empty(): boolean {
    return this.changes.length === 0;
  }

  mark(): number {
    return this.changes.length;
  }

  /** Takes back every change made since `mark` (their savepoint rolled back). */
  rollbackTo(mark: number): void {
    while (this.changes.length > mark) {
      const change = this.changes.pop();
      if (!change) break;
      const total = this.totals.get(change.key);
      if (total) total.delta -= change.delta;
    }
  }

  /** Writes the pending changes. Inside the write transaction, right before it commits. */
  flush(): void {
    for (const total of this.totals.values()) {
      if (total.delta !== 0) this.bumpStmt.run({ queue: total.queue, state: total.state, delta: total.delta });
    }
    this.clear();
  }

  /** Forgets everything pending: after a flush, or when the whole transaction rolled back. */
  clear(): void {
    this.changes.length = 0;
    this.totals.clear();
  }
}
