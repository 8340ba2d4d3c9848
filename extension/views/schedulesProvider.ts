/**
 * The Schedules view: each schedule with its cron in words, the next run as a relative time,
 * and whether it is enabled. It follows `schedules.changed`, so schedules created, changed,
 * fired or deleted from anywhere (the CLI, another window) show without a refresh.
 */
import * as vscode from 'vscode';
import type { Schedule } from '../../shared/protocol/types';
import { describeCron } from '../../shared/domain/cron';
import type { DaemonConnection } from '../daemon/connection';
import { ownerDescription, ownerTooltip } from '../jobsFileDeclaration';
import { payloadSummary, relativeTime } from './format';
import { StatsListProvider } from './statsListProvider';

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
  // The zone the times are in: "02:00" alone read as local time for a Paris schedule.
  item.description = `${describeCron(s.cron)} (${s.timezone}) · ${when}${s.owner !== undefined ? ` · ${ownerDescription(s.owner)}` : ''}`;
  item.iconPath = new vscode.ThemeIcon(s.enabled ? 'calendar' : 'circle-slash');
  // `.owned` offers Reveal in spool.jsonc where a project's file declares the schedule.
  item.contextValue = `${s.enabled ? 'schedule.enabled' : 'schedule.disabled'}${s.owner !== undefined ? '.owned' : ''}`;
  const tip = new vscode.MarkdownString(s.workflow !== undefined ? `**${s.name}** → workflow **${s.workflow}**\n\n` : `**${s.name}** → queue **${s.queue}**\n\n`);
  tip.appendMarkdown(`\`${s.cron}\` (${s.timezone}) — ${describeCron(s.cron)}\n\n`);
  if (s.workflow === undefined) tip.appendMarkdown(`Job: ${s.job.kind} ${payloadSummary(s.job.kind, s.job.payload)}\n\n`);
  else tip.appendMarkdown(`Starts a run of workflow ${s.workflow}${Object.keys(s.params ?? {}).length > 0 ? ` (${Object.entries(s.params ?? {}).map(([k, v]) => `${k}=${v}`).join(', ')})` : ''}\n\n`);
  tip.appendMarkdown(`Last run: ${s.lastRunAt !== null ? relativeTime(s.lastRunAt, now) : 'never'} · missed runs: ${s.missedPolicy}`);
  if (s.owner !== undefined) tip.appendMarkdown('\n\n').appendText(ownerTooltip(s.owner));
  item.tooltip = tip;
  return item;
}

export class SchedulesProvider extends StatsListProvider<ScheduleNode, Schedule[]> {
  constructor(connection: DaemonConnection) {
    super(connection, [connection.onScheduleChanged]);
  }

  getTreeItem(node: ScheduleNode): vscode.TreeItem {
    return scheduleItem(node);
  }

  protected async fetch(): Promise<Schedule[]> {
    const { schedules } = await this.connection.client().call('schedules.list');
    void vscode.commands.executeCommand('setContext', 'spool.noSchedules', schedules.length === 0);
    return schedules;
  }

  protected top(schedules: Schedule[]): ScheduleNode[] {
    return schedules.filter((s) => this.matches(`${s.name} ${s.workflow ?? s.queue}`)).map((schedule) => ({ type: 'schedule', schedule }));
  }
}
