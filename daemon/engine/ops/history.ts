/**
 * Operations over the queue history (daemon/engine/history.ts, docs/history.md): writing what the
 * engine tallied, reading it back per minute or hour, rolling minutes up to hours, and pruning.
 */
import type { HistoryPoint } from '../../../shared/protocol';
import { sql, type Op } from '../../storage/statements';
import type { HistoryRow } from '../../storage/statements/history';
import { queueNotFound } from '../errors';
import { DAY_MS, HOUR_MS, MINUTE_MS, ROLLUP_AFTER_MS, merge, toPoint, toRow, type HistoryOptions, type Tally } from '../history';
import type { OpContext } from './context';

/**
 * Writes this daemon's minutes, each with the backlog (queued and retrying) and the running jobs
 * of its queue as the store's counters say now: one statement for all of them.
 */
export function* write(c: OpContext, tallies: readonly Tally[], daemon: string): Op<void> {
  if (tallies.length === 0) return;
  const counters = yield* sql('counterAll');
  const now = c.now();
  const rows: HistoryRow[] = tallies.map((t) => {
    const counts = counters.get(t.queue);
    return toRow({ ...t, backlog: counts ? counts.queued + counts.retrying : 0, running: counts?.running ?? 0, writtenAt: now }, daemon);
  });
  yield* sql('historyMinutesPut', rows);
}

/** A validated `stats.history` request. */
export interface HistoryQuery {
  queue: string | null;
  from: number;
  to: number;
  step: 'minute' | 'hour';
}

/**
 * The points of a range: minutes from the minute rows; hours from the hour rows up to the latest
 * hour rolled up, and after it from the minute rows (summed per hour here).
 */
export function* read(q: HistoryQuery): Op<HistoryPoint[]> {
  if (q.queue !== null && (yield* sql('queueGet', q.queue)) === undefined) throw queueNotFound(q.queue);
  if (q.step === 'minute') return merge(yield* sql('historyMinutes', { queue: q.queue, from: q.from, to: q.to }), MINUTE_MS).map(toPoint);
  const latest = yield* sql('historyHoursLatest');
  const split = Math.max(q.from, latest === null ? q.from : Math.min(q.to, latest + HOUR_MS));
  const hours = split > q.from ? yield* sql('historyHours', { queue: q.queue, from: q.from, to: split }) : [];
  const minutes = split < q.to ? yield* sql('historyMinutes', { queue: q.queue, from: split, to: q.to }) : [];
  return merge([...hours, ...minutes], HOUR_MS)
    .sort((a, b) => a.at - b.at || a.queue.localeCompare(b.queue))
    .map(toPoint);
}

/**
 * Rolls up every hour that ended a day ago or more and is not rolled up yet (from the minutes
 * still kept), then deletes minutes and hours older than kept. How many hour rows it wrote.
 */
export function* rollupAndPrune(c: OpContext, options: HistoryOptions): Op<number> {
  const now = c.now();
  const until = Math.floor((now - ROLLUP_AFTER_MS) / HOUR_MS) * HOUR_MS;
  const latest = yield* sql('historyHoursLatest');
  const from = latest === null ? Math.floor((now - options.minuteDays * DAY_MS) / HOUR_MS) * HOUR_MS : latest + HOUR_MS;
  let written = 0;
  if (from < until) {
    const hours = merge(yield* sql('historyMinutes', { queue: null, from, to: until }), HOUR_MS);
    yield* sql('historyHoursPut', hours.map((t) => toRow(t, '')));
    written = hours.length;
  }
  yield* sql('historyPrune', { minutesBefore: now - options.minuteDays * DAY_MS, hoursBefore: now - options.hourDays * DAY_MS });
  return written;
}
