/**
 * The history the daemon keeps of each queue (docs/history.md): what its operations did, tallied
 * in memory per queue and minute as their transactions commit (no statement on the hot path), and
 * written as whole rows by `HistoryTally.rows` once every few seconds (Engine.flushHistory).
 *
 * Wait and run times go into a fixed histogram: bucket 0 holds 0 ms, bucket i ≥ 1 holds times in
 * [2^((i-1)/4), 2^(i/4)) ms, so a percentile read from it is at most 19% above the true one (and
 * never above the exact maximum, which is kept as well). Histograms of several minutes, or of
 * several daemons' rows of one minute, merge by adding their buckets.
 */
import type { HistoryPoint } from '../../shared/protocol';
import type { HistoryRow, HistoryStep } from '../storage/statements/history';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** How long history is kept, and whether at all. */
export interface HistoryOptions {
  /** Days of minute rows kept (default 7). */
  minuteDays: number;
  /** Days of hour rows kept (default 90). */
  hourDays: number;
}

export const HISTORY_DEFAULTS: HistoryOptions = { minuteDays: 7, hourDays: 90 };

/** An hour is rolled up from its minutes once it ended this long ago: every daemon has written its minutes by then. */
export const ROLLUP_AFTER_MS = DAY_MS;

/** Bucket counts by index. */
export type Histogram = Map<number, number>;

const LAST_BUCKET = 200;

export function bucketOf(ms: number): number {
  if (ms < 1) return 0;
  return Math.min(LAST_BUCKET, 1 + Math.floor(4 * Math.log2(ms)));
}

/** The upper bound of a bucket, in whole ms. */
function boundOf(bucket: number): number {
  return bucket === 0 ? 0 : Math.ceil(2 ** (bucket / 4)) - 1;
}

export function parseHistogram(text: string): Histogram {
  const out: Histogram = new Map();
  const parsed: unknown = JSON.parse(text);
  if (parsed !== null && typeof parsed === 'object') {
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'number') out.set(Number(k), v);
  }
  return out;
}

export function histogramText(h: Histogram): string {
  return JSON.stringify(Object.fromEntries([...h.entries()].sort((a, b) => a[0] - b[0])));
}

function addInto(into: Histogram, from: Histogram): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

/**
 * Several percentiles (0..1, ascending) of a histogram in one pass, each never above `max`; nulls
 * when it is empty. A histogram read from a row is in bucket order already (JSON objects keep
 * integer keys ascending): it is sorted only when merging made it otherwise.
 */
export function percentiles(h: Histogram, ps: readonly number[], max: number | null): (number | null)[] {
  let n = 0;
  let sorted = true;
  let previous = -1;
  for (const [bucket, count] of h) {
    n += count;
    if (bucket < previous) sorted = false;
    previous = bucket;
  }
  if (n === 0) return ps.map(() => null);
  const entries = sorted ? h : [...h.entries()].sort((a, b) => a[0] - b[0]);
  const out: (number | null)[] = [];
  let i = 0;
  let seen = 0;
  for (const [bucket, count] of entries) {
    seen += count;
    while (i < ps.length && seen >= Math.max(1, Math.ceil((ps[i] ?? 0) * n))) {
      out.push(max === null ? boundOf(bucket) : Math.min(max, boundOf(bucket)));
      i += 1;
    }
    if (i === ps.length) break;
  }
  while (out.length < ps.length) out.push(max);
  return out;
}

/** One queue's minute (or hour) as counted, before it is a row or a point. */
export interface Tally {
  queue: string;
  at: number;
  enqueued: number;
  started: number;
  completed: number;
  failed: number;
  dead: number;
  cancelled: number;
  wait: Histogram;
  waitMax: number | null;
  run: Histogram;
  runMax: number | null;
  backlog: number;
  running: number;
  /** When the backlog and running figures were read. */
  writtenAt: number;
}

export function emptyTally(queue: string, at: number): Tally {
  return { queue, at, enqueued: 0, started: 0, completed: 0, failed: 0, dead: 0, cancelled: 0, wait: new Map(), waitMax: null, run: new Map(), runMax: null, backlog: 0, running: 0, writtenAt: 0 };
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/** Adds a step to a tally. */
export function count(t: Tally, step: HistoryStep): void {
  t[step.type] += 1;
  if (step.ms === null) return;
  const ms = Math.max(0, Math.round(step.ms));
  if (step.type === 'started') {
    t.wait.set(bucketOf(ms), (t.wait.get(bucketOf(ms)) ?? 0) + 1);
    t.waitMax = maxOf(t.waitMax, ms);
  } else if (step.type !== 'enqueued') {
    t.run.set(bucketOf(ms), (t.run.get(bucketOf(ms)) ?? 0) + 1);
    t.runMax = maxOf(t.runMax, ms);
  }
}

export function toRow(t: Tally, daemon: string): HistoryRow {
  return {
    queue: t.queue,
    at: t.at,
    daemon,
    enqueued: t.enqueued,
    started: t.started,
    completed: t.completed,
    failed: t.failed,
    dead: t.dead,
    cancelled: t.cancelled,
    waitHist: histogramText(t.wait),
    waitMax: t.waitMax,
    runHist: histogramText(t.run),
    runMax: t.runMax,
    backlog: t.backlog,
    running: t.running,
    writtenAt: t.writtenAt,
  };
}

/**
 * Sums rows into one tally per queue and step start (`stepMs`: a minute or an hour): counts and
 * histograms add up; backlog and running are those of the latest-written row of the latest
 * minute (several daemons each read the same store's counters: their figures do not add up).
 */
export function merge(rows: readonly HistoryRow[], stepMs: number): Tally[] {
  const out = new Map<string, Tally & { lastAt: number }>();
  for (const r of rows) {
    const at = Math.floor(r.at / stepMs) * stepMs;
    const key = `${r.queue}\u0000${at}`;
    const t = out.get(key);
    if (!t) {
      // The first row of its step (with one daemon, the only one): taken as it is.
      out.set(key, {
        queue: r.queue,
        at,
        enqueued: r.enqueued,
        started: r.started,
        completed: r.completed,
        failed: r.failed,
        dead: r.dead,
        cancelled: r.cancelled,
        wait: parseHistogram(r.waitHist),
        waitMax: r.waitMax,
        run: parseHistogram(r.runHist),
        runMax: r.runMax,
        backlog: r.backlog,
        running: r.running,
        writtenAt: r.writtenAt,
        lastAt: r.at,
      });
      continue;
    }
    t.enqueued += r.enqueued;
    t.started += r.started;
    t.completed += r.completed;
    t.failed += r.failed;
    t.dead += r.dead;
    t.cancelled += r.cancelled;
    addInto(t.wait, parseHistogram(r.waitHist));
    addInto(t.run, parseHistogram(r.runHist));
    t.waitMax = maxOf(t.waitMax, r.waitMax);
    t.runMax = maxOf(t.runMax, r.runMax);
    if (r.at > t.lastAt || (r.at === t.lastAt && r.writtenAt >= t.writtenAt)) {
      t.lastAt = r.at;
      t.backlog = r.backlog;
      t.running = r.running;
      t.writtenAt = r.writtenAt;
    }
  }
  return [...out.values()].map(({ lastAt: _, ...t }) => t);
}

export function toPoint(t: Tally): HistoryPoint {
  const wait = percentiles(t.wait, [0.5, 0.95], t.waitMax);
  const run = percentiles(t.run, [0.5, 0.95], t.runMax);
  return {
    queue: t.queue,
    at: t.at,
    enqueued: t.enqueued,
    started: t.started,
    completed: t.completed,
    failed: t.failed,
    dead: t.dead,
    cancelled: t.cancelled,
    waitP50: wait[0] ?? null,
    waitP95: wait[1] ?? null,
    waitMax: t.waitMax,
    runP50: run[0] ?? null,
    runP95: run[1] ?? null,
    runMax: t.runMax,
    backlog: t.backlog,
    running: t.running,
  };
}

/**
 * What this engine counted and has not yet written for good: a tally per queue and minute,
 * cumulative, so that each write replaces this daemon's row of the minute. A minute is forgotten
 * once it has been written after it ended.
 */
export class HistoryTally {
  private readonly minutes = new Map<string, Tally>();
  /** Minutes counted into since they were last written, with a count of the steps added. */
  private readonly dirty = new Map<string, number>();

  add(step: HistoryStep): void {
    const at = Math.floor(step.at / MINUTE_MS) * MINUTE_MS;
    const key = `${step.queue}\u0000${at}`;
    let t = this.minutes.get(key);
    if (!t) {
      t = emptyTally(step.queue, at);
      this.minutes.set(key, t);
    }
    count(t, step);
    this.dirty.set(key, (this.dirty.get(key) ?? 0) + 1);
  }

  /**
   * What to write at `now`: the minutes counted into since their last write, and the minutes
   * that have ended since (written once more, with the backlog as it was when they ended).
   */
  pending(now: number): { key: string; tally: Tally; seq: number }[] {
    const current = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const out: { key: string; tally: Tally; seq: number }[] = [];
    for (const [key, tally] of this.minutes) {
      const seq = this.dirty.get(key);
      if (seq !== undefined || tally.at < current) out.push({ key, tally, seq: seq ?? 0 });
    }
    return out;
  }

  /** Those were written at `now`; a minute that had ended by then is done with, unless counted into meanwhile. */
  written(done: readonly { key: string; tally: Tally; seq: number }[], now: number): void {
    const current = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    for (const { key, tally, seq } of done) {
      if ((this.dirty.get(key) ?? 0) !== seq) continue;
      this.dirty.delete(key);
      if (tally.at < current) this.minutes.delete(key);
    }
  }
}
