/**
 * What the dashboard draws, worked out from the daemon's history (`stats.history`): the points
 * of a range with their gaps filled, the events of the current minute added on top, and the
 * series of each chart. Pure (the caller passes the clock), so the unit tests read exactly what
 * the charts are given.
 */
import type * as Protocol from '../../../shared/protocol/messages';
import type { JobChange } from '../../../shared/protocol/notifications';

export type HistoryPoint = Protocol.HistoryPoint;
export type HistoryStep = Protocol.StatsHistoryParams['step'];
/** What `stats.history` answers. */
export type HistoryResult = Protocol.StatsHistoryResult;

/** The ranges the dashboard offers, each with the step it is read at. */
export const RANGES = {
  hour: { label: 'Last hour', spanMs: 3_600_000, step: 'minute' },
  day: { label: 'Last day', spanMs: 86_400_000, step: 'minute' },
  week: { label: 'Last week', spanMs: 7 * 86_400_000, step: 'hour' },
} as const satisfies Record<string, { label: string; spanMs: number; step: HistoryStep }>;

export type RangeName = keyof typeof RANGES;

export const STEP_MS: Record<HistoryStep, number> = { minute: 60_000, hour: 3_600_000 };

/** The outcomes the throughput chart stacks, bottom first. */
export const OUTCOMES = ['completed', 'failed', 'dead', 'cancelled'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The `stats.history` params of a range ending now: `to` (exclusive) the end of the step now is
 * in, so the current minute is read too, and `from` a range's span before it, both on the step.
 */
export function rangeParams(range: RangeName, now: number, queue?: string): Protocol.StatsHistoryParams {
  const { spanMs, step } = RANGES[range];
  const ms = STEP_MS[step];
  const to = Math.floor(now / ms) * ms + ms;
  const from = to - spanMs;
  return { ...(queue === undefined ? {} : { queue }), from, to, step };
}

/** Every step's start from `from` up to `to` (exclusive). */
export function stepTimes(from: number, to: number, step: HistoryStep): number[] {
  const ms = STEP_MS[step];
  const times: number[] = [];
  for (let at = from; at < to; at += ms) times.push(at);
  return times;
}

/** A point with no activity: what a missing minute was, with the backlog and running it carried. */
export function emptyPoint(queue: string, at: number, backlog = 0, running = 0): HistoryPoint {
  return { queue, at, enqueued: 0, started: 0, completed: 0, failed: 0, dead: 0, cancelled: 0, waitP50: null, waitP95: null, waitMax: null, runP50: null, runP95: null, runMax: null, backlog, running };
}

/**
 * One queue's points on every step of the range: a step the daemon left out (no activity) is
 * zeros with the last known backlog and running (the first ones before any: those of the newest
 * point before the range, else zero). Points outside the range are ignored.
 */
export function fillGaps(points: readonly HistoryPoint[], queue: string, times: readonly number[]): HistoryPoint[] {
  const mine = points.filter((p) => p.queue === queue).sort((a, b) => a.at - b.at);
  const byAt = new Map(mine.map((p) => [p.at, p]));
  const first = times[0] ?? 0;
  let carried = mine.filter((p) => p.at < first).at(-1);
  return times.map((at) => {
    const point = byAt.get(at);
    if (point) {
      carried = point;
      return point;
    }
    return emptyPoint(queue, at, carried?.backlog ?? 0, carried?.running ?? 0);
  });
}

/** The queues the points name, sorted; `known` (the queues that exist now) are included even without points. */
export function queuesOf(points: readonly HistoryPoint[], known: readonly string[] = []): string[] {
  return [...new Set([...known, ...points.map((p) => p.queue)])].sort();
}

/** Which outcome a job's change is, for the current minute's counts; null for the others. */
export function outcomeOf(change: Pick<JobChange, 'state' | 'deleted'>): Outcome | null {
  if (change.deleted === true) return null;
  switch (change.state) {
    case 'completed':
      return 'completed';
    case 'retrying':
      return 'failed';
    case 'dead':
      return 'dead';
    case 'cancelled':
      return 'cancelled';
    default:
      return null;
  }
}

/** A job's change as the dashboard keeps it between two reads of the history. */
export type LiveEvent = Pick<JobChange, 'queue' | 'state' | 'at' | 'deleted'>;

/**
 * The filled points with the job events that came after the history was read (`readAt`) added
 * to the step each happened in: the current minute moves without reading the history again.
 * Events at or before `readAt` are in the daemon's points already.
 */
export function addLive(filled: readonly HistoryPoint[], events: readonly LiveEvent[], readAt: number, step: HistoryStep): HistoryPoint[] {
  const ms = STEP_MS[step];
  if (!events.some((e) => e.at > readAt)) return [...filled];
  const out = filled.map((p) => ({ ...p }));
  const byKey = new Map(out.map((p) => [`${p.queue}\u0000${p.at}`, p]));
  for (const e of events) {
    if (e.at <= readAt) continue;
    const outcome = outcomeOf(e);
    if (outcome === null) continue;
    const point = byKey.get(`${e.queue}\u0000${Math.floor(e.at / ms) * ms}`);
    if (point) point[outcome] += 1;
  }
  return out;
}

/** Failed (retried or dead) out of every outcome that ran, in percent; null with none. */
export function failureRate(p: Pick<HistoryPoint, 'completed' | 'failed' | 'dead'>): number | null {
  const ran = p.completed + p.failed + p.dead;
  return ran === 0 ? null : Math.round(((p.failed + p.dead) / ran) * 1000) / 10;
}

/** One line or band of a chart. */
export interface Series {
  label: string;
  values: (number | null)[];
}

/** A chart: a title, its unit, and its series over the shared times. */
export interface Chart {
  id: 'throughput' | 'backlog' | 'wait' | 'failures';
  title: string;
  /** How a value is said: a count, ms or a percentage. */
  unit: 'jobs' | 'ms' | '%';
  /** Drawn stacked (each series on top of those before it). */
  stacked: boolean;
  series: Series[];
}

/** Everything the page draws, built in the extension and sent to the page. */
export interface DashboardData {
  range: RangeName;
  step: HistoryStep;
  /** The queue shown in detail; null for every queue. */
  queue: string | null;
  /** Each step's start, ms. */
  times: number[];
  charts: Chart[];
}

function sumOver(rows: readonly HistoryPoint[][], i: number, pick: (p: HistoryPoint) => number): number {
  let total = 0;
  for (const row of rows) total += pick(row[i] ?? emptyPoint('', 0));
  return total;
}

/**
 * The charts of a range. Throughput is stacked by outcome (summed over the queues shown); the
 * others have one line per queue, or, for one queue in detail, its backlog and running, its wait
 * p50 and p95 and its failure rate.
 */
export function buildCharts(byQueue: ReadonlyMap<string, HistoryPoint[]>, times: readonly number[], detail: string | null): Chart[] {
  const queues = detail === null ? [...byQueue.keys()] : [detail];
  const rows = queues.map((q) => byQueue.get(q) ?? times.map((at) => emptyPoint(q, at)));
  const throughput: Chart = {
    id: 'throughput',
    title: 'Throughput by outcome (jobs per step)',
    unit: 'jobs',
    stacked: true,
    series: OUTCOMES.map((o) => ({ label: o, values: times.map((_, i) => sumOver(rows, i, (p) => p[o])) })),
  };
  if (detail !== null) {
    const row = rows[0] ?? [];
    return [
      throughput,
      { id: 'backlog', title: 'Backlog and running', unit: 'jobs', stacked: false, series: [{ label: 'waiting', values: row.map((p) => p.backlog) }, { label: 'running', values: row.map((p) => p.running) }] },
      { id: 'wait', title: 'Wait time', unit: 'ms', stacked: false, series: [{ label: 'p50', values: row.map((p) => p.waitP50) }, { label: 'p95', values: row.map((p) => p.waitP95) }] },
      { id: 'failures', title: 'Failure rate', unit: '%', stacked: false, series: [{ label: detail, values: row.map(failureRate) }] },
    ];
  }
  return [
    throughput,
    { id: 'backlog', title: 'Backlog (waiting) and running, by queue', unit: 'jobs', stacked: false, series: queues.flatMap((q, k) => [{ label: `${q} waiting`, values: (rows[k] ?? []).map((p) => p.backlog) }, { label: `${q} running`, values: (rows[k] ?? []).map((p) => p.running) }]) },
    { id: 'wait', title: 'Wait time p95, by queue', unit: 'ms', stacked: false, series: queues.map((q, k) => ({ label: q, values: (rows[k] ?? []).map((p) => p.waitP95) })) },
    { id: 'failures', title: 'Failure rate, by queue', unit: '%', stacked: false, series: queues.map((q, k) => ({ label: q, values: (rows[k] ?? []).map(failureRate) })) },
  ];
}

/** The values of stacked series as drawn: each the sum of itself and those before it. */
export function stack(series: readonly Series[]): Series[] {
  const sums: number[] = [];
  return series.map((s) => ({
    label: s.label,
    values: s.values.map((v, i) => {
      sums[i] = (sums[i] ?? 0) + (v ?? 0);
      return sums[i];
    }),
  }));
}

/** The dashboard's data for a range: the points read at `readAt`, filled, with the live events on top. */
export function dashboardData(result: HistoryResult, params: { from: number; to: number }, range: RangeName, detail: string | null, known: readonly string[], events: readonly LiveEvent[], readAt: number): DashboardData {
  const times = stepTimes(params.from, params.to, result.step);
  const queues = detail === null ? queuesOf(result.points, known) : [detail];
  const byQueue = new Map(queues.map((q) => [q, addLive(fillGaps(result.points, q, times), events, readAt, result.step)]));
  return { range, step: result.step, queue: detail, times, charts: buildCharts(byQueue, times, detail) };
}

const BLOCKS = '▁▂▃▄▅▆▇█';

/** Values as a line of block characters, the highest a full block; an all-zero line is all ▁. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => (max === 0 ? BLOCKS[0] : BLOCKS[Math.min(7, Math.round((Math.max(0, v) / max) * 7))])).join('');
}

/** What a queue row's tooltip says of its last hour: a sparkline of the jobs ended per minute, and the totals. */
export interface HourLine {
  line: string;
  completed: number;
  failed: number;
  dead: number;
}

/** A queue's last hour from `stats.history` (minute step, `rangeParams('hour', …)`), filled, with its sparkline. */
export function hourLine(points: readonly HistoryPoint[], queue: string, params: { from: number; to: number }): HourLine {
  const filled = fillGaps(points, queue, stepTimes(params.from, params.to, 'minute'));
  const sum = (pick: (p: HistoryPoint) => number): number => filled.reduce((t, p) => t + pick(p), 0);
  return { line: sparkline(filled.map((p) => p.completed + p.failed + p.dead)), completed: sum((p) => p.completed), failed: sum((p) => p.failed), dead: sum((p) => p.dead) };
}

/** The tooltip's words for it: "Last hour ▁▂█▁ 30 completed, 2 failed, 1 dead". */
export function hourLineText(h: HourLine): string {
  const counts = [`${h.completed} completed`, ...(h.failed > 0 ? [`${h.failed} failed`] : []), ...(h.dead > 0 ? [`${h.dead} dead`] : [])].join(', ');
  return `Last hour: ${h.line} ${counts}`;
}
