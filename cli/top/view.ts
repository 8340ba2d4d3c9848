/**
 * What `spool top` shows, as lines of styled text for a screen of a given size: the queues with
 * counts, rates and a sparkline each, the running jobs with elapsed time and progress, the recent
 * failures, a job's output when one is open, and the help. Pure: the terminal is drawn from
 * these lines by main.ts, and tests read them without a terminal.
 */
import { formatDuration } from '../../shared/domain/durations';
import { shortId } from '../../shared/domain/present/ids';
import { failureText } from '../../shared/domain/present/jobs';
import { relativeTime } from '../../shared/domain/present/time';
import type { QueueStats, Stats } from '../../shared/protocol/messages';
import type { Job, OutputLine } from '../../shared/protocol/types';
import { progressBar, rateText, sparkline, type QueueRates } from './rates';

export type Style = 'normal' | 'title' | 'header' | 'selected' | 'dim' | 'bad' | 'warn' | 'good' | 'status';

export interface Segment {
  text: string;
  style: Style;
}

export type Line = Segment[];

export type Pane = 'queues' | 'running' | 'failures';

export const PANES: readonly Pane[] = ['queues', 'running', 'failures'];

export interface TopState {
  /** Where the daemon is, for the title line and the connection message. */
  endpoint: string;
  connected: boolean;
  stats: Stats | null;
  running: Job[];
  failures: Job[];
  pane: Pane;
  /** The selected row of each pane. */
  selected: Record<Pane, number>;
  /** A job's output shown in the lower half, following as lines arrive. */
  log: { job: Pick<Job, 'id' | 'queue' | 'kind' | 'state'>; lines: OutputLine[] } | null;
  help: boolean;
  /** The last action's outcome or a question (`Cancel job …? y/n`), on the bottom line. */
  message: { text: string; bad: boolean } | null;
  rates: (queue: string) => QueueRates;
}

export const HELP_LINES: readonly string[] = [
  'spool top: the daemon\'s queues, running jobs and recent failures, live.',
  '',
  '  ↑ ↓ or k j     move the selection',
  '  Tab, Shift-Tab switch pane (queues, running, failures)',
  '  1 2 3          go to the queues, running or failures pane',
  '  p              pause or resume the selected queue',
  '  r              retry the selected job (a dead or cancelled one)',
  '  c              cancel the selected job (asks first: y to cancel)',
  '  Enter or l     show the selected job\'s output below, following as lines arrive',
  '  L              open the selected job\'s output in a pager ($PAGER, else less)',
  '  Esc            close the output or this help',
  '  ?              this help',
  '  q or Ctrl-C    quit',
  '',
  'Rates are jobs per second over the last 5 s, and each sparkline shows jobs ended per second,',
  'from the counts spool top samples once a second while it runs (the daemon keeps no history).',
];

const QUEUE_HEADERS = ['QUEUE', 'WAIT', 'RUN', 'DELAY', 'RETRY', 'DEAD', 'DONE/S', 'DEAD/S'] as const;

function cell(text: string, width: number, right = false): string {
  const cut = text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
  return right ? cut.padStart(width) : cut.padEnd(width);
}

function plain(text: string, style: Style = 'normal'): Line {
  return [{ text, style }];
}

function fit(line: Line, width: number): Line {
  const out: Line = [];
  let used = 0;
  for (const s of line) {
    if (used >= width) break;
    const text = s.text.length > width - used ? s.text.slice(0, width - used) : s.text;
    out.push({ text, style: s.style });
    used += text.length;
  }
  return out;
}

function queueRow(q: QueueStats, rates: QueueRates, width: number, nameWidth: number): Line {
  const c = q.counts;
  const numbers = [
    cell(String(Math.max(0, c.queued - q.delayed)), 6, true),
    cell(String(c.running), 5, true),
    cell(String(q.delayed), 6, true),
    cell(String(c.retrying), 6, true),
    cell(String(c.dead), 5, true),
    cell(rateText(rates.completedPerSecond), 7, true),
    cell(rateText(rates.deadPerSecond), 7, true),
  ].join(' ');
  const name = cell(q.name + (q.paused ? ' (paused)' : ''), nameWidth);
  const fixed = nameWidth + 1 + numbers.length + 2;
  const spark = sparkline(rates.history, Math.max(0, width - fixed));
  return [
    { text: `${name} ${numbers}  `, style: q.paused ? 'warn' : 'normal' },
    { text: spark, style: 'good' },
  ];
}

function queueHeader(nameWidth: number): Line {
  const [name, ...rest] = QUEUE_HEADERS;
  const widths = [6, 5, 6, 6, 5, 7, 7];
  return plain(`${cell(name, nameWidth)} ${rest.map((h, i) => cell(h, widths[i] ?? 6, true)).join(' ')}  LAST MINUTES`, 'header');
}

function runningRow(job: Job, now: number, width: number): string {
  const elapsed = formatDuration(now - (job.startedAt ?? now), 1);
  const progress = job.progress === null ? ''.padEnd(15) : `${progressBar(job.progress, 10)} ${cell(`${Math.round(job.progress)}%`, 4, true)}`;
  const note = [job.progressMessage, job.cancelRequested ? 'cancel requested' : null].filter((s) => s).join(' · ');
  return cell(`${shortId(job.id)}  ${cell(job.queue, 14)} ${cell(job.kind, 10)} ${cell(elapsed, 7, true)}  ${progress}  ${note}`, width);
}

/** Why a job failed, in one line, in the words of the Queues view and `spool jobs`. */
export function failureReason(job: Pick<Job, 'lastError' | 'state'>): string {
  if (job.lastError) return failureText(job.lastError, 200);
  return job.state === 'cancelled' ? 'cancelled' : 'no error recorded';
}

function failureRow(job: Job, now: number, width: number): string {
  const when = relativeTime(job.finishedAt ?? job.updatedAt, now);
  return cell(`${shortId(job.id)}  ${cell(job.queue, 14)} ${cell(job.kind, 10)} ${cell(when, 9)} ${failureReason(job)}`, width);
}

/** The rows of one pane: its title, its header, then the rows that fit, scrolled to the selection. */
function paneLines(title: string, header: string | Line, rows: Line[], height: number, active: boolean, selected: number, width: number, empty: string): Line[] {
  const out: Line[] = [fit(plain(cell(`${active ? '▶' : ' '} ${title}`, width), active ? 'title' : 'dim'), width)];
  if (height <= 1) return out;
  out.push(fit(typeof header === 'string' ? plain(header, 'header') : header, width));
  const room = height - 2;
  if (rows.length === 0) {
    if (room > 0) out.push(plain(`  ${empty}`, 'dim'));
    return out;
  }
  const first = Math.max(0, Math.min(selected - room + 1, rows.length - room));
  rows.slice(first, first + room).forEach((row, i) => {
    const isSelected = active && first + i === selected;
    const line = isSelected ? [{ text: row.map((s) => s.text).join('').padEnd(width), style: 'selected' as Style }] : row;
    out.push(fit(line, width));
  });
  return out;
}

/** How many rows each pane has, for moving the selection. */
export function paneSize(state: TopState, pane: Pane): number {
  if (pane === 'queues') return state.stats?.queues.length ?? 0;
  return pane === 'running' ? state.running.length : state.failures.length;
}

/** The whole screen: exactly `height` lines, none wider than `width`. */
export function render(state: TopState, width: number, height: number, now: number): Line[] {
  const lines: Line[] = [];
  const stats = state.stats;
  const totals = stats?.totals;
  const title = `spool top · ${state.endpoint}` + (totals ? ` · ${totals.running} running · ${totals.queued} waiting · ${totals.dead} dead · last minute: ${stats.completedLastMinute} completed, ${stats.failedLastMinute} failed` : '');
  lines.push(fit(plain(cell(title, width), 'title'), width));
  if (!state.connected) lines.push(fit(plain(`lost the daemon at ${state.endpoint}; reconnecting…`, 'bad'), width));

  const bottom = state.message ? fit(plain(state.message.text, state.message.bad ? 'bad' : 'status'), width) : fit(plain('q quit  ? help  Tab pane  p pause/resume  r retry  c cancel  Enter output  L pager', 'dim'), width);
  const body = height - lines.length - 1;

  if (state.help) {
    for (const text of HELP_LINES.slice(0, Math.max(0, body))) lines.push(fit(plain(text), width));
  } else if (body > 0) {
    const queues = stats?.queues ?? [];
    const logHeight = state.log ? Math.max(3, Math.floor(body / 2)) : 0;
    const rest = body - logHeight;
    // The queues take what they need up to a third; the running jobs and failures share the rest.
    const queuesHeight = Math.min(Math.max(3, queues.length + 2), Math.max(3, Math.floor(rest / 3)));
    const runningHeight = Math.max(2, Math.floor((rest - queuesHeight) / 2));
    const failuresHeight = Math.max(0, rest - queuesHeight - runningHeight);
    const nameWidth = Math.min(24, Math.max(8, ...queues.map((q) => q.name.length + (q.paused ? 9 : 0))));
    lines.push(...paneLines(`Queues (${queues.length})`, queueHeader(nameWidth), queues.map((q) => queueRow(q, state.rates(q.name), width, nameWidth)), queuesHeight, state.pane === 'queues', state.selected.queues, width, stats ? 'No queues yet.' : 'Reading the queues…'));
    const runHeader = `${cell('JOB', 8)}  ${cell('QUEUE', 14)} ${cell('KIND', 10)} ${cell('ELAPSED', 7, true)}  ${cell('PROGRESS', 15)}  NOTE`;
    lines.push(...paneLines(`Running (${state.running.length})`, runHeader, state.running.map((j) => plain(runningRow(j, now, width))), runningHeight, state.pane === 'running', state.selected.running, width, 'No job is running.'));
    const failHeader = `${cell('JOB', 8)}  ${cell('QUEUE', 14)} ${cell('KIND', 10)} ${cell('ENDED', 9)} WHY`;
    lines.push(...paneLines(`Recent failures (${state.failures.length})`, failHeader, state.failures.map((j) => plain(failureRow(j, now, width), 'bad')), failuresHeight, state.pane === 'failures', state.selected.failures, width, 'No dead jobs.'));
    if (state.log) {
      const { job, lines: output } = state.log;
      lines.push(fit(plain(cell(`─ Output of ${shortId(job.id)} (${job.queue}/${job.kind}, ${job.state}) · Esc closes `, width).replace(/ +$/, (s) => '─'.repeat(s.length)), 'title'), width));
      const room = logHeight - 1;
      const shown = output.slice(-room);
      for (const line of shown) lines.push(fit(plain(line.text.replace(/\t/g, '  '), line.stream === 'stderr' ? 'bad' : 'normal'), width));
      if (output.length === 0 && room > 0) lines.push(plain('  (no output yet)', 'dim'));
    }
  }
  while (lines.length < height - 1) lines.push([]);
  lines.length = Math.max(0, height - 1);
  if (height > 0) lines.push(bottom);
  return lines;
}
