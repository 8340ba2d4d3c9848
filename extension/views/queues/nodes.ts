/**
 * The Queues view's elements and how each is drawn: queue → state group → job, plus the
 * "Load more…" item that pages a group. `contextValue` carries the state (`queue.paused`,
 * `queue.active.hasDead`, `queue.active.owned`, `group.dead`, `group.retrying.empty`,
 * `job.running`, `job.blocked`), and the menus in package.json match on it. What the rows say comes from text.ts.
 */
import * as vscode from 'vscode';
import { formatDuration } from '../../../shared/domain/durations';
import { dependencyName } from '../../../shared/domain/present';
import { formatRate } from '../../../shared/domain/rates';
import type { QueueGroup } from '../../../shared/protocol';
import type { Job, JobDependency, Queue } from '../../../shared/protocol/types';
import { ownerDescription, ownerTooltip } from '../../jobsFileDeclaration';
import { jobLabel, relativeTime } from '../format';
import { GROUP_TITLES, countText, keyGroupDescription, keyGroupLabel, jobAccessibleLabel, jobDescription, matchingDescription, queueDescription, type GroupName, type MatchCount } from './text';

export { GROUPS, type GroupName } from './text';

export interface QueueNode {
  type: 'queue';
  queue: Queue;
  /** Under a filter: how many of the queue's jobs match. Null without a filter. */
  match?: MatchCount | null;
  /** Drawn expanded: it was expanded before (kept across restarts), or a filter shows its results. */
  expanded?: boolean;
  /** Part of the item's id: a filtered tree is a tree of its own, with its own expansion. */
  scope?: string;
}
export interface GroupNode {
  type: 'group';
  queue: string;
  group: GroupName;
  /** The jobs the group lists: the queue's count, or under a kind or text filter the matches counted. */
  count: number;
  /** True when more jobs match than `count` (the matches were counted a page at a time). */
  more?: boolean;
  /** A kind or text filter narrows the jobs listed under the group. */
  filtered: boolean;
  expanded?: boolean;
  scope?: string;
}
/** In a grouped queue: one group key with its waiting and running jobs (from `queues.groups`). */
export interface KeyGroupNode {
  type: 'keyGroup';
  queue: string;
  counts: QueueGroup;
  /** The queue's groupConcurrency; null when it sets none. */
  limit: number | null;
  expanded?: boolean;
}
/** After a page of a grouped queue's group keys: loads the next page. */
export interface MoreKeyGroupsNode {
  type: 'moreKeyGroups';
  queue: string;
  loaded: number;
}
export interface JobNode {
  type: 'job';
  job: Job;
  group: GroupName;
  /** Listed under a group key (KeyGroupNode) rather than under a state group. */
  key?: string;
  /** Of a blocked job: the jobs it depends on, as `jobs.get` read them with the page. */
  waitingOn?: JobDependency[];
}
export interface LoadMoreNode {
  type: 'loadMore';
  queue: string;
  group: GroupName;
  loaded: number;
  /** The group's count; null under a kind or text filter, whose total `jobs.list` does not return. */
  total: number | null;
}
export type QueueTreeNode = QueueNode | GroupNode | KeyGroupNode | MoreKeyGroupsNode | JobNode | LoadMoreNode;

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

export function isMoreKeyGroupsNode(value: unknown): value is MoreKeyGroupsNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'moreKeyGroups';
}
export function isKeyGroupNode(value: unknown): value is KeyGroupNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'keyGroup' && 'counts' in value;
}

export function stateIcon(group: GroupName): vscode.ThemeIcon {
  switch (group) {
    case 'running':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
    case 'queued':
      return new vscode.ThemeIcon('circle-outline');
    case 'delayed':
      return new vscode.ThemeIcon('clock');
    case 'blocked':
      return new vscode.ThemeIcon('watch');
    case 'retrying':
      return new vscode.ThemeIcon('history', new vscode.ThemeColor('charts.yellow'));
    case 'held':
      return new vscode.ThemeIcon('debug-pause');
    case 'dead':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'completed':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash');
  }
}

export function queueItem(node: QueueNode): vscode.TreeItem {
  const q = node.queue;
  const item = new vscode.TreeItem(q.name, node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `queue:${q.name}${node.scope ?? ''}`;
  const counts = node.match ? matchingDescription(q, node.match) : queueDescription(q);
  item.description = q.owner !== undefined ? `${counts} · ${ownerDescription(q.owner)}` : counts;
  item.iconPath = new vscode.ThemeIcon(q.paused ? 'debug-pause' : 'layers');
  // `.hasDead` lets the menus offer Retry All Dead only where there is something to retry;
  // `.owned`, always last, offers Reveal in spool.jsonc where a project's file declares the queue.
  item.contextValue = `${q.paused ? 'queue.paused' : 'queue.active'}${q.counts.dead > 0 ? '.hasDead' : ''}${q.owner !== undefined ? '.owned' : ''}`;
  const tip = new vscode.MarkdownString(`**${q.name}**${q.paused ? ' (paused)' : ''}\n\n`);
  tip.appendMarkdown(`${queueDescription(q)}\n\n`);
  tip.appendMarkdown(`Concurrency: ${q.concurrency ?? 'no limit'} · Rate limit: ${q.rateLimit ? formatRate(q.rateLimit) : 'none'}\n\n`);
  tip.appendMarkdown(`Default attempts: ${q.defaultMaxAttempts} · Timeout: ${formatDuration(q.defaultTimeoutMs)}`);
  if (q.owner !== undefined) tip.appendMarkdown('\n\n').appendText(ownerTooltip(q.owner));
  item.tooltip = tip;
  return item;
}

export function groupItem(node: GroupNode): vscode.TreeItem {
  const collapsed = node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
  const item = new vscode.TreeItem(GROUP_TITLES[node.group], node.count > 0 ? collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `group:${node.queue}:${node.group}${node.scope ?? ''}`;
  const count = countText({ count: node.count, more: node.more ?? false });
  item.description = count;
  if (node.filtered) {
    // A Markdown tooltip, not a string: VS Code reads a string tooltip out as the row's
    // accessible name in place of the label and count.
    item.tooltip = new vscode.MarkdownString().appendText(`${count} ${node.group} job${count === '1' ? '' : 's'} in ${node.queue} match${count === '1' ? 'es' : ''} the filter.`);
  }
  item.iconPath = stateIcon(node.group);
  item.contextValue = `group.${node.group}${node.count === 0 ? '.empty' : ''}`;
  return item;
}

export function jobTooltip(job: Job, now = Date.now(), waitingOn?: readonly JobDependency[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  const time = (t: number | null): string => (t === null ? '—' : `${new Date(t).toLocaleString()} (${relativeTime(t, now)})`);
  // What the job runs first: a narrow view cuts the row's label.
  md.appendText(jobLabel(job));
  md.appendMarkdown(`\n\n**${job.kind}** job \`${job.id}\` in **${job.queue}**\n\n`);
  md.appendMarkdown(`State: ${job.state}${job.cancelRequested ? ' (cancel requested)' : ''} · attempt ${job.attempts}/${job.maxAttempts} · priority ${job.priority}${job.weight !== 1 ? ` · weight ${job.weight}` : ''}\n\n`);
  md.appendMarkdown(`Created: ${time(job.createdAt)}  \nRun at: ${time(job.runAt)}  \nStarted: ${time(job.startedAt)}  \nFinished: ${time(job.finishedAt)}\n\n`);
  if (waitingOn && waitingOn.length > 0) {
    md.appendMarkdown('Depends on:\n\n');
    for (const d of waitingOn) md.appendText(`- ${dependencyName(d)}: ${d.state} (needs it to have ${d.on})\n`);
    md.appendMarkdown('\n');
  }
  if (job.progress !== null) md.appendMarkdown(`Progress: ${job.progress}%${job.progressMessage ? ` — ${job.progressMessage}` : ''}\n\n`);
  if (job.lastError) md.appendCodeblock(job.lastError, 'text');
  return md;
}

/** `noWorker`: for a due queued job no live worker takes, what the row adds (see present/waiting.ts). */
export function jobItem(node: JobNode, now = Date.now(), noWorker: string | null = null): vscode.TreeItem {
  const job = node.job;
  const item = new vscode.TreeItem(jobLabel(job), vscode.TreeItemCollapsibleState.None);
  // The group is part of the id: a job that moves shows up in its new group without clashing.
  item.id = node.key === undefined ? `job:${node.group}:${job.id}` : `job:key:${job.queue}:${node.key}:${job.id}`;
  item.description = jobDescription(job, node.group, now, node.waitingOn) + (noWorker === null ? '' : ` · ${noWorker}`);
  item.iconPath = stateIcon(node.group);
  item.contextValue = `job.${job.state}`;
  item.tooltip = jobTooltip(job, now, node.waitingOn);
  item.accessibilityInformation = { label: jobAccessibleLabel(job, node.group, now, node.waitingOn) };
  item.command = { command: 'spool.jobs.openDetails', title: 'Open Job Details', arguments: [node] };
  return item;
}

export function keyGroupItem(node: KeyGroupNode): vscode.TreeItem {
  const g = node.counts;
  // The jobs without a key have no group filter to list them by: they show under the state groups.
  const state = g.group === null ? vscode.TreeItemCollapsibleState.None : node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
  const item = new vscode.TreeItem(keyGroupLabel(g), state);
  item.id = `keyGroup:${node.queue}:${g.group ?? ''}`;
  item.description = keyGroupDescription(g, node.limit);
  item.iconPath = new vscode.ThemeIcon(node.limit !== null && g.waiting > 0 && g.runningWeight >= node.limit ? 'warning' : 'symbol-key');
  item.contextValue = g.group === null ? 'keyGroup.none' : 'keyGroup';
  const tip = new vscode.MarkdownString();
  tip.appendText(g.group === null ? `Jobs of ${node.queue} without a group: ${item.description}.` : `Group ${g.group} of ${node.queue}: ${item.description}.`);
  if (node.limit !== null && g.waiting > 0 && g.runningWeight >= node.limit) tip.appendText(` Its waiting jobs wait for a running one to end: the group is at its limit of ${node.limit}.`);
  item.tooltip = tip;
  return item;
}

export function moreKeyGroupsItem(node: MoreKeyGroupsNode): vscode.TreeItem {
  const item = new vscode.TreeItem('More groups…', vscode.TreeItemCollapsibleState.None);
  item.id = `moreKeyGroups:${node.queue}:${node.loaded}`;
  item.description = `${node.loaded} shown`;
  item.iconPath = new vscode.ThemeIcon('more');
  item.contextValue = 'loadMore';
  item.command = { command: 'spool.jobs.loadMore', title: 'Load More Groups', arguments: [node] };
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
