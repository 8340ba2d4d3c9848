/**
 * The Queues view's elements and how each is drawn: queue → state group → job, plus the
 * "Load more…" item that pages a group. `contextValue` carries the state (`queue.paused`,
 * `group.dead`, `job.running`), and the menus in package.json match on it.
 */
import * as vscode from 'vscode';
import { formatDuration } from '../../../shared/domain/durations';
import { formatRate } from '../../../shared/domain/rates';
import type { Job, JobState, Queue } from '../../../shared/types';
import { jobLabel, relativeTime, shortId } from '../format';

/** The groups under a queue. `delayed` is the queued jobs whose runAt lies in the future. */
export type GroupName = 'running' | 'queued' | 'delayed' | 'retrying' | 'dead' | 'completed' | 'cancelled';
export const GROUPS: readonly GroupName[] = ['running', 'queued', 'delayed', 'retrying', 'dead', 'completed', 'cancelled'];

export interface QueueNode {
  type: 'queue';
  queue: Queue;
}
export interface GroupNode {
  type: 'group';
  queue: string;
  group: GroupName;
  /** The queue's count for the group, from `queues.list`: it ignores any kind or text filter. */
  count: number;
  /**
   * A kind or text filter narrows the jobs listed under the group, so `count` is not the number
   * of jobs the group lists and is not shown.
   */
  filtered: boolean;
}
export interface JobNode {
  type: 'job';
  job: Job;
  group: GroupName;
}
export interface LoadMoreNode {
  type: 'loadMore';
  queue: string;
  group: GroupName;
  loaded: number;
  /** The group's count; null under a kind or text filter, whose total `jobs.list` does not return. */
  total: number | null;
}
export type QueueTreeNode = QueueNode | GroupNode | JobNode | LoadMoreNode;

export function isJobNode(value: unknown): value is JobNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'job' && 'job' in value;
}
export function isQueueNode(value: unknown): value is QueueNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'queue' && 'queue' in value;
}
export function isGroupNode(value: unknown): value is GroupNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'group' && 'group' in value;
}
export function isLoadMoreNode(value: unknown): value is LoadMoreNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'loadMore';
}

export function groupCount(queue: Queue, group: GroupName): number {
  if (group === 'delayed') return queue.delayed;
  if (group === 'queued') return queue.counts.queued - queue.delayed;
  return queue.counts[group];
}

/** What `jobs.list` is asked for to fill a group. */
export function groupFilter(group: GroupName): { states: JobState[]; delayed?: boolean } {
  if (group === 'queued') return { states: ['queued'], delayed: false };
  if (group === 'delayed') return { states: ['queued'], delayed: true };
  return { states: [group] };
}

const GROUP_TITLES: Record<GroupName, string> = {
  running: 'Running',
  queued: 'Queued',
  delayed: 'Delayed',
  retrying: 'Retrying',
  dead: 'Dead',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

export function stateIcon(group: GroupName): vscode.ThemeIcon {
  switch (group) {
    case 'running':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
    case 'queued':
      return new vscode.ThemeIcon('circle-outline');
    case 'delayed':
      return new vscode.ThemeIcon('clock');
    case 'retrying':
      return new vscode.ThemeIcon('history', new vscode.ThemeColor('charts.yellow'));
    case 'dead':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'completed':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash');
  }
}

/** "3 running · 12 queued · 1 dead": the non-zero active counts, in that order. */
export function queueDescription(queue: Queue): string {
  const c = queue.counts;
  const parts: string[] = [];
  if (c.running > 0) parts.push(`${c.running} running`);
  if (c.queued + c.retrying > 0) parts.push(`${c.queued + c.retrying} queued`);
  if (c.dead > 0) parts.push(`${c.dead} dead`);
  if (parts.length === 0) parts.push(c.completed > 0 ? `${c.completed} completed` : 'empty');
  return (queue.paused ? 'paused · ' : '') + parts.join(' · ');
}

export function queueItem(node: QueueNode): vscode.TreeItem {
  const q = node.queue;
  const item = new vscode.TreeItem(q.name, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `queue:${q.name}`;
  item.description = queueDescription(q);
  item.iconPath = new vscode.ThemeIcon(q.paused ? 'debug-pause' : 'layers');
  item.contextValue = q.paused ? 'queue.paused' : 'queue.active';
  const tip = new vscode.MarkdownString(`**${q.name}**${q.paused ? ' (paused)' : ''}\n\n`);
  tip.appendMarkdown(`Concurrency: ${q.concurrency ?? 'no limit'} · Rate limit: ${q.rateLimit ? formatRate(q.rateLimit) : 'none'}\n\n`);
  tip.appendMarkdown(`Default attempts: ${q.defaultMaxAttempts} · Timeout: ${formatDuration(q.defaultTimeoutMs)}`);
  item.tooltip = tip;
  return item;
}

export function groupItem(node: GroupNode): vscode.TreeItem {
  const item = new vscode.TreeItem(GROUP_TITLES[node.group], node.count > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `group:${node.queue}:${node.group}`;
  if (node.filtered) {
    item.description = 'filtered';
    // A Markdown tooltip, not a string: VS Code reads a string tooltip out as the row's
    // accessible name in place of "Queued filtered".
    item.tooltip = new vscode.MarkdownString().appendText(`${node.count} ${node.group} job(s) in ${node.queue}; only those that match the filter are listed.`);
  } else {
    item.description = String(node.count);
  }
  item.iconPath = stateIcon(node.group);
  item.contextValue = `group.${node.group}`;
  return item;
}

export function jobDescription(job: Job, now = Date.now()): string {
  const parts = [`${job.attempts}/${job.maxAttempts}`];
  if (job.state === 'running' && job.progress !== null) parts.push(`${Math.round(job.progress)}%`);
  if (job.state === 'queued' && job.runAt > now) parts.push(`starts ${relativeTime(job.runAt, now)}`);
  else if (job.state === 'retrying') parts.push(`retries ${relativeTime(job.runAt, now)}`);
  else parts.push(relativeTime(job.finishedAt ?? job.startedAt ?? job.createdAt, now));
  return parts.join(' · ');
}

export function jobTooltip(job: Job): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  const time = (t: number | null): string => (t === null ? '—' : `${new Date(t).toISOString()} (${relativeTime(t)})`);
  md.appendMarkdown(`**${job.kind}** job \`${job.id}\` in **${job.queue}**\n\n`);
  md.appendMarkdown(`State: ${job.state}${job.cancelRequested ? ' (cancel requested)' : ''} · attempt ${job.attempts}/${job.maxAttempts} · priority ${job.priority}${job.weight !== 1 ? ` · weight ${job.weight}` : ''}\n\n`);
  md.appendMarkdown(`Created: ${time(job.createdAt)}  \nRun at: ${time(job.runAt)}  \nStarted: ${time(job.startedAt)}  \nFinished: ${time(job.finishedAt)}\n\n`);
  if (job.progress !== null) md.appendMarkdown(`Progress: ${job.progress}%${job.progressMessage ? ` — ${job.progressMessage}` : ''}\n\n`);
  if (job.lastError) md.appendCodeblock(job.lastError, 'text');
  return md;
}

export function jobItem(node: JobNode): vscode.TreeItem {
  const job = node.job;
  const item = new vscode.TreeItem(jobLabel(job), vscode.TreeItemCollapsibleState.None);
  // The group is part of the id: a job that moves shows up in its new group without clashing.
  item.id = `job:${node.group}:${job.id}`;
  item.description = jobDescription(job);
  item.iconPath = stateIcon(node.group);
  item.contextValue = `job.${job.state}`;
  item.tooltip = jobTooltip(job);
  item.accessibilityInformation = { label: `${job.kind} job ${shortId(job.id)}, ${job.state}` };
  item.command = { command: 'spool.jobs.openDetails', title: 'Open Job Details', arguments: [node] };
  return item;
}

export function loadMoreItem(node: LoadMoreNode): vscode.TreeItem {
  const item = new vscode.TreeItem('Load more…', vscode.TreeItemCollapsibleState.None);
  item.id = `more:${node.queue}:${node.group}:${node.loaded}`;
  item.description = node.total === null ? `${node.loaded} shown` : `${node.loaded} of ${node.total}`;
  item.iconPath = new vscode.ThemeIcon('more');
  item.contextValue = 'loadMore';
  item.command = { command: 'spool.jobs.loadMore', title: 'Load More Jobs', arguments: [node] };
  return item;
}
