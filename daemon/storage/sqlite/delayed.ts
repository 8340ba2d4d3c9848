/**
 * How many of a queue's queued jobs wait for a run time still to come ("delayed" in stats and
 * queue listings). Unlike the per-state counters it depends on the clock, so it cannot be kept
 * up to date by the writes alone; it is counted over the `jobs_due` index. That count grows
 * with the number of delayed jobs (a million took ~0.5 s before the index covered it, 80-150 ms
 * after), and stats are read several times a second while a subscriber watches.
 *
 * So each queue's count is kept with the earliest run time among the jobs it counted, and
 * reused while nothing could have changed it:
 * - time: until that earliest run time, no delayed job has become due;
 * - this connection's writes: every store statement that adds a delayed job or may remove one
 *   (an insert with a run time to come, update, cancel, delete, purge, a queue's deletion) calls
 *   `forget`, and a rolled-back transaction `clear`s everything;
 * - other processes: `PRAGMA data_version` moves when another connection commits.
 * A claim needs no forgetting: it only takes due jobs, which the count never held, and a retry
 * puts a job back with its run time now, not to come. Both hold only while the clock does not
 * step back below the time they were made at: so they `noteWrite` their time, and no kept count
 * is reused before the clock is past every time written with. A count made inside a write
 * transaction may include its uncommitted writes; if it rolls back, Store.write clears every
 * kept count.
 */
import type { Db } from './db';
import { scalarInt, scalarIntOrNull, toRow } from './row';

interface Kept {
  count: number;
  /** When it was counted: a clock that stepped back since cannot reuse it. */
  at: number;
  /** The earliest run time among the counted jobs; the count holds while now is before it. */
  until: number;
  dataVersion: number;
}

export class DelayedCounts {
  private readonly countStmt;
  private readonly dataVersionStmt;
  private readonly kept = new Map<string, Kept>();
  /** The latest clock time a claim or retry was made at. */
  private latestWrite = -Infinity;

  constructor(db: Db) {
    // `run_at > created_at` and the state list are the index's own WHERE, which lets SQLite use
    // it; the index holds created_at, so the count never reads the table.
    this.countStmt = db.prepare(`
      SELECT count(*) AS count, min(run_at) AS next FROM jobs INDEXED BY jobs_due
      WHERE queue = @queue AND state IN ('queued', 'retrying') AND run_at > created_at AND state = 'queued' AND run_at > @now`);
    this.dataVersionStmt = db.prepare('PRAGMA data_version').pluck();
  }

  get(queue: string, now: number): number {
    const dataVersion = scalarInt(this.dataVersionStmt.get(), 'data_version');
    const kept = this.kept.get(queue);
    if (kept && kept.dataVersion === dataVersion && now >= kept.at && now >= this.latestWrite && now < kept.until) return kept.count;
    const row = toRow(this.countStmt.get({ queue, now }), 'delayed count');
    const count = scalarInt(row.get('count'), 'delayed count');
    this.kept.set(queue, { count, at: now, until: scalarIntOrNull(row.get('next'), 'next run time') ?? Infinity, dataVersion });
    return count;
  }

  /** A claim or a retry was made at `now` (a Math.max: cheap enough for every claim). */
  noteWrite(now: number): void {
    if (now > this.latestWrite) this.latestWrite = now;
  }

  /** A write may have added or removed a delayed job of the queue. */
  forget(queue: string): void {
    this.kept.delete(queue);
  }

  /** After a rollback: what was forgotten inside it is forgotten still, and nothing else is known. */
  clear(): void {
    this.kept.clear();
  }
}
