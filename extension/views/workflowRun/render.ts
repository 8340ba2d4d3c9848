/**
 * The graph page of a workflow run as HTML and SVG: a pure function of the run, its layout
 * (layout.ts), the time now and which buttons apply, so the unit tests read exactly what the
 * webview shows. The page's script (page/main.ts) calls it in the webview on every update.
 *
 * Each node is a job, coloured by its state with the theme's chart colours (a glyph says the
 * state too, for whoever does not see colour); a running job's time (`data-since`) is ticked by
 * the script. Edges are styled by their condition: succeeded solid, failed dashed red, finished
 * dotted. Everything from the daemon goes through `escapeHtml`.
 */
import { formatDuration } from '../../../shared/domain/durations';
import { shortId } from '../../../shared/domain/present';
import type { JobState } from '../../../shared/protocol/types';
import type { WorkflowRun, WorkflowRunDetail } from '../../../shared/protocol/workflows';
import { escapeHtml } from '../jobPage/render';
import { STATE_GLYPHS } from '../jobPage/model';
import { CLUSTER_LABEL, type GraphEdge, type GraphNode, type RunGraph } from './layout';

/** The buttons of the page, and whether each applies now (absent: the token cannot do it). */
export interface RunActions {
  retry?: boolean;
  cancel?: boolean;
}

export const ACTION_LABELS = { retry: 'Retry Failed Part', cancel: 'Cancel Run' } as const;

/** "release #1a2b3c4d": the workflow and the end of the run's id, as the views show ids. */
export function runName(run: Pick<WorkflowRun, 'workflow' | 'id'>): string {
  return `${run.workflow} #${shortId(run.id)}`;
}

/** The panel's title. */
export function runTitle(run: Pick<WorkflowRun, 'workflow' | 'id'>): string {
  return `Workflow run: ${runName(run)}`;
}

/**
 * Which buttons apply to a run: Retry Failed Part once it ended failed or cancelled (it re-runs
 * what failed or was cancelled, and what waits for it), Cancel Run while it runs.
 */
export function runActions(run: Pick<WorkflowRun, 'state'>): Required<RunActions> {
  return { retry: run.state === 'failed' || run.state === 'cancelled', cancel: run.state === 'running' };
}

/** Time running: whole seconds for the first minute, then "1m30s" (as the Queues view says it). */
export function elapsedText(ms: number): string {
  return formatDuration(Math.max(0, ms), ms < 60_000 ? 1 : 2);
}

/** The line under a node's name: its state, and for a running or ended job its time. */
export function nodeStatus(node: Pick<GraphNode, 'state' | 'startedAt' | 'finishedAt' | 'attempts' | 'maxAttempts'>, now: number): string {
  switch (node.state) {
    case 'running':
      return `running ${elapsedText(now - (node.startedAt ?? now))}`;
    case 'retrying':
      return `retrying · attempt ${node.attempts}/${node.maxAttempts}`;
    case 'completed':
    case 'dead':
      return node.startedAt !== null && node.finishedAt !== null ? `${node.state} · ${elapsedText(node.finishedAt - node.startedAt)}` : node.state;
    default:
      return node.state;
  }
}

/** The order a run's counts are said in: what moves first, then how jobs ended. */
const COUNT_ORDER: readonly JobState[] = ['running', 'queued', 'retrying', 'blocked', 'held', 'dead', 'cancelled', 'completed'];

/** What a run's jobs are doing: "1 running · 2 blocked · 1 dead · 3 completed"; "no jobs" for none. */
export function runCounts(run: Pick<WorkflowRun, 'counts'>): string {
  const parts = COUNT_ORDER.filter((s) => run.counts[s] > 0).map((s) => `${run.counts[s]} ${s}`);
  return parts.length === 0 ? 'no jobs' : parts.join(' · ');
}

/** A smooth line through an edge's points: straight between two, a Catmull-Rom curve through more. */
export function edgePath(points: readonly { x: number; y: number }[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  const r = (n: number): string => String(Math.round(n * 10) / 10);
  if (rest.length === 0) return `M${r(first.x)},${r(first.y)}`;
  let d = `M${r(first.x)},${r(first.y)}`;
  for (let i = 0; i < points.length - 1; i++) {
    const p0 = points[i - 1] ?? points[i];
    const p1 = points[i];
    const p2 = points[i + 1];
    const p3 = points[i + 2] ?? p2;
    if (!p0 || !p1 || !p2 || !p3) continue;
    const c1 = { x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6 };
    const c2 = { x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6 };
    d += ` C${r(c1.x)},${r(c1.y)} ${r(c2.x)},${r(c2.y)} ${r(p2.x)},${r(p2.y)}`;
  }
  return d;
}

function edgeSvg(edge: GraphEdge): string {
  return `<path class="edge on-${edge.on}" data-from="${escapeHtml(edge.from)}" data-to="${escapeHtml(edge.to)}" d="${edgePath(edge.points)}" marker-end="url(#arrow-${edge.on})"></path>`;
}

function nodeSvg(node: GraphNode, now: number): string {
  const since = node.state === 'running' && node.startedAt !== null ? ` data-since="${node.startedAt}"` : '';
  const status = nodeStatus(node, now);
  const tip = `${node.title}: ${status}${node.lastError ? `\n${node.lastError.split('\n', 1)[0] ?? ''}` : ''}`;
  return (
    `<g class="node state-${node.state}" data-job="${escapeHtml(node.id)}" data-state="${node.state}" data-label="${escapeHtml(node.title)}" transform="translate(${node.x},${node.y})" tabindex="0" role="button" aria-label="${escapeHtml(`${node.title}, ${status}. Open its job page.`)}">` +
    `<title>${escapeHtml(tip)}</title>` +
    `<rect width="${node.width}" height="${node.height}" rx="4"></rect>` +
    `<text class="name" x="10" y="18"><tspan class="glyph">${STATE_GLYPHS[node.state]}</tspan> ${escapeHtml(node.label)}</text>` +
    `<text class="status" x="10" y="35"${since}>${escapeHtml(status)}</text>` +
    '</g>'
  );
}

const MARKERS = (['succeeded', 'failed', 'finished'] as const)
  .map((on) => `<marker id="arrow-${on}" class="arrow on-${on}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"></path></marker>`)
  .join('');

/** The graph as one SVG: clusters under edges under nodes. */
export function graphSvg(graph: RunGraph, now: number): string {
  const clusters = graph.clusters
    .map((c) => `<g class="cluster" data-step="${escapeHtml(c.step)}"><rect x="${c.x}" y="${c.y - CLUSTER_LABEL}" width="${c.width}" height="${c.height + CLUSTER_LABEL}" rx="6"></rect><text x="${c.x + 8}" y="${c.y - CLUSTER_LABEL + 13}">${escapeHtml(c.step)}</text></g>`)
    .join('');
  return (
    `<svg class="graph" width="${Math.ceil(graph.width)}" height="${Math.ceil(graph.height)}" viewBox="0 0 ${Math.ceil(graph.width)} ${Math.ceil(graph.height)}" role="group" aria-label="The run's jobs">` +
    `<defs>${MARKERS}</defs>${clusters}${graph.edges.map(edgeSvg).join('')}${graph.nodes.map((n) => nodeSvg(n, now)).join('')}</svg>`
  );
}

function button(action: keyof RunActions, enabled: boolean): string {
  return `<button type="button" class="${action === 'retry' ? 'primary' : 'secondary'}" data-action="${action}"${enabled ? '' : ' disabled'}>${ACTION_LABELS[action]}</button>`;
}

/** The page's body: the run's name, state and counts, its parameters, the buttons and the graph. */
export function renderRunBody(run: WorkflowRunDetail, graph: RunGraph, now: number, actions: RunActions, gone = false): string {
  const buttons = (['retry', 'cancel'] as const).filter((a) => actions[a] !== undefined).map((a) => button(a, actions[a] === true && !gone));
  const params = Object.entries(run.params);
  const state: JobState | WorkflowRun['state'] = run.state;
  return [
    gone ? '<p class="banner" role="status">This run is no longer in the daemon. The page shows it as it was last seen.</p>' : '',
    `<header><h1>${escapeHtml(runName(run))}</h1>`,
    `<p class="run-state state-${state}" data-state="${state}"><strong>${state}</strong> — ${escapeHtml(runCounts(run))}${run.endedAt !== null && run.endedAt >= run.createdAt ? ` · took ${escapeHtml(elapsedText(run.endedAt - run.createdAt))}` : ''}</p>`,
    run.description ? `<p class="muted">${escapeHtml(run.description)}</p>` : '',
    params.length > 0 ? `<p class="params">${params.map(([k, v]) => `<code>${escapeHtml(k)}=${escapeHtml(v)}</code>`).join(' ')}</p>` : '',
    buttons.length > 0 ? `<div class="actions">${buttons.join('')}</div>` : '',
    '</header>',
    '<p class="legend muted"><span class="key on-succeeded"></span> runs when it succeeded <span class="key on-failed"></span> when it failed <span class="key on-finished"></span> whatever the outcome</p>',
    `<div class="canvas">${graphSvg(graph, now)}</div>`,
  ].join('');
}

/** The page's style: VS Code's colours and fonts, so it follows the theme. */
export const RUN_STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 20px 20px; }
h1 { font-size: 1.5em; font-weight: 600; margin: 16px 0 4px; }
.muted { color: var(--vscode-descriptionForeground); }
code { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); padding: 1px 4px; border-radius: 3px; }
.run-state.state-running strong { color: var(--vscode-charts-blue); }
.run-state.state-succeeded strong { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.run-state.state-failed strong { color: var(--vscode-errorForeground); }
.banner { background: var(--vscode-inputValidation-warningBackground); border: 1px solid var(--vscode-inputValidation-warningBorder); padding: 6px 10px; margin-top: 12px; }
.actions { display: flex; gap: 6px; margin: 8px 0; }
button { font-family: inherit; font-size: inherit; border: 1px solid var(--vscode-button-border, transparent); padding: 4px 12px; border-radius: 2px; cursor: pointer; }
button.primary { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.primary:hover:enabled { background: var(--vscode-button-hoverBackground); }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
button.secondary:hover:enabled { background: var(--vscode-button-secondaryHoverBackground); }
button:disabled { opacity: 0.5; cursor: default; }
button:focus-visible, .node:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
.legend .key { display: inline-block; width: 24px; height: 0; vertical-align: middle; margin: 0 4px 0 12px; border-top: 2px solid var(--vscode-descriptionForeground); }
.legend .key.on-failed { border-top-style: dashed; border-top-color: var(--vscode-errorForeground); }
.legend .key.on-finished { border-top-style: dotted; }
.canvas { overflow: auto; margin-top: 8px; }
svg.graph text { font-family: var(--vscode-font-family); font-size: 12px; fill: var(--vscode-foreground); }
.cluster rect { fill: var(--vscode-editorWidget-background, transparent); stroke: var(--vscode-editorWidget-border, var(--vscode-panel-border)); stroke-dasharray: 4 3; }
.cluster text { fill: var(--vscode-descriptionForeground); font-weight: 600; }
.edge { fill: none; stroke: var(--vscode-descriptionForeground); stroke-width: 1.5; }
.edge.on-failed { stroke: var(--vscode-errorForeground); stroke-dasharray: 6 4; }
.edge.on-finished { stroke-dasharray: 2 3; }
.arrow path { fill: var(--vscode-descriptionForeground); }
.arrow.on-failed path { fill: var(--vscode-errorForeground); }
.node { cursor: pointer; }
.node rect { fill: var(--vscode-editor-background); stroke: var(--vscode-descriptionForeground); stroke-width: 1.5; }
.node:hover rect { stroke-width: 2.5; }
.node text.status { fill: var(--vscode-descriptionForeground); font-size: 11px; }
.node.state-running rect { stroke: var(--vscode-charts-blue); fill: color-mix(in srgb, var(--vscode-charts-blue) 15%, var(--vscode-editor-background)); }
.node.state-running .glyph { fill: var(--vscode-charts-blue); }
.node.state-completed rect { stroke: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); fill: color-mix(in srgb, var(--vscode-charts-green) 12%, var(--vscode-editor-background)); }
.node.state-completed .glyph { fill: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.node.state-dead rect { stroke: var(--vscode-errorForeground); fill: color-mix(in srgb, var(--vscode-errorForeground) 15%, var(--vscode-editor-background)); }
.node.state-dead .glyph { fill: var(--vscode-errorForeground); }
.node.state-retrying rect { stroke: var(--vscode-charts-yellow); }
.node.state-retrying .glyph { fill: var(--vscode-charts-yellow); }
.node.state-cancelled rect { stroke-dasharray: 3 3; }
.node.state-cancelled text { fill: var(--vscode-disabledForeground, var(--vscode-descriptionForeground)); }
.node.state-blocked rect { stroke: var(--vscode-charts-purple); stroke-dasharray: 5 3; }
.node.state-queued rect { stroke: var(--vscode-foreground); }
`;
