/**
 * The dashboard's script, bundled by esbuild with uPlot into dist/dashboardPage.js (uPlot's style
 * sheet beside it, dist/dashboardPage.css) and loaded by the page with its nonce. It draws each
 * update it is sent: the body (render.ts), then one uPlot chart per chart box, coloured from the
 * theme's chart colours. Each box keeps the series it drew in `data-series` (JSON of the labels
 * and the values before stacking) and the times in `data-times`, which the tests read. It posts
 * the range and the queue the user picks.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { stack, type Chart, type DashboardData } from '../history';
import { DASHBOARD_MESSAGE, isRange, type DashboardUpdate, type FromDashboard } from '../messages';
import { renderDashboardBody } from '../render';

declare function acquireVsCodeApi(): { postMessage(message: FromDashboard): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
let current: DashboardUpdate | null = null;
let plots: uPlot[] = [];

function post(message: FromDashboard): void {
  vscode.postMessage(message);
}

function themeColour(name: string, fallback: string): string {
  const value = getComputedStyle(document.body).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** The colours of the series, in order: the theme's chart colours, and by outcome for throughput. */
function palette(): string[] {
  return [
    themeColour('--vscode-charts-blue', '#3794ff'),
    themeColour('--vscode-charts-orange', '#d18616'),
    themeColour('--vscode-charts-green', '#89d185'),
    themeColour('--vscode-charts-purple', '#b180d7'),
    themeColour('--vscode-charts-yellow', '#cca700'),
    themeColour('--vscode-charts-red', '#f14c4c'),
  ];
}

function outcomeColour(label: string, i: number, colours: readonly string[]): string {
  const byOutcome: Record<string, string> = {
    completed: themeColour('--vscode-charts-green', '#89d185'),
    failed: themeColour('--vscode-charts-yellow', '#cca700'),
    dead: themeColour('--vscode-charts-red', '#f14c4c'),
    cancelled: themeColour('--vscode-descriptionForeground', '#999999'),
  };
  return byOutcome[label] ?? colours[i % colours.length] ?? '#888888';
}

function valueText(unit: Chart['unit'], v: number | null): string {
  if (v === null) return '—';
  if (unit === '%') return `${v}%`;
  if (unit === 'ms') return v >= 1000 ? `${Math.round(v / 100) / 10}s` : `${Math.round(v)}ms`;
  return String(Math.round(v * 100) / 100);
}

function drawChart(box: HTMLElement, chart: Chart, data: DashboardData): void {
  const plotBox = box.querySelector<HTMLElement>('.plot');
  if (!plotBox) return;
  box.dataset.series = JSON.stringify(chart.series.map((s) => ({ label: s.label, values: s.values })));
  box.dataset.times = JSON.stringify(data.times);
  const colours = palette();
  const fg = themeColour('--vscode-foreground', '#cccccc');
  const grid = themeColour('--vscode-editorWidget-border', 'rgba(128,128,128,0.25)');
  const drawn = chart.stacked ? stack(chart.series) : chart.series;
  const series: uPlot.Series[] = [{}];
  drawn.forEach((s, i) => {
    const colour = chart.id === 'throughput' ? outcomeColour(s.label, i, colours) : (colours[i % colours.length] ?? fg);
    series.push({ label: s.label, stroke: colour, width: 1.5, spanGaps: false, ...(chart.stacked ? { fill: colour } : {}), value: (_u: uPlot, v: number | null) => valueText(chart.unit, v) });
  });
  // Stacked: the top band is drawn first so each lower one shows over it.
  const order = chart.stacked ? [...drawn.keys()].reverse() : [...drawn.keys()];
  const seriesInOrder: uPlot.Series[] = [series[0] ?? {}, ...order.map((k) => series[k + 1] ?? {})];
  const values: uPlot.AlignedData = [data.times.map((t) => t / 1000), ...order.map((k) => drawn[k]?.values ?? [])];
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const options: uPlot.Options = {
    width: Math.max(300, plotBox.clientWidth),
    height: 200,
    series: seriesInOrder,
    axes: [axis, { ...axis, size: 50, values: (_u: uPlot, ticks: number[]) => ticks.map((t) => valueText(chart.unit, t)) }],
    scales: { x: { time: true }, y: { range: (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => [Math.min(0, min), Math.max(1, max)] } },
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
  };
  plots.push(new uPlot(options, values, plotBox));
}

function draw(update: DashboardUpdate): void {
  if (!root) return;
  current = update;
  for (const p of plots) p.destroy();
  plots = [];
  root.innerHTML = renderDashboardBody({ queues: update.queues, range: update.range, queue: update.queue, health: update.health, charts: update.data?.charts ?? null, note: update.note, schedules: update.schedules });
  if (update.focusSchedules) document.getElementById('schedules')?.scrollIntoView();
  const data = update.data;
  if (!data) return;
  for (const chart of data.charts) {
    const box = root.querySelector<HTMLElement>(`[data-chart="${chart.id}"]`);
    if (box) drawChart(box, chart, data);
  }
  root.dataset.drawnAt = String(Date.now());
}

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const range = target?.closest('[data-range]')?.getAttribute('data-range');
  if (isRange(range) && current) {
    event.preventDefault();
    post({ type: DASHBOARD_MESSAGE.show, range, queue: current.queue });
    return;
  }
  const queue = target?.closest('[data-open-queue]')?.getAttribute('data-open-queue');
  if (queue && current) {
    event.preventDefault();
    post({ type: DASHBOARD_MESSAGE.show, range: current.range, queue });
  }
});
document.addEventListener('change', (event) => {
  if (event.target instanceof HTMLSelectElement && event.target.id === 'queue' && current) post({ type: DASHBOARD_MESSAGE.show, range: current.range, queue: event.target.value === '' ? null : event.target.value });
});
let resizeTimer: number | undefined;
window.addEventListener('resize', () => {
  window.clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(() => {
    for (const p of plots) {
      const box = p.root.parentElement;
      if (box) p.setSize({ width: Math.max(300, box.clientWidth), height: 200 });
    }
  }, 100);
});
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data;
  if (typeof message === 'object' && message !== null && Reflect.get(message, 'type') === DASHBOARD_MESSAGE.update) draw(message as DashboardUpdate);
});
post({ type: DASHBOARD_MESSAGE.ready });
