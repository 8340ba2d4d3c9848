/**
 * The job page as HTML: a pure function of the job, its runs and its last output lines (plus the
 * time now and a nonce), so the unit tests read exactly what the webview shows.
 *
 * Everything that comes from the daemon (commands, payloads, errors, output, tags, names) goes
 * through `escapeHtml`: a `<script>` in a command is shown as text. The document's content
 * security policy allows no network at all, styles and the one script only with the page's
 * nonce, and no inline event handlers, so even a missed escape could not run code.
 *
 * Icons are Unicode glyphs (model.ts, STATE_GLYPHS) coloured with the theme's variables: the
 * codicon font is not among the project's dependencies (@vscode/codicons), and the page loads
 * nothing from outside the extension. Colours and fonts are VS Code's CSS variables, so the page
 * follows the theme, light, dark or high contrast.
 */
import { formatDuration } from '../../../shared/domain/durations';
import { runHeading, runKey } from '../../../shared/domain/runs';
import { dependencyName, resultLine, uniquenessText } from '../../../shared/domain/present';
import type { Job, JobDependency, JobRun, OutputLine } from '../../../shared/protocol/types';
import { relativeTime } from '../format';
import { PAGE_ACTIONS, type PageAction } from './messages';
import { jobTimes, jobTitle, localTime, pageActions, runStatus, stateLabel, stateReason, STATE_GLYPHS, type JobPageInput } from './model';
import { PAGE_SCRIPT } from './script';

/** Text as HTML text or attribute value: nothing in it is markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function field(payload: unknown, name: string): string | undefined {
  if (typeof payload !== 'object' || payload === null || !(name in payload)) return undefined;
  const value: unknown = Reflect.get(payload, name);
  return typeof value === 'string' ? value : undefined;
}

function row(label: string, valueHtml: string): string {
  return `<dt>${escapeHtml(label)}</dt><dd>${valueHtml}</dd>`;
}

function code(text: string): string {
  return `<code>${escapeHtml(text)}</code>`;
}

/** What the job runs: the command or the request, and the whole payload formatted. */
function workRows(job: Job): string {
  const rows: string[] = [];
  if (job.kind === 'shell') {
    const command = field(job.payload, 'command');
    if (command !== undefined) rows.push(row('Command', `<pre class="command">${escapeHtml(command)}</pre>`));
  } else if (job.kind === 'http') {
    const url = field(job.payload, 'url');
    if (url !== undefined) rows.push(row('Request', code(`${(field(job.payload, 'method') ?? 'GET').toUpperCase()} ${url}`)));
  }
  const payload = job.payload === undefined ? 'null' : JSON.stringify(job.payload, null, 2);
  rows.push(row('Payload', `<pre class="payload">${escapeHtml(payload)}</pre>`));
  return rows.join('');
}

function timeRows(job: Job, now: number): string {
  return jobTimes(job, now)
    .map((t) => row(t.label, `<time datetime="${new Date(t.at).toISOString()}">${escapeHtml(localTime(t.at))}</time> <span class="relative" data-time="${t.key}">${escapeHtml(relativeTime(t.at, now))}</span>`))
    .join('');
}

/** The label of the row that shows the rule a job was enqueued with. */
const UNIQUENESS_LABELS = { unique: 'Unique', debounce: 'Debounce', throttle: 'Throttle' } as const;

function contextRows(job: Job): string {
  const rows: string[] = [];
  const c = job.context;
  if (c?.branch || c?.commit) rows.push(row('Enqueued from', [c.branch ? `branch ${code(c.branch)}` : '', c.commit ? `commit ${code(c.commit.slice(0, 12))}` : ''].filter(Boolean).join(', ')));
  if (c?.origin) rows.push(row('Origin', escapeHtml(c.origin)));
  if (c?.workspace) rows.push(row('Workspace', escapeHtml(c.workspace)));
  if (job.tags.length > 0) rows.push(row('Tags', job.tags.map((t) => `<span class="tag">${escapeHtml(t)}</span>`).join(' ')));
  return rows.join('');
}

function progressRow(job: Job): string {
  if (job.progress === null) return '';
  const pct = Math.round(job.progress);
  const message = job.progressMessage ? ` ${escapeHtml(job.progressMessage)}` : '';
  return row('Progress', `<progress max="100" value="${pct}"></progress> ${pct}%${message}`);
}

/** A run's error: its first line, with the rest of it and the stack folded under it. */
function errorCell(run: number, error: string, stack: string | null): string {
  const [first = '', ...rest] = error.split('\n');
  const folded = [rest.join('\n').trim(), stack ?? ''].filter((part) => part !== '').join('\n\n');
  if (folded === '') return escapeHtml(first);
  return `<details data-key="stack-${run}"><summary>${escapeHtml(first)}</summary><pre>${escapeHtml(folded)}</pre></details>`;
}

function runsTable(runs: readonly JobRun[]): string {
  if (runs.length === 0) return '<h2>Runs</h2><p class="muted">No run yet.</p>';
  const body = runs
    .map((r) => {
      const error = r.error === null ? '' : errorCell(r.run, r.error, r.stack);
      const duration = r.durationMs === null ? (r.outcome === 'running' ? 'running' : '') : formatDuration(r.durationMs);
      return `<tr class="outcome-${escapeHtml(r.outcome)}"><td>${r.run}</td><td>${r.attempt}</td><td>${escapeHtml(r.workerId)}</td><td><time datetime="${new Date(r.startedAt).toISOString()}">${escapeHtml(localTime(r.startedAt))}</time></td><td>${escapeHtml(duration)}</td><td>${escapeHtml(r.outcome.replace('_', ' '))}</td><td>${escapeHtml(runStatus(r) ?? '')}</td><td class="error">${error}</td></tr>`;
    })
    .join('');
  return `<h2>Runs <span class="muted">${runs.length}</span></h2><table class="runs"><thead><tr><th>Run</th><th>Attempt</th><th>Worker</th><th>Started</th><th>Duration</th><th>Outcome</th><th>Exit / HTTP</th><th>Error</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The result a dependency passed in: short JSON as is, longer JSON cut on one line and unfolded formatted. */
function resultCell(d: JobDependency): string {
  if (d.result === null || d.result === undefined) return '<span class="muted">none</span>';
  const line = resultLine(d.result, RESULT_LINE);
  const full = JSON.stringify(d.result);
  if (full.length <= RESULT_LINE) return code(line);
  return `<details data-key="result-${escapeHtml(d.id)}"><summary>${code(line)}</summary><pre class="payload">${escapeHtml(JSON.stringify(d.result, null, 2))}</pre></details>`;
}

/** How long a result is shown on one line before it is cut and folded. */
const RESULT_LINE = 60;

/**
 * The jobs at one end of the job's dependencies: each a link to its page, its state and the
 * condition of the edge, and for the jobs it depends on the result each passed in. `total` is
 * how many there are in all (a job may have more dependents than `jobs.get` lists).
 */
function relationsTable(heading: string, jobs: readonly JobDependency[], total: number, withResult: boolean): string {
  if (jobs.length === 0) return '';
  const rows = jobs
    .map((d) => {
      const state = `<span class="state-${escapeHtml(d.state)}"><span class="glyph" aria-hidden="true">${STATE_GLYPHS[d.state]}</span> ${escapeHtml(d.state)}</span>`;
      const link = `<a href="#" data-job="${escapeHtml(d.id)}">${escapeHtml(dependencyName(d))}</a> <span class="muted">${escapeHtml(d.queue)} · ${escapeHtml(d.kind)}</span>`;
      return `<tr><td>${link}</td><td>${state}</td><td>${escapeHtml(d.on)}</td>${withResult ? `<td>${resultCell(d)}</td>` : ''}</tr>`;
    })
    .join('');
  const more = total > jobs.length ? `<p class="muted">… and ${total - jobs.length} more.</p>` : '';
  const head = `<tr><th>Job</th><th>State</th><th>Condition</th>${withResult ? '<th>Result passed in</th>' : ''}</tr>`;
  return `<h2>${escapeHtml(heading)} <span class="muted">${total}</span></h2><table class="relations"><thead>${head}</thead><tbody>${rows}</tbody></table>${more}`;
}

/** The workflow rows: the step the job runs and its run. */
function workflowRows(job: Job): string {
  const rows: string[] = [];
  if (job.step !== null) rows.push(row('Step', escapeHtml(job.step)));
  if (job.workflowRunId !== null) rows.push(row('Workflow run', code(job.workflowRunId)));
  return rows.join('');
}

function outputLines(lines: readonly OutputLine[]): string {
  const html: string[] = [];
  // Between two runs' lines, the heading the output document and `spool logs` print.
  let current: string | null = null;
  for (const line of lines) {
    const key = runKey(line);
    if (key !== current) {
      if (current !== null) html.push(`<span class="muted">${escapeHtml(runHeading(line))}</span>`);
      current = key;
    }
    html.push(line.stream === 'stderr' ? `<span class="stderr">${escapeHtml(line.text)}</span>` : escapeHtml(line.text));
  }
  return html.join('\n');
}

function outputSection(input: JobPageInput): string {
  const { lines, total } = input.output;
  const link = input.deleted ? '' : ` <a href="#" data-action="showOutput">${escapeHtml(PAGE_ACTIONS.showOutput.label)}</a>`;
  const note = total > lines.length ? `<p class="muted">The last ${lines.length} of ${total} lines.</p>` : '';
  const text = lines.length === 0 ? '<p class="muted">No output.</p>' : `<pre id="output" class="output">${outputLines(lines)}</pre>`;
  return `<h2>Output${link}</h2>${note}${text}`;
}

function buttons(actions: readonly PageAction[]): string {
  return actions
    .filter((a) => a !== 'showOutput')
    .map((a) => `<button type="button" class="${a === 'retry' || a === 'cancel' ? 'primary' : 'secondary'}" data-action="${a}">${escapeHtml(PAGE_ACTIONS[a].label)}</button>`)
    .join('');
}

/** The page's body: everything inside `<main id="root">`, sent again whenever something changes. */
export function renderJobBody(input: JobPageInput): string {
  const { job, runs, now } = input;
  const state = stateLabel(job, now);
  const banner = input.deleted ? '<p class="banner" role="status">This job was deleted. The page shows it as it was last seen.</p>' : '';
  return [
    banner,
    `<header><h1>${escapeHtml(jobTitle(job))}</h1>`,
    `<p class="state state-${state}" data-state="${state}"><span class="glyph" aria-hidden="true">${STATE_GLYPHS[state]}</span> <strong>${state}</strong> — ${escapeHtml(stateReason(job, runs, now, input.waiting))}</p>`,
    `<div class="actions">${buttons(pageActions(job, input.deleted, input.tokenScope ?? null))}</div></header>`,
    '<dl>',
    row('Id', code(job.id)),
    row('Queue', escapeHtml(job.queue)),
    row('Kind', escapeHtml(job.kind)),
    workRows(job),
    row('Priority', String(job.priority)),
    job.uniqueness ? row(UNIQUENESS_LABELS[job.uniqueness.rule], `<span data-field="uniqueness">${escapeHtml(uniquenessText(job.uniqueness))}</span>`) : '',
    row('Attempts', `<span data-field="attempts">${job.attempts}/${job.maxAttempts}</span>`),
    progressRow(job),
    timeRows(job, now),
    contextRows(job),
    workflowRows(job),
    '</dl>',
    relationsTable('Depends on', input.dependencies ?? [], Math.max(job.dependsOn, input.dependencies?.length ?? 0), true),
    relationsTable('Depended on by', input.dependents ?? [], Math.max(job.dependents, input.dependents?.length ?? 0), false),
    runsTable(runs),
    outputSection(input),
  ].join('');
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 20px 20px; }
h1 { font-size: 1.5em; font-weight: 600; margin: 16px 0 4px; word-break: break-word; }
h2 { font-size: 1.1em; font-weight: 600; margin: 20px 0 6px; border-bottom: 1px solid var(--vscode-panel-border, transparent); padding-bottom: 4px; }
h2 a { font-size: 0.85em; font-weight: normal; margin-left: 8px; }
a { color: var(--vscode-textLink-foreground); }
a:hover { color: var(--vscode-textLink-activeForeground); }
code, pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
pre.payload, pre.command, pre.output { background: var(--vscode-textCodeBlock-background); padding: 6px 8px; border-radius: 3px; }
pre.output { max-height: 50vh; overflow: auto; }
.stderr { color: var(--vscode-errorForeground); }
.muted { color: var(--vscode-descriptionForeground); font-weight: normal; }
.state { margin: 4px 0 10px; }
.glyph { display: inline-block; width: 1.2em; text-align: center; }
.state-running .glyph { color: var(--vscode-charts-blue); }
.state-blocked .glyph { color: var(--vscode-charts-purple); }
.state-retrying .glyph { color: var(--vscode-charts-yellow); }
.state-dead .glyph { color: var(--vscode-errorForeground); }
.state-completed .glyph { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.banner { background: var(--vscode-inputValidation-warningBackground); border: 1px solid var(--vscode-inputValidation-warningBorder); padding: 6px 10px; margin-top: 12px; }
.actions { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 8px; }
button { font-family: inherit; font-size: inherit; border: 1px solid var(--vscode-button-border, transparent); padding: 4px 12px; border-radius: 2px; cursor: pointer; }
button.primary { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.primary:hover { background: var(--vscode-button-hoverBackground); }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
button.secondary:hover { background: var(--vscode-button-secondaryHoverBackground); }
button:focus-visible, a:focus-visible, summary:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 12px 0; }
dt { color: var(--vscode-descriptionForeground); }
dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.tag { background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); border-radius: 8px; padding: 0 6px; }
table.runs, table.relations { border-collapse: collapse; width: 100%; }
table.runs th, table.runs td, table.relations th, table.relations td { text-align: left; overflow-wrap: anywhere; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, transparent); vertical-align: top; }
table.runs th, table.relations th { color: var(--vscode-descriptionForeground); font-weight: 600; }
tr.outcome-failed td.error, tr.outcome-lease_expired td.error { color: var(--vscode-errorForeground); }
summary { cursor: pointer; }
progress { vertical-align: middle; }
`;

/**
 * The whole document the webview loads: the policy, the theme-following style, the body and the
 * script, the last two with `nonce` (a fresh random value per document, from the caller).
 */
export function renderJobDocument(input: JobPageInput, nonce: string): string {
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:;`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="viewport" content="width=device-width, initial-scale=1.0"><title>${escapeHtml(jobTitle(input.job))}</title><style nonce="${nonce}">${STYLE}</style></head><body><main id="root">${renderJobBody(input)}</main><script nonce="${nonce}">${PAGE_SCRIPT}</script></body></html>`;
}
