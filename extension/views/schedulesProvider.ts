/**
 * The Schedules view: each schedule with its cron in words, the next run as a relative time,
 * and whether it is enabled. Schedules change rarely; the view re-reads them when the daemon
 * reports new counts (a schedule fired) and after Spool's own schedule commands.
 */
import * as vscode from 'vscode';
import type { Schedule } from '../../shared/types';
import type { DaemonConnection } from '../daemon/connection';
import { cronInWords, payloadSummary, relativeTime } from './format';
import { Refresher } from './refresher';

export interface ScheduleNode {
  type: 'schedule';
  schedule: Schedule;
}

export function isScheduleNode(value: unknown): value is ScheduleNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'schedule' && 'schedule' in value;
}

export function scheduleItem(node: ScheduleNode, now = Date.now()): vscode.TreeItem {
  const s = node.schedule;
  const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
  item.id = `schedule:${s.name}`;
  const when = s.enabled ? (s.nextRunAt !== null ? `next ${relativeTime(s.nextRunAt, now)}` : 'no next run') : 'disabled';
  item.description = `${cronInWords(s.cron)} · ${when}`;
  item.iconPath = new vscode.ThemeIcon(s.enabled ? 'calendar' : 'circle-slash');
  item.contextValue = s.enabled ? 'schedule.enabled' : 'schedule.disabled';
  const tip = new vscode.MarkdownString(`**${s.name}** → queue **${s.queue}**\n\n`);
  tip.appendMarkdown(`\`${s.cron}\` (${s.timezone}) — ${cronInWords(s.cron)}\n\n`);
  tip.appendMarkdown(`Job: ${s.job.kind} ${payloadSummary(s.job.kind, s.job.payload)}\n\n`);
  tip.appendMarkdown(`Last run: ${s.lastRunAt !== null ? relativeTime(s.lastRunAt, now) : 'never'} · missed runs: ${s.missedPolicy}`);
  item.tooltip = tip;
  return item;
}

export class SchedulesProvider implements vscode.TreeDataProvider<ScheduleNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<ScheduleNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly refresher = new Refresher(() => this.changeEmitter.fire(undefined));
  /** Text the names must contain; empty shows all. */
  filterText = '';
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.refresher];

  constructor(private readonly connection: DaemonConnection) {
    this.disposables.push(
      connection.onStats(() => this.refresher.changed()),
      connection.onDidConnect(() => this.refresher.now()),
      connection.onDidChangeState(() => this.refresher.now()),
    );
  }

  getTreeItem(node: ScheduleNode): vscode.TreeItem {
    return scheduleItem(node);
  }

  async getChildren(node?: ScheduleNode): Promise<ScheduleNode[]> {
    if (node || this.connection.state !== 'connected') return [];
    const { schedules } = await this.connection.client().call('schedules.list');
    void vscode.commands.executeCommand('setContext', 'spool.noSchedules', schedules.length === 0);
    const text = this.filterText.toLowerCase();
    return schedules
      .filter((s) => text === '' || s.name.toLowerCase().includes(text) || s.queue.toLowerCase().includes(text))
      .map((schedule) => ({ type: 'schedule', schedule }));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
