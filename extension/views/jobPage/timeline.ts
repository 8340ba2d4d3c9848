/**
 * The job page's timeline: the job's runs as a waterfall — before each run the wait (in the queue
 * before the first, the backoff and queue after a failure, the queue again after a retry by
 * hand), each run's time and its outcome, and for a job that waits now the wait so far — and
 * below it the job's history (`jobs.history`: every state change, what caused it and who).
 * Pure: the caller passes the clock, so the unit tests read exactly what is drawn. The bars are
 * SVG with `x` and `width` as percentages of the job's whole time (attributes, not styles: the
 * page's policy allows no inline style).
 */
import { formatDuration } from '../../../shared/domain/durations';
import type { JobHistoryEvent } from '../../../shared/protocol/messages';
import type { Job, JobRun, RunOutcome } from '../../../shared/protocol/types';
import { escapeHtml } from './escape';
import { localTime } from './model';

export type { JobHistoryEvent } from '../../../shared/protocol/messages';

/** Why a job waited before a run (or waits now). */
export type WaitKind = 'queued' | 'backoff' | 'retried';

/** One row of the waterfall: the wait before a run, and the run (absent for the wait of a job not running now). */
export interface WaterfallRow {
  /** JobRun.run; null for the wait now. */
  run: number | null;
  attempt: number | null;
  wait: { from: number; to: number; kind: WaitKind } | null;
  /** The run's start and end (now for one still running). */
  span: { from: number; to: number; outcome: RunOutcome } | null;
}

/** The waterfall of a job: its rows and the time they are drawn over. */
export interface Waterfall {
  from: number;
  to: number;
  rows: WaterfallRow[];
}

/** Why the wait after a run's outcome: a failure waits out its backoff; a finished run was retried by hand. */
function waitAfter(outcome: RunOutcome): WaitKind {
  return outcome === 'completed' || outcome === 'cancelled' ? 'retried' : 'backoff';
}

/** The waterfall of `job`'s runs (oldest first) at `now`. */
export function waterfall(job: Pick<Job, 'createdAt' | 'state' | 'runAt'>, runs: readonly JobRun[], now: number): Waterfall {
  const rows: WaterfallRow[] = [];
  let before = job.createdAt;
  let kind: WaitKind = 'queued';
  for (const r of runs) {
    const end = r.finishedAt ?? (r.outcome === 'running' ? now : r.startedAt + (r.durationMs ?? 0));
    rows.push({ run: r.run, attempt: r.attempt, wait: r.startedAt > before ? { from: before, to: r.startedAt, kind } : null, span: { from: r.startedAt, to: Math.max(r.startedAt, end), outcome: r.outcome } });
    before = Math.max(before, end);
    kind = waitAfter(r.outcome);
  }
  if (job.state === 'queued' || job.state === 'retrying') rows.push({ run: null, attempt: null, wait: { from: before, to: Math.max(before, now), kind }, span: null });
  const to = Math.max(job.createdAt + 1, ...rows.map((r) => Math.max(r.wait?.to ?? 0, r.span?.to ?? 0)));
  return { from: job.createdAt, to, rows };
}

const WAIT_WORDS: Record<WaitKind, string> = { queued: 'waited in the queue', backoff: 'backoff and queue', retried: 'waited after a retry' };

function pct(at: number, w: Waterfall): number {
  return Math.round(((at - w.from) / (w.to - w.from)) * 10_000) / 100;
}

/** How long, as the timeline says it. */
export function spanText(ms: number): string {
  return formatDuration(Math.max(0, ms), 2);
}

/** A row's label: "run 2 · attempt 2", or "waiting now". */
function rowLabel(r: WaterfallRow): string {
  return r.run === null ? 'waiting now' : `run ${r.run} · attempt ${r.attempt ?? '?'}`;
}

function waitWords(r: WaterfallRow): string | null {
  return r.wait ? `${WAIT_WORDS[r.wait.kind]} ${spanText(r.wait.to - r.wait.from)}` : null;
}

function runWords(r: WaterfallRow): string | null {
  if (!r.span) return null;
  const took = spanText(r.span.to - r.span.from);
  return r.span.outcome === 'running' ? `running ${took}` : `ran ${took}, ${r.span.outcome.replace('_', ' ')}`;
}

/** A row's words: what the bars show, for whoever does not see them. */
export function rowText(r: WaterfallRow): string {
  return [waitWords(r), runWords(r)].filter((p) => p !== null).join(' · ');
}

/** The waterfall as HTML: a row per run, a label, the bars over the job's time, and the words. */
export function renderWaterfall(w: Waterfall): string {
  if (w.rows.length === 0) return '';
  const rows = w.rows
    .map((r) => {
      const bars: string[] = [];
      if (r.wait) bars.push(`<rect class="wait wait-${r.wait.kind}" x="${pct(r.wait.from, w)}%" y="4" width="${Math.max(0.3, pct(r.wait.to, w) - pct(r.wait.from, w))}%" height="12"><title>${escapeHtml(`${WAIT_WORDS[r.wait.kind]} ${spanText(r.wait.to - r.wait.from)}`)}</title></rect>`);
      if (r.span) bars.push(`<rect class="run outcome-${r.span.outcome}" x="${pct(r.span.from, w)}%" y="2" width="${Math.max(0.5, pct(r.span.to, w) - pct(r.span.from, w))}%" height="16"><title>${escapeHtml(`${rowLabel(r)}: ${rowText(r)}`)}</title></rect>`);
      // A running run's words tick with the page's other times (see `timelineTimes`).
      const run = runWords(r);
      const runHtml = run === null ? null : r.span?.outcome === 'running' ? `<span data-time="elapsed-${r.run}">${escapeHtml(run)}</span>` : escapeHtml(run);
      const wait = waitWords(r);
      const words = [wait === null ? null : escapeHtml(wait), runHtml].filter((p) => p !== null).join(' · ');
      const data = r.run === null ? ' data-run="waiting"' : ` data-run="${r.run}" data-outcome="${r.span?.outcome ?? ''}"`;
      return `<div class="wf-row"${data}><span class="wf-label">${escapeHtml(rowLabel(r))}</span><svg class="wf-bars" width="100%" height="20" role="img" aria-label="${escapeHtml(`${rowLabel(r)}: ${rowText(r)}`)}">${bars.join('')}</svg><span class="wf-text">${words}</span></div>`;
    })
    .join('');
  return `<h2>Timeline <span class="muted">${escapeHtml(spanText(w.to - w.from))} since it was created</span></h2><div class="waterfall">${rows}</div><p class="legend muted"><span class="key wait"></span> waiting <span class="key run outcome-completed"></span> completed <span class="key run outcome-failed"></span> failed <span class="key run outcome-running"></span> running</p>`;
}

/** The ticking words of a running run: what the page's timer updates, by key. */
export function timelineTimes(runs: readonly JobRun[], now: number): Record<string, string> {
  const times: Record<string, string> = {};
  for (const r of runs) if (r.outcome === 'running') times[`elapsed-${r.run}`] = `running ${spanText(now - r.startedAt)}`;
  return times;
}

/** The job's history as a table, oldest first; null (a daemon without it) says so. */
export function renderHistory(events: readonly JobHistoryEvent[] | null): string {
  if (events === null) return '<h2>History</h2><p class="muted">This daemon keeps no history of jobs (it is older than this extension).</p>';
  if (events.length === 0) return '<h2>History</h2><p class="muted">No changes recorded.</p>';
  const rows = events
    .map(
      (e) =>
        `<tr data-cause="${escapeHtml(e.cause)}"><td><time datetime="${new Date(e.at).toISOString()}">${escapeHtml(localTime(e.at))}</time></td><td>${escapeHtml(e.state)}</td><td>${escapeHtml(e.cause)}</td><td>${e.who === null ? '<span class="muted">—</span>' : escapeHtml(e.who)}</td><td>${e.attempt ?? ''}</td><td>${e.detail === null ? '' : escapeHtml(e.detail)}</td></tr>`,
    )
    .join('');
  return `<h2>History <span class="muted">${events.length}</span></h2><table class="history"><thead><tr><th>When</th><th>State</th><th>Cause</th><th>Who</th><th>Attempt</th><th>Detail</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The timeline's style, added to the page's. */
export const TIMELINE_STYLE = `
.waterfall { display: grid; grid-template-columns: max-content minmax(200px, 1fr) max-content; gap: 2px 12px; align-items: center; margin: 6px 0; }
.wf-row { display: contents; }
.wf-label { color: var(--vscode-descriptionForeground); }
.wf-bars { display: block; background: var(--vscode-editorWidget-background, transparent); }
.wf-bars rect.wait { fill: var(--vscode-descriptionForeground); opacity: 0.35; }
.wf-bars rect.wait-backoff { fill: var(--vscode-charts-yellow); opacity: 0.45; }
rect.run, .key.run { fill: var(--vscode-charts-blue); background: var(--vscode-charts-blue); }
rect.outcome-completed, .key.outcome-completed { fill: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); background: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
rect.outcome-failed, rect.outcome-lease_expired, rect.outcome-interrupted, .key.outcome-failed { fill: var(--vscode-errorForeground); background: var(--vscode-errorForeground); }
rect.outcome-cancelled { fill: var(--vscode-disabledForeground, var(--vscode-descriptionForeground)); }
.legend .key { display: inline-block; width: 14px; height: 10px; margin: 0 4px 0 10px; vertical-align: middle; }
.legend .key.wait { background: var(--vscode-descriptionForeground); opacity: 0.35; }
table.history { border-collapse: collapse; width: 100%; }
table.history th, table.history td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, transparent); vertical-align: top; overflow-wrap: anywhere; }
table.history th { color: var(--vscode-descriptionForeground); font-weight: 600; }
`;
