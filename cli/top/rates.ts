/**
 * `spool top`'s rates: the daemon keeps no history of its own yet, so `spool top` samples the
 * counts of `stats` itself, once a second while it runs, and reads rates and sparklines from the
 * differences between samples. Pure: the caller passes each sample's time.
 */
import type { Stats } from '../../shared/protocol/messages';

/** Per queue and sample: jobs that completed, and jobs that ended dead, since the sample before. */
export interface Step {
  completed: number;
  dead: number;
  /** Seconds since the sample before. */
  seconds: number;
}

/** Rates of one queue over the last few samples, in jobs per second. */
export interface QueueRates {
  completedPerSecond: number;
  deadPerSecond: number;
  /** Jobs ended (completed or dead) per second, one value per sample, oldest first. */
  history: number[];
}

/** How many samples the rates now average: the last five seconds at one sample a second. */
const RATE_SAMPLES = 5;

export class RateSampler {
  private last: { at: number; counts: Map<string, { completed: number; dead: number }> } | null = null;
  private readonly steps = new Map<string, Step[]>();

  /** How many samples each queue keeps for its sparkline. */
  constructor(private readonly keep = 240) {}

  /**
   * Takes a sample of `stats` at `at`. A count that went down (jobs pruned, purged or retried)
   * counts as no jobs ended, not as a negative rate.
   */
  sample(stats: Pick<Stats, 'queues'>, at: number): void {
    const counts = new Map(stats.queues.map((q) => [q.name, { completed: q.counts.completed, dead: q.counts.dead }]));
    const before = this.last;
    this.last = { at, counts };
    if (before === null || at <= before.at) return;
    const seconds = (at - before.at) / 1000;
    for (const [name, now] of counts) {
      const prev = before.counts.get(name) ?? now;
      const steps = this.steps.get(name) ?? [];
      steps.push({ completed: Math.max(0, now.completed - prev.completed), dead: Math.max(0, now.dead - prev.dead), seconds });
      if (steps.length > this.keep) steps.splice(0, steps.length - this.keep);
      this.steps.set(name, steps);
    }
    for (const name of this.steps.keys()) if (!counts.has(name)) this.steps.delete(name);
  }

  rates(queue: string): QueueRates {
    const steps = this.steps.get(queue) ?? [];
    const recent = steps.slice(-RATE_SAMPLES);
    const seconds = recent.reduce((sum, s) => sum + s.seconds, 0);
    const per = (pick: (s: Step) => number): number => (seconds > 0 ? recent.reduce((sum, s) => sum + pick(s), 0) / seconds : 0);
    return {
      completedPerSecond: per((s) => s.completed),
      deadPerSecond: per((s) => s.dead),
      history: steps.map((s) => (s.completed + s.dead) / s.seconds),
    };
  }
}

const BARS = '▁▂▃▄▅▆▇█';

/**
 * The last `width` values as a sparkline, right-aligned (the newest at the right end), scaled to
 * the largest of them; zero is a blank so a quiet queue shows nothing, and any value above zero
 * shows at least the lowest bar.
 */
export function sparkline(values: readonly number[], width: number): string {
  if (width <= 0) return '';
  const shown = values.slice(-width);
  const max = Math.max(0, ...shown);
  const bars = shown.map((v) => (v <= 0 || max <= 0 ? ' ' : BARS[Math.min(BARS.length - 1, Math.max(0, Math.ceil((v / max) * BARS.length) - 1))]));
  return ' '.repeat(width - shown.length) + bars.join('');
}

/** A rate for a narrow column: `0`, `0.4`, `12`, `1.2k` (per second). */
export function rateText(perSecond: number): string {
  if (perSecond <= 0) return '0';
  if (perSecond < 10) return perSecond.toFixed(1).replace(/\.0$/, '');
  if (perSecond < 1000) return String(Math.round(perSecond));
  return `${(perSecond / 1000).toFixed(1).replace(/\.0$/, '')}k`;
}

/** A progress bar of `width` cells for 0..100: `███▌      `. */
export function progressBar(percent: number, width: number): string {
  if (width <= 0) return '';
  const eighths = Math.round((Math.max(0, Math.min(100, percent)) / 100) * width * 8);
  const full = Math.floor(eighths / 8);
  const part = eighths % 8;
  const partial = part > 0 ? '▏▎▍▌▋▊▉'[part - 1] : '';
  return ('█'.repeat(full) + partial).padEnd(width, ' ');
}
