/**
 * The one status-bar item: running / queued / dead counts while connected ("all queues paused"
 * first while every queue is), "reconnecting",
 * "disconnected" with a start action. One state type, rendered by one function (`render`).
 */
import * as vscode from 'vscode';
import type { Stats } from '../shared/protocol';
import { countColumns, delayedTotal } from '../shared/domain/present';
import type { ConnectionStateName, DaemonConnection } from './daemon/connection';

export interface StatusView {
  text: string;
  tooltip: string | vscode.MarkdownString;
  command: string;
  warning: boolean;
}

/**
 * What the item shows for a connection state and the latest counts. Pure, so tests can call it.
 * `remote` is the endpoint of a daemon on another machine (null: the local one): the item then
 * says which daemon it shows, and never offers to start it.
 */
export function render(state: ConnectionStateName, stats: Stats | null, remote: string | null = null): StatusView {
  const view = renderLocal(state, stats);
  if (remote === null) return view;
  const where = `The Spool daemon at ${remote} (on another machine).`;
  if (state === 'disconnected') {
    return { text: `$(debug-disconnect) Spool: ${remote} not connected`, tooltip: `${where} Not connected: see the message, or the log. Click to connect again.`, command: 'spool.daemon.start', warning: true };
  }
  if (typeof view.tooltip === 'string') return { ...view, text: view.text.replace('$(pulse)', '$(remote)'), tooltip: `${where} ${view.tooltip}` };
  const tooltip = new vscode.MarkdownString(`${where}\n\n`, true);
  tooltip.isTrusted = view.tooltip.isTrusted;
  tooltip.appendMarkdown(view.tooltip.value);
  return { ...view, text: view.text.replace('$(pulse)', '$(remote)'), tooltip };
}

function renderLocal(state: ConnectionStateName, stats: Stats | null): StatusView {
  switch (state) {
    case 'connected': {
      // The words of the Queues view (shared/domain/present/counts.ts): queued = due now.
      const totals = stats === null ? null : countColumns(stats.totals, delayedTotal(stats.queues));
      const running = totals?.running ?? 0;
      const queued = totals?.queued ?? 0;
      const dead = totals?.dead ?? 0;
      // Every queue paused (spool pause --all): said first, since nothing will start.
      let text = stats?.allPaused === true ? `$(debug-pause) Spool: all queues paused · ${running} running` : `$(pulse) ${running} running · ${queued} queued`;
      if (dead > 0) text += ` · ${dead} dead`;
      return { text, tooltip: breakdown(stats), command: 'spool.queues.focus', warning: dead > 0 || stats?.allPaused === true };
    }
    case 'connecting':
      return { text: '$(sync~spin) Spool: connecting', tooltip: 'Connecting to the Spool daemon…', command: 'spool.extension.showLog', warning: false };
    case 'starting':
      return { text: '$(sync~spin) Spool: starting', tooltip: 'Starting the Spool daemon…', command: 'spool.extension.showLog', warning: false };
    case 'reconnecting':
      return { text: '$(sync~spin) Spool: reconnecting', tooltip: 'The Spool daemon went away; reconnecting.', command: 'spool.extension.showLog', warning: true };
    case 'mismatch':
      return { text: '$(warning) Spool: version mismatch', tooltip: 'The running daemon speaks another protocol version. Click to restart it.', command: 'spool.daemon.restart', warning: true };
    case 'disconnected':
      return { text: '$(debug-disconnect) Spool: disconnected', tooltip: 'No Spool daemon is running. Click to start one.', command: 'spool.daemon.start', warning: false };
  }
}

function breakdown(stats: Stats | null): vscode.MarkdownString {
  const md = new vscode.MarkdownString('', true);
  // Command links in the tooltip run Spool's own commands only.
  md.isTrusted = { enabledCommands: ['spool.queues.focus', 'spool.jobs.enqueue', 'spool.jobs.retryAllDead'] };
  md.appendMarkdown('**Spool**\n\n');
  if (stats?.allPaused === true) md.appendMarkdown('All queues are paused: no job starts until `spool resume --all`.\n\n');
  if (!stats || stats.queues.length === 0) {
    md.appendMarkdown('No queues yet.\n\n');
  } else {
    md.appendMarkdown('| queue | running | queued | delayed | retrying | dead |\n|---|---:|---:|---:|---:|---:|\n');
    for (const q of stats.queues) {
      const c = countColumns(q.counts, q.delayed);
      md.appendMarkdown(`| ${q.name}${q.paused ? ' (paused)' : ''} | ${c.running} | ${c.queued} | ${c.delayed} | ${c.retrying} | ${c.dead} |\n`);
    }
    md.appendMarkdown(`\nLast hour: ${stats.completedLastHour} completed, ${stats.failedLastHour} failed.\n\n`);
  }
  md.appendMarkdown('[Show Queues](command:spool.queues.focus) · [Enqueue Job](command:spool.jobs.enqueue)');
  return md;
}

export class SpoolStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('spool.status', vscode.StatusBarAlignment.Left, 10);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly connection: DaemonConnection) {
    this.item.name = 'Spool';
    this.disposables.push(connection.onDidChangeState(() => this.update()), connection.onStats(() => this.update()));
    this.update();
    this.item.show();
  }

  /** The text shown now (the tests read it). */
  get text(): string {
    return this.item.text;
  }

  private update(): void {
    const view = render(this.connection.state, this.connection.stats, this.connection.endpoint);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = view.command;
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
