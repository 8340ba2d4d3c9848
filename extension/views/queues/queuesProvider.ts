/**
 * The Queues view: queues with their counts, state groups under each, and jobs a page at a
 * time under each group. Only what is expanded is fetched, and a group never loads more than the
 * pages the user asked for, so a queue of 100,000 jobs costs one `jobs.list` page.
 */
import * as vscode from 'vscode';
import type { JobOrder, ListJobsParams } from '../../../shared/protocol';
import type { Job, Queue } from '../../../shared/types';
import type { DaemonConnection } from '../../daemon/connection';
import { readSettings } from '../../settings';
import { Refresher } from '../refresher';
import {
  GROUPS,
  groupCount,
  groupFilter,
  groupItem,
  jobItem,
  loadMoreItem,
  queueItem,
  type GroupName,
  type GroupNode,
  type LoadMoreNode,
  type QueueNode,
  type QueueTreeNode,
} from './nodes';

/** The view's filter: narrows the jobs listed in each group. */
export interface JobViewFilter {
  kind?: string;
  search?: string;
  states?: GroupName[];
}

interface Page {
  jobs: Job[];
  nextCursor: string | null;
}

/**
 * How each group is sorted: due queued jobs first-in first-out (the listing index serves it
 * without sorting the queue); delayed and retrying jobs by when they will run; finished ones
 * newest first.
 */
const ORDER: Record<GroupName, JobOrder> = {
  running: 'oldest',
  queued: 'oldest',
  delayed: 'runAt',
  retrying: 'runAt',
  dead: 'newest',
  completed: 'newest',
  cancelled: 'newest',
};

export class QueuesProvider implements vscode.TreeDataProvider<QueueTreeNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<QueueTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly refresher = new Refresher(() => this.refresh());
  private queues: Queue[] = [];
  /** Loaded pages per `queue\0group`; cleared on refresh, then reloaded to the same length. */
  private readonly pages = new Map<string, Page>();
  private readonly wanted = new Map<string, number>();
  /**
   * The group elements last returned by getChildren, per queue and group. VS Code's tree finds
   * the element to refresh by identity and silently skips an object it has not seen, so
   * refreshing one group must fire the very object the tree holds.
   */
  private readonly groupNodes = new Map<string, Map<GroupName, GroupNode>>();
  private filterValue: JobViewFilter = {};
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.refresher];

  constructor(private readonly connection: DaemonConnection) {
    this.disposables.push(...this.refresher.follow(connection, [connection.onJobChanged, connection.onQueueChanged]));
  }

  get filter(): JobViewFilter {
    return this.filterValue;
  }

  setFilter(filter: JobViewFilter): void {
    this.filterValue = filter;
    void vscode.commands.executeCommand('setContext', 'spool.queuesFiltered', describeFilter(filter) !== '');
    this.refresh();
  }

  /** Forget every loaded page and redraw; expanded groups reload as many jobs as they showed. */
  refresh(): void {
    this.pages.clear();
    this.changeEmitter.fire(undefined);
  }

  getTreeItem(node: QueueTreeNode): vscode.TreeItem {
    switch (node.type) {
      case 'queue':
        return queueItem(node);
      case 'group':
        return groupItem(node);
      case 'job':
        return jobItem(node);
      case 'loadMore':
        return loadMoreItem(node);
    }
  }

  async getChildren(node?: QueueTreeNode): Promise<QueueTreeNode[]> {
    if (this.connection.state !== 'connected') return [];
    try {
      if (!node) return await this.rootChildren();
      if (node.type === 'queue') return this.groupsOf(node);
      if (node.type === 'group') return await this.jobsOf(node);
      return [];
    } catch (error) {
      // The daemon went away while the view was reading: the view empties and is refilled on
      // reconnect. Any other failure is a real error and is reported.
      if (this.connection.state !== 'connected') return [];
      throw error;
    }
  }

  getParent(node: QueueTreeNode): QueueTreeNode | undefined {
    if (node.type === 'queue') return undefined;
    const name = node.type === 'job' ? node.job.queue : node.queue;
    const queue = this.queues.find((q) => q.name === name);
    if (!queue) return undefined;
    if (node.type === 'group') return { type: 'queue', queue };
    return this.groupNodes.get(queue.name)?.get(node.group) ?? this.groupNode(queue, node.group);
  }

  /** Fetch the next page of a group and show it. */
  async loadMore(node: LoadMoreNode): Promise<void> {
    const key = pageKey(node.queue, node.group);
    const page = this.pages.get(key);
    if (!page || page.nextCursor === null) return;
    const next = await this.connection.client().call('jobs.list', { ...this.listParams(node.queue, node.group, readSettings().pageSize), cursor: page.nextCursor });
    page.jobs.push(...next.jobs);
    page.nextCursor = next.nextCursor;
    this.wanted.set(key, page.jobs.length);
    // Redraw only the group; if the tree no longer shows it, redraw the whole view.
    this.changeEmitter.fire(this.groupNodes.get(node.queue)?.get(node.group));
  }

  private async rootChildren(): Promise<QueueTreeNode[]> {
    const { queues } = await this.connection.client().call('queues.list');
    this.queues = queues;
    for (const name of this.groupNodes.keys()) if (!queues.some((q) => q.name === name)) this.groupNodes.delete(name);
    void vscode.commands.executeCommand('setContext', 'spool.noQueues', queues.length === 0);
    return queues.map((queue): QueueNode => ({ type: 'queue', queue }));
  }

  private groupsOf(node: QueueNode): GroupNode[] {
    const states = this.filterValue.states;
    const groups = GROUPS.filter((g) => !states || states.length === 0 || states.includes(g)).map((group) => this.groupNode(node.queue, group));
    this.groupNodes.set(node.queue.name, new Map(groups.map((g) => [g.group, g])));
    return groups;
  }

  private groupNode(queue: Queue, group: GroupName): GroupNode {
    // A state filter only picks groups; a kind or text filter changes what each group lists.
    const filtered = Boolean(this.filterValue.kind || this.filterValue.search);
    return { type: 'group', queue: queue.name, group, count: groupCount(queue, group), filtered };
  }

  private async jobsOf(node: GroupNode): Promise<QueueTreeNode[]> {
    const key = pageKey(node.queue, node.group);
    let page = this.pages.get(key);
    if (!page) {
      const pageSize = readSettings().pageSize;
      const limit = Math.min(1000, Math.max(pageSize, this.wanted.get(key) ?? 0));
      const result = await this.connection.client().call('jobs.list', this.listParams(node.queue, node.group, limit));
      page = { jobs: result.jobs, nextCursor: result.nextCursor };
      this.pages.set(key, page);
    }
    const children: QueueTreeNode[] = page.jobs.map((job) => ({ type: 'job', job, group: node.group }));
    if (page.nextCursor !== null) children.push({ type: 'loadMore', queue: node.queue, group: node.group, loaded: page.jobs.length, total: node.filtered ? null : node.count });
    return children;
  }

  private listParams(queue: string, group: GroupName, limit: number): ListJobsParams {
    const params: ListJobsParams = { queue, ...groupFilter(group), order: ORDER[group], limit };
    if (this.filterValue.kind) params.kind = this.filterValue.kind;
    if (this.filterValue.search) params.search = this.filterValue.search;
    return params;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function pageKey(queue: string, group: GroupName): string {
  return `${queue}\0${group}`;
}

/** The filter in a few words, for the view's description ("kind: shell · state: dead"). */
export function describeFilter(filter: JobViewFilter): string {
  const parts: string[] = [];
  if (filter.states && filter.states.length > 0) parts.push(`state: ${filter.states.join(', ')}`);
  if (filter.kind) parts.push(`kind: ${filter.kind}`);
  if (filter.search) parts.push(`"${filter.search}"`);
  return parts.join(' · ');
}
