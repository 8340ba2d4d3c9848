/**
 * The per-queue, per-state job counters (queue_counts) and the finished-attempt buckets of stats
 * (stat_buckets), kept by the store itself.
 *
 * Every statement in the store that inserts, deletes or moves jobs between states reports the
 * change here, and the changes of a whole write transaction are written to queue_counts in one
 * UPDATE per queue and state just before it commits (Store.write). A claim of 50 jobs or a group
 * commit of 1,000 enqueues thus costs the counters at most three row updates (queued, retrying,
 * running) or one, instead of the one or two per job that row triggers cost (the counters'
 * first form, dropped by migration 3). Finished attempts are summed per 10-second bucket the
 * same way.
 *
 * Within the transaction, reads of a counter add what is pending (a claim's concurrency check
 * must see the jobs an earlier claim of the same batch started). A savepoint that rolls back
 * takes its own changes back out (mark / rollbackTo), so a refused call inside a batch counts
 * nothing, as it writes nothing.
 */
import type { JobState } from '../../../shared/protocol/types';
import type { Db } from './db';

type Counter =
  | { kind: 'queue'; queue: string; state: JobState }
  | { kind: 'finished'; bucket: number; outcome: 'completed' | 'failed' }
  /** queues.running_extra_weight: what the queue's running jobs weigh beyond one each (migration 9). */
  | { kind: 'weight'; queue: string };

function queueKey(queue: string, state: JobState): string {
  return `q\u0000${queue}\u0000${state}`;
}

interface Change {
  key: string;
  delta: number;
}

interface Total {
  counter: Counter;
  delta: number;
}

export class PendingCounts {
  /** Every change in order, for rolling back to a savepoint. */
  private readonly changes: Change[] = [];
  /** The same, summed per counter. */
  private readonly totals = new Map<string, Total>();
  private readonly bumpStmt;
  private readonly bucketStmt;
  private readonly weightStmt;

  constructor(db: Db) {
    this.weightStmt = db.prepare('UPDATE queues SET running_extra_weight = running_extra_weight + @delta WHERE name = @queue');
    this.bumpStmt = db.prepare('UPDATE queue_counts SET count = count + @delta WHERE queue = @queue AND state = @state');
    this.bucketStmt = db.prepare(`
      INSERT INTO stat_buckets (bucket, completed, failed) VALUES (@bucket, @completed, @failed)
      ON CONFLICT (bucket) DO UPDATE SET completed = completed + excluded.completed, failed = failed + excluded.failed`);
  }

  /** `delta` more jobs of `queue` are in `state`. */
  add(queue: string, state: JobState, delta: number): void {
    this.change(queueKey(queue, state), delta, () => ({ kind: 'queue', queue, state }));
  }

  /**
   * Jobs of `queue` weighing `extra` beyond one each (the sum of weight - 1) started (positive)
   * or stopped (negative) running. Jobs of weight 1 add nothing, and write nothing.
   */
  runningWeight(queue: string, extra: number): void {
    this.change(`w\u0000${queue}`, extra, () => ({ kind: 'weight', queue }));
  }

  /** What the open transaction has changed of a queue's running extra weight so far. */
  pendingWeight(queue: string): number {
    return this.totals.get(`w\u0000${queue}`)?.delta ?? 0;
  }

  /** `n` more attempts finished with `outcome` in the stats bucket `bucket`. */
  finished(bucket: number, outcome: 'completed' | 'failed', n = 1): void {
    this.change(`f\u0000${bucket}\u0000${outcome}`, n, () => ({ kind: 'finished', bucket, outcome }));
  }

  private change(key: string, delta: number, counter: () => Counter): void {
    if (delta === 0) return;
    this.changes.push({ key, delta });
    const total = this.totals.get(key);
    if (total) total.delta += delta;
    else this.totals.set(key, { counter: counter(), delta });
  }

  /** `n` jobs of `queue` went from `from` to `to`. */
  move(queue: string, from: JobState, to: JobState, n = 1): void {
    if (from === to) return;
    this.add(queue, from, -n);
    this.add(queue, to, n);
  }

  /** Attempts the open transaction has finished so far, in buckets from `fromBucket` on. */
  finishedSince(fromBucket: number): { completed: number; failed: number } {
    const sum = { completed: 0, failed: 0 };
    for (const { counter, delta } of this.totals.values()) {
      if (counter.kind === 'finished' && counter.bucket >= fromBucket) sum[counter.outcome] += delta;
    }
    return sum;
  }

  /** What the open transaction has changed for one counter so far. */
  pending(queue: string, state: JobState): number {
    return this.totals.get(queueKey(queue, state))?.delta ?? 0;
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
    for (const { counter, delta } of this.totals.values()) {
      if (delta === 0) continue;
      if (counter.kind === 'queue') this.bumpStmt.run({ queue: counter.queue, state: counter.state, delta });
      else if (counter.kind === 'weight') this.weightStmt.run({ queue: counter.queue, delta });
      else this.bucketStmt.run({ bucket: counter.bucket, completed: counter.outcome === 'completed' ? delta : 0, failed: counter.outcome === 'failed' ? delta : 0 });
    }
    this.clear();
  }

  /** Forgets everything pending: after a flush, or when the whole transaction rolled back. */
  clear(): void {
    this.changes.length = 0;
    this.totals.clear();
  }
}
