/**
 * The dashboard as HTML: the document (a strict content security policy: the one script and the
 * one style sheet from the extension's dist folder, the page's own style with its nonce, no
 * network), the controls, the health rows and the empty chart boxes the script draws into with
 * uPlot. Pure functions, called by the page's script on every update and read by the unit tests.
 */
import { escapeHtml } from '../jobPage/render';
import { waitText, type HealthRow } from './health';
import { RANGES, type Chart, type RangeName } from './history';
import { renderScheduleTimeline, SCHEDULES_STYLE, type UpcomingFires } from './schedules';

/** `scriptUri`, `styleUri`: the webview URIs of dist/dashboardPage.js and .css; `cspSource`: the webview's own source. */
export function dashboardDocument(scriptUri: string, styleUri: string, cspSource: string, nonce: string): string {
  const csp = `default-src 'none'; style-src 'nonce-${nonce}' ${cspSource}; script-src 'nonce-${nonce}' ${cspSource}; img-src data:; font-src ${cspSource};`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="viewport" content="width=device-width, initial-scale=1.0"><title>Spool: Dashboard</title><link rel="stylesheet" href="${escapeHtml(styleUri)}"><style nonce="${nonce}">${DASHBOARD_STYLE}${SCHEDULES_STYLE}</style></head><body><main id="root"><h1>Dashboard</h1><p class="muted">Reading the history…</p></main><script nonce="${nonce}" src="${escapeHtml(scriptUri)}"></script></body></html>`;
}

function percent(value: number | null): string {
  return value === null ? '—' : `${value}%`;
}

/** The health rows as a table, a queue's warnings under it in words. */
export function renderHealth(rows: readonly HealthRow[]): string {
  if (rows.length === 0) return '<p class="muted">No queues yet.</p>';
  const body = rows
    .map((r) => {
      const warn = r.warnings.length > 0;
      const cells = `<tr class="queue${warn ? ' warn' : ''}" data-queue="${escapeHtml(r.queue)}"><th scope="row"><a href="#" data-open-queue="${escapeHtml(r.queue)}">${escapeHtml(r.queue)}</a></th><td data-field="waiting">${r.waiting}</td><td data-field="running">${r.running}</td><td data-field="oldest">${escapeHtml(waitText(r.oldestWaitMs))}</td><td data-field="rate">${r.ratePerMinute === null ? '—' : `${r.ratePerMinute}/min`}</td><td data-field="failures">${percent(r.failureRate)}</td></tr>`;
      const warnings = warn ? `<tr class="warnings" data-queue="${escapeHtml(r.queue)}"><td colspan="6">${r.warnings.map((w) => `<p class="warning" role="status"><span class="glyph" aria-hidden="true">⚠</span> ${escapeHtml(w)}</p>`).join('')}</td></tr>` : '';
      return cells + warnings;
    })
    .join('');
  return `<table class="health"><thead><tr><th>Queue</th><th>Waiting</th><th>Running</th><th>Oldest waiting</th><th>Rate now</th><th>Failures (hour)</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The range buttons and the queue picker. */
export function renderControls(queues: readonly string[], range: RangeName, queue: string | null): string {
  const ranges = (Object.keys(RANGES) as RangeName[]).map((r) => `<button type="button" class="${r === range ? 'primary' : 'secondary'}" data-range="${r}" aria-pressed="${r === range}">${RANGES[r].label}</button>`).join('');
  const options = [`<option value=""${queue === null ? ' selected' : ''}>Every queue</option>`, ...queues.map((q) => `<option value="${escapeHtml(q)}"${q === queue ? ' selected' : ''}>${escapeHtml(q)}</option>`)].join('');
  return `<div class="controls"><div class="ranges" role="group" aria-label="Range">${ranges}</div><label>Queue <select id="queue">${options}</select></label></div>`;
}

/** The boxes the charts are drawn into, one per chart, in order. */
export function renderChartBoxes(charts: readonly Chart[]): string {
  return `<div class="charts">${charts.map((c) => `<section class="chart" data-chart="${c.id}"><h2>${escapeHtml(c.title)}</h2><div class="plot"></div></section>`).join('')}</div>`;
}

/** The page's body without the charts drawn: heading, controls, note, health, chart boxes. */
export function renderDashboardBody(input: {
  queues: readonly string[];
  range: RangeName;
  queue: string | null;
  health: readonly HealthRow[];
  charts: readonly Chart[] | null;
  note: string | null;
  schedules?: { rows: readonly UpcomingFires[]; now: number };
}): string {
  const shown = input.queue === null ? input.health : input.health.filter((r) => r.queue === input.queue);
  return [
    `<h1>Dashboard${input.queue === null ? '' : `: ${escapeHtml(input.queue)}`}</h1>`,
    renderControls(input.queues, input.range, input.queue),
    input.note === null ? '' : `<p class="banner" role="status">${escapeHtml(input.note)}</p>`,
    `<h2>Health now</h2>${renderHealth(shown)}`,
    input.charts === null ? '' : renderChartBoxes(input.charts),
    input.schedules === undefined ? '' : renderScheduleTimeline(input.schedules.rows, input.schedules.now, (at) => new Date(at).toLocaleString()),
  ].join('');
}

/** The page's style: VS Code's colours and fonts, so it follows the theme. */
export const DASHBOARD_STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 20px 20px; }
h1 { font-size: 1.5em; font-weight: 600; margin: 16px 0 8px; }
h2 { font-size: 1.05em; font-weight: 600; margin: 16px 0 6px; }
a { color: var(--vscode-textLink-foreground); }
.muted { color: var(--vscode-descriptionForeground); }
.banner { background: var(--vscode-inputValidation-warningBackground); border: 1px solid var(--vscode-inputValidation-warningBorder); padding: 6px 10px; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; }
.ranges { display: flex; gap: 4px; }
button { font-family: inherit; font-size: inherit; border: 1px solid var(--vscode-button-border, transparent); padding: 3px 10px; border-radius: 2px; cursor: pointer; }
button.primary { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
button:focus-visible, select:focus-visible, a:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
select { font-family: inherit; font-size: inherit; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, transparent); padding: 2px 4px; }
table.health { border-collapse: collapse; min-width: 60%; }
table.health th, table.health td { text-align: left; padding: 3px 10px; border-bottom: 1px solid var(--vscode-editorWidget-border, transparent); }
table.health thead th { color: var(--vscode-descriptionForeground); font-weight: 600; }
table.health tr.warnings td { border-bottom: 1px solid var(--vscode-editorWidget-border, transparent); }
.warning { margin: 2px 0; color: var(--vscode-editorWarning-foreground, var(--vscode-foreground)); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 12px 20px; }
.chart .plot { min-height: 200px; }
.uplot, .uplot .u-legend { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
.uplot .u-legend { font-size: 11px; }
`;
