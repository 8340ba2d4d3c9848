/**
 * The arithmetic and the table of `bench compare` (compare.ts): which build runs first in each
 * block, the median and spread of each figure over the blocks, and new/old. Pure, so that a unit
 * test can hold it to its word.
 */

/** The two builds being compared. */
export type Side = 'old' | 'new';

/**
 * The order of the two builds in block `block` (from 0): old first in even blocks, new first in
 * odd ones, so consecutive blocks run A B B A. A machine that speeds up or slows down over the run
 * then favours neither build: each pair of blocks gives both builds one early and one late turn.
 */
export function blockOrder(block: number): readonly [Side, Side] {
  return block % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
}

/** One figure the comparison reports. */
export interface FigureSpec {
  name: string;
  unit: 'jobs/s' | 'ms' | 'µs/job';
  /** Rates are better higher; latencies and CPU time per job, lower. */
  higherIsBetter: boolean;
}

/** A figure's values, one per block and build, in block order. */
export interface FigureSamples {
  spec: FigureSpec;
  old: number[];
  new: number[];
}

/** The median of the values and their range. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Median (the mean of the middle two for an even count), minimum and maximum; NaN for none. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: NaN, min: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** What the comparison concludes about one figure. */
export interface FigureComparison {
  spec: FigureSpec;
  old: Spread;
  new: Spread;
  /** median(new) / median(old). */
  ratio: number;
  /**
   * new / old within each block, where both builds ran minutes apart at most: the range of these
   * shows how much of the ratio is the machine's drift rather than the code.
   */
  blockRatios: Spread;
  /** How much worse the new build is, in percent (negative: better): the "at most 5 % slower" test. */
  worsePercent: number;
}

export function compareFigure(samples: FigureSamples): FigureComparison {
  const old = spread(samples.old);
  const next = spread(samples.new);
  const ratio = next.median / old.median;
  const pairs = Math.min(samples.old.length, samples.new.length);
  const blockRatios = spread(Array.from({ length: pairs }, (_, i) => samples.new[i] / samples.old[i]));
  // A rate 5 % slower is new = 0.95 × old; a cost 5 % worse is new = 1.05 × old.
  const worsePercent = samples.spec.higherIsBetter ? (1 - ratio) * 100 : (ratio - 1) * 100;
  return { spec: samples.spec, old, new: next, ratio, blockRatios, worsePercent };
}

/** A value as the table prints it: rates as whole numbers with thousands separators, others with 2–3 significant decimals. */
export function formatValue(value: number, unit: FigureSpec['unit']): string {
  if (!Number.isFinite(value)) return '—';
  if (unit === 'jobs/s') return Math.round(value).toLocaleString('en-US');
  return value.toFixed(value < 10 ? 2 : 1);
}

function formatSpread(s: Spread, unit: FigureSpec['unit']): string {
  return `${formatValue(s.median, unit)} (${formatValue(s.min, unit)}–${formatValue(s.max, unit)})`;
}

/** "new 1.2 % worse", "new 0.8 % better", or "same" under 0.05 %. */
export function describeChange(worsePercent: number): string {
  if (!Number.isFinite(worsePercent)) return '—';
  if (Math.abs(worsePercent) < 0.05) return 'same';
  return `new ${Math.abs(worsePercent).toFixed(1)} % ${worsePercent > 0 ? 'worse' : 'better'}`;
}

/**
 * The comparison as a Markdown table (readable as it is in a terminal, and ready for
 * BENCHMARKS.md): per figure, each build's median over the blocks with its range, the ratio of
 * the medians, the range of the per-block ratios, and the change in words.
 */
export function comparisonTable(figures: readonly FigureComparison[]): string[] {
  const rows = figures.map((f) => [
    `${f.spec.name} (${f.spec.unit}, ${f.spec.higherIsBetter ? 'higher' : 'lower'} is better)`,
    formatSpread(f.old, f.spec.unit),
    formatSpread(f.new, f.spec.unit),
    Number.isFinite(f.ratio) ? f.ratio.toFixed(3) : '—',
    Number.isFinite(f.blockRatios.min) ? `${f.blockRatios.min.toFixed(3)}–${f.blockRatios.max.toFixed(3)}` : '—',
    describeChange(f.worsePercent),
  ]);
  const header = ['figure', 'old: median (min–max)', 'new: median (min–max)', 'new/old', 'per block', 'change'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 || i === widths.length - 1 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}
