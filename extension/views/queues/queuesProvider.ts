/**
 * The Queues view: queues with their counts, state groups under each, and jobs a page at a
 * time under each group. Only what is expanded is fetched, and a group never loads more than the
 * pages the user asked for, so a queue of 100,000 jobs costs one `jobs.list` page.
 *
 * Empty groups are hidden (unless `spool.showEmptyGroups`). A filter narrows the tree as the
 * Testing view's does: queues and groups without matches disappear, counts count matches, the
 * results are shown expanded, and the view's message says what is filtered. What the user
 * expanded is remembered (workspace state), so it stays expanded across a daemon restart and a
 * window reload.
 */
import * as vscode from 'vscode';
import type { JobOrder, ListJobsParams } from '../../../shared/protocol';
import type { Job, JobDependency, Queue, Worker } from '../../../shared/protocol/types';
import { dueNoWorkerText } from '../../../shared/domain/present';
import type { DaemonConnection } from '../../daemon/connection';
import { readSettings } from '../../settings';
import { Refresher } from '../refresher';
import { readHistory } from '../dashboard/panel';
import { hourLine, hourLineText, rangeParams } from '../dashboard/history';
import type { QueueGroup } from '../../../shared/protocol';
import { groupItem, jobItem, keyGroupItem, loadMoreItem, moreKeyGroupsItem, queueItem, type GroupNode, type KeyGroupNode, type LoadMoreNode, type MoreKeyGroupsNode, type QueueNode, type QueueTreeNode } from './nodes';
import {
  GROUPS,
  countText,
  describeFilter,
  groupFilter,
  groupsToShow,
  narrowsJobs,
  queueCounts,
  stateGroupOf,
  sumCounts,
  type GroupName,
  type JobViewFilter,
  type MatchCount,
} from './text';

export { describeFilter, type JobViewFilter } from './text';

/** Where the expanded queues and groups are kept, in the workspace's state. */
const EXPANDED_KEY = 'spool.queues.expanded';

interface Page {
  jobs: Job[];
  nextCursor: string | null;
  /** Of a blocked group: what each job depends on, by job id (see readWaitingOn). */
  waitingOn: Map<string, JobDependency[]>;
}

/**
 * A blocked job's row names what it waits for, which `jobs.list` does not carry: each is read
 * with `jobs.get`, this many at a time, for at most WAITING_ON_READS jobs of a page. Rows past
 * those say how many jobs they wait for without naming them.
 */
const WAITING_ON_AT_ONCE = 8;
const WAITING_ON_READS = 200;

/**
 * How each group is sorted: due queued jobs first-in first-out (the listing index serves it
 * without sorting the queue); delayed and retrying jobs by when they will run; finished ones
 * newest first.
 */
const ORDER: Record<GroupName, JobOrder> = {
  running: 'oldest',
  queued: 'oldest',
  delayed: 'runAt',
  blocked: 'oldest',
  retrying: 'runAt',
  held: 'oldest',
  dead: 'newest',
  completed: 'newest',
  cancelled: 'newest',
};

export class QueuesProvider implements vscode.TreeDataProvider<QueueTreeNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<QueueTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly refresher = new Refresher(() => this.refresh());
  private queues: Queue[] = [];
  /** The workers as last listed with the queues; undefined when they could not be read. */
  private workers: Worker[] | undefined = undefined;
  /** Per queue: how many jobs each group lists (matches, under a kind or text filter). */
  private readonly counts = new Map<string, Record<GroupName, MatchCount>>();
  /** Loaded pages per `queue\0group`; cleared on refresh, then reloaded to the same length. */
  private readonly pages = new Map<string, Page>();
  private readonly wanted = new Map<string, number>();
  /**
   * The group elements last returned by getChildren, per queue and group. VS Code's tree finds
   * the element to refresh by identity and silently skips an object it has not seen, so
   * refreshing one group must fire the very object the tree holds.
   */
  private readonly groupNodes = new Map<string, Map<GroupName, GroupNode>>();
  /**
   * Per grouped queue: the group keys read (`queues.groups`, a page at a time), where the next
   * page starts, and how many the user asked to see (kept across refreshes); and the key nodes
   * last returned, for getParent.
   */
  private readonly keyGroups = new Map<string, { groups: QueueGroup[]; nextAfter: string | null }>();
  private readonly keyGroupsWanted = new Map<string, number>();
  private readonly keyGroupNodes = new Map<string, Map<string, KeyGroupNode>>();
  private filterValue: JobViewFilter = {};
  /** `queue:<name>` and `group:<queue>:<group>` of what the user expanded (without a filter). */
  private readonly expanded: Set<string>;
  private view: vscode.TreeView<QueueTreeNode> | null = null;
  /** The next draw is a redraw: the queue list last read is drawn again, without asking the daemon. */
  private redrawing = false;
  private queuesRead = false;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.refresher];

  constructor(
    private readonly connection: DaemonConnection,
    private readonly state: vscode.Memento,
  ) {
    this.expanded = new Set(state.get<string[]>(EXPANDED_KEY, []));
    this.disposables.push(...this.refresher.follow(connection, [connection.onJobChanged, connection.onQueueChanged]));
  }

  /**
   * Attach the view: its expand and collapse events are remembered, and its message and
   * description say what is filtered.
   */
  attach(view: vscode.TreeView<QueueTreeNode>): vscode.Disposable {
    this.view = view;
    return vscode.Disposable.from(
      view.onDidExpandElement((e) => this.remember(e.element, true)),
      view.onDidCollapseElement((e) => this.remember(e.element, false)),
      // The Delete key acts on the selected jobs; on a queue or group it does nothing.
      view.onDidChangeSelection((e) => void vscode.commands.executeCommand('setContext', 'spool.queuesJobSelected', e.selection.some((n) => n.type === 'job'))),
    );
  }

  get filter(): JobViewFilter {
    return this.filterValue;
  }

  setFilter(filter: JobViewFilter): void {
    this.filterValue = filter;
    const words = describeFilter(filter);
    void vscode.commands.executeCommand('setContext', 'spool.queuesFiltered', words !== '');
    // The title menu shows "✓ Only Dead Jobs" (which turns it off) while the toggle is on.
    const only = filter.states?.length === 1 ? filter.states[0] : '';
    void vscode.commands.executeCommand('setContext', 'spool.queuesOnly', only);
    if (this.view) {
      this.view.description = words === '' ? undefined : `filter: ${words}`;
      if (words === '') this.view.message = undefined;
    }
    this.refresh();
  }

  /** Forget every loaded page and redraw; expanded groups reload as many jobs as they showed. */
  refresh(): void {
    this.pages.clear();
    this.keyGroups.clear();
    this.redrawing = false;
    this.changeEmitter.fire(undefined);
  }

  /** Redraw from the queues and pages already loaded, so relative times move on; the daemon is not asked. */
  redraw(): void {
    this.redrawing = true;
    this.changeEmitter.fire(undefined);
  }

  /**
   * A queue row's tooltip, when hovered, ends with its last hour: a sparkline of the jobs ended
   * per minute and the totals, from `stats.history` (nothing from a daemon without it).
   */
  async resolveTreeItem(item: vscode.TreeItem, node: QueueTreeNode): Promise<vscode.TreeItem> {
    if (node.type !== 'queue' || !(item.tooltip instanceof vscode.MarkdownString) || this.connection.state !== 'connected') return item;
    try {
      const params = rangeParams('hour', Date.now(), node.queue.name);
      const history = await readHistory(this.connection.client(), params);
      if (history) item.tooltip.appendMarkdown('\n\n').appendText(hourLineText(hourLine(history.points, node.queue.name, params)));
    } catch {
      // The tooltip goes without its last hour; the row itself says what matters.
    }
    return item;
  }

  getTreeItem(node: QueueTreeNode): vscode.TreeItem {
    switch (node.type) {
      case 'queue':
        return queueItem(node);
      case 'group':
        return groupItem(node);
      case 'job': {
        const now = Date.now();
        return jobItem(node, now, node.group === 'queued' || node.group === 'retrying' ? dueNoWorkerText(node.job, this.workers, now) : null);
      }
      case 'loadMore':
        return loadMoreItem(node);
      case 'keyGroup':
        return keyGroupItem(node);
      case 'moreKeyGroups':
        return moreKeyGroupsItem(node);
    }
  }

  async getChildren(node?: QueueTreeNode): Promise<QueueTreeNode[]> {
    if (this.connection.state !== 'connected') return [];
    try {
      if (!node) return await this.rootChildren();
      if (node.type === 'queue') return await this.queueChildren(node);
      if (node.type === 'group') return await this.jobsOf(node);
      if (node.type === 'keyGroup') return await this.keyGroupJobs(node);
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
    if (node.type === 'group' || node.type === 'keyGroup' || node.type === 'moreKeyGroups') return this.queueNode(queue);
    if (node.type === 'job' && node.key !== undefined) return this.keyGroupNodes.get(queue.name)?.get(node.key);
    return this.groupNodes.get(queue.name)?.get(node.group) ?? this.groupNode(queue.name, node.group);
  }

  /** Fetch the next page of a group and show it. */
  async loadMore(node: LoadMoreNode): Promise<void> {
    const key = pageKey(node.queue, node.group);
    const page = this.pages.get(key);
    if (!page || page.nextCursor === null) return;
    const next = await this.connection.client().call('jobs.list', { ...this.listParams(node.queue, node.group, readSettings().pageSize), cursor: page.nextCursor });
    page.jobs.push(...next.jobs);
    page.nextCursor = next.nextCursor;
    if (node.group === 'blocked') await this.readWaitingOn(next.jobs, page.waitingOn);
    this.wanted.set(key, page.jobs.length);
    const group = this.groupNodes.get(node.queue)?.get(node.group);
    // Under a kind or text filter the group counted its first page: the count grows with the pages.
    const counts = this.counts.get(node.queue);
    if (counts && narrowsJobs(this.filterValue)) {
      counts[node.group] = { count: page.jobs.length, more: page.nextCursor !== null };
      if (group) Object.assign(group, counts[node.group]);
    }
    // Redraw only the group; if the tree no longer shows it, redraw the whole view.
    this.changeEmitter.fire(group);
  }

  private async rootChildren(): Promise<QueueTreeNode[]> {
    const reuse = this.redrawing && this.queuesRead;
    this.redrawing = false;
    const client = this.connection.client();
    // The workers too: a due job that no live worker takes says so on its row.
    const [queues, workers] = reuse ? [this.queues, this.workers] : await Promise.all([client.call('queues.list').then((r) => r.queues), client.call('workers.list').then((r) => r.workers, () => undefined)]);
    this.queues = queues;
    this.workers = workers;
    this.queuesRead = true;
    for (const name of this.groupNodes.keys()) if (!queues.some((q) => q.name === name)) this.groupNodes.delete(name);
    void vscode.commands.executeCommand('setContext', 'spool.noQueues', queues.length === 0);
    const narrow = narrowsJobs(this.filterValue);
    const counted = await Promise.all(queues.map(async (queue) => [queue.name, narrow ? await this.matchCounts(queue) : queueCounts(queue)] as const));
    this.counts.clear();
    for (const [name, counts] of counted) this.counts.set(name, counts);
    const shown = this.filtered ? queues.filter((q) => groupsToShow(this.countsOf(q), this.filterValue, false).length > 0) : queues;
    this.showMessage(shown);
    return shown.map((queue) => this.queueNode(queue));
  }

  /** The view's message: what is filtered and how much matches; nothing without a filter. */
  private showMessage(shown: Queue[]): void {
    if (!this.view) return;
    const words = describeFilter(this.filterValue);
    if (words === '') {
      this.view.message = undefined;
      return;
    }
    const total = sumCounts(shown.flatMap((q) => groupsToShow(this.countsOf(q), this.filterValue, false).map((g) => this.countsOf(q)[g])));
    // Nothing matches: no message, so the view shows its welcome text ("No jobs match the
    // filter." with a Clear Job Filter link); VS Code hides that text while a message is set.
    // The view's description still names the filter.
    if (total.count === 0) {
      this.view.message = undefined;
      return;
    }
    const jobs = `${countText(total)} matching job${total.count === 1 && !total.more ? '' : 's'}`;
    this.view.message = `Filtered (${words}): ${jobs} in ${shown.length} queue${shown.length === 1 ? '' : 's'}. Clear Job Filter, in the title bar, shows all.`;
  }

  /**
   * Under a kind or text filter, how many jobs of each group match: each group's first page is
   * listed with the filter (and kept, to show when the group is expanded), so a count is exact
   * up to a page and "50+" beyond. Groups the queue has no jobs in are not asked about.
   */
  private async matchCounts(queue: Queue): Promise<Record<GroupName, MatchCount>> {
    const exact = queueCounts(queue);
    const states = this.filterValue.states;
    const counts = { ...exact };
    await Promise.all(
      GROUPS.map(async (group) => {
        if (exact[group].count === 0 || (states && states.length > 0 && !states.includes(group))) {
          counts[group] = { count: 0, more: false };
          return;
        }
        const page = await this.page(queue.name, group);
        counts[group] = { count: page.jobs.length, more: page.nextCursor !== null };
      }),
    );
    return counts;
  }

  private get filtered(): boolean {
    return describeFilter(this.filterValue) !== '';
  }

  private countsOf(queue: Queue): Record<GroupName, MatchCount> {
    return this.counts.get(queue.name) ?? queueCounts(queue);
  }

  private queueNode(queue: Queue): QueueNode {
    const node: QueueNode = { type: 'queue', queue, scope: this.scope() };
    if (narrowsJobs(this.filterValue)) node.match = sumCounts(GROUPS.map((g) => this.countsOf(queue)[g]));
    node.expanded = this.filtered || this.expanded.has(`queue:${queue.name}`);
    return node;
  }

  /**
   * A queue's children: its state groups, and before them, in a grouped queue shown without a
   * filter, its group keys with their counts (a page at a time, then More groups…).
   */
  private async queueChildren(node: QueueNode): Promise<QueueTreeNode[]> {
    const states = this.groupsOf(node);
    if (!node.queue.grouped || this.filtered) return states;
    const page = await this.keyGroupPage(node.queue.name);
    const limit = node.queue.groupConcurrency;
    const keys = page.groups.map((counts): KeyGroupNode => ({ type: 'keyGroup', queue: node.queue.name, counts, limit, expanded: this.expanded.has(keyGroupKey(node.queue.name, counts.group)) }));
    this.keyGroupNodes.set(node.queue.name, new Map(keys.map((k) => [k.counts.group ?? '', k])));
    const more: MoreKeyGroupsNode[] = page.nextAfter === null ? [] : [{ type: 'moreKeyGroups', queue: node.queue.name, loaded: page.groups.length }];
    return [...keys, ...more, ...states];
  }

  /** A grouped queue's group keys: those read, else read again as many as were shown (up to 1000). */
  private async keyGroupPage(queue: string): Promise<{ groups: QueueGroup[]; nextAfter: string | null }> {
    let page = this.keyGroups.get(queue);
    if (!page) {
      const limit = Math.min(1000, Math.max(readSettings().pageSize, this.keyGroupsWanted.get(queue) ?? 0));
      page = await this.connection.client().call('queues.groups', { name: queue, limit });
      this.keyGroups.set(queue, page);
    }
    return page;
  }

  /** More groups…: the next page of a grouped queue's group keys. */
  async loadMoreKeyGroups(node: MoreKeyGroupsNode): Promise<void> {
    const page = this.keyGroups.get(node.queue);
    if (!page || page.nextAfter === null) return;
    const next = await this.connection.client().call('queues.groups', { name: node.queue, limit: readSettings().pageSize, after: page.nextAfter });
    page.groups.push(...next.groups);
    page.nextAfter = next.nextAfter;
    this.keyGroupsWanted.set(node.queue, page.groups.length);
    this.changeEmitter.fire(undefined);
  }

  /** A group key's running and waiting jobs: running first, then the waiting ones in claim order, one page. */
  private async keyGroupJobs(node: KeyGroupNode): Promise<QueueTreeNode[]> {
    const key = node.counts.group;
    if (key === null) return [];
    const client = this.connection.client();
    const limit = readSettings().pageSize;
    const [running, waiting] = await Promise.all([
      client.call('jobs.list', { queue: node.queue, group: key, states: ['running'], order: 'oldest', limit }),
      client.call('jobs.list', { queue: node.queue, group: key, states: ['queued', 'retrying'], order: 'runAt', limit }),
    ]);
    const now = Date.now();
    return [...running.jobs, ...waiting.jobs].map((job) => ({ type: 'job', job, group: stateGroupOf(job, now), key }));
  }

  private groupsOf(node: QueueNode): GroupNode[] {
    const groups = groupsToShow(this.countsOf(node.queue), this.filterValue, readSettings().showEmptyGroups).map((group) => this.groupNode(node.queue.name, group));
    this.groupNodes.set(node.queue.name, new Map(groups.map((g) => [g.group, g])));
    return groups;
  }

  private groupNode(queue: string, group: GroupName): GroupNode {
    const count = this.counts.get(queue)?.[group] ?? { count: 0, more: false };
    return {
      type: 'group',
      queue,
      group,
      count: count.count,
      more: count.more,
      // A state filter only picks groups; a kind or text filter changes what each group lists.
      filtered: narrowsJobs(this.filterValue),
      expanded: this.filtered || this.expanded.has(`group:${queue}:${group}`),
      scope: this.scope(),
    };
  }

  /**
   * Part of every queue and group id: under a filter the tree's items are new to VS Code, so
   * they open expanded on the results, and the user's own expansion is back when it is cleared.
   */
  private scope(): string {
    const words = describeFilter(this.filterValue);
    return words === '' ? '' : `?${words}`;
  }

  private remember(node: QueueTreeNode, expanded: boolean): void {
    // Under a filter the tree opens expanded anyway: that is not the user's layout to keep.
    if (this.filtered) return;
    let key: string;
    if (node.type === 'queue') key = `queue:${node.queue.name}`;
    else if (node.type === 'group') key = `group:${node.queue}:${node.group}`;
    else if (node.type === 'keyGroup') key = keyGroupKey(node.queue, node.counts.group);
    else return;
    if (expanded) this.expanded.add(key);
    else this.expanded.delete(key);
    void this.state.update(EXPANDED_KEY, [...this.expanded]);
  }

  /** A group's page: the loaded one, else fetched as long as it was last shown (up to 1000 jobs). */
  private async page(queue: string, group: GroupName): Promise<Page> {
    const key = pageKey(queue, group);
    let page = this.pages.get(key);
    if (!page) {
      const pageSize = readSettings().pageSize;
      const limit = Math.min(1000, Math.max(pageSize, this.wanted.get(key) ?? 0));
      const result = await this.connection.client().call('jobs.list', this.listParams(queue, group, limit));
      page = { jobs: result.jobs, nextCursor: result.nextCursor, waitingOn: new Map() };
      if (group === 'blocked') await this.readWaitingOn(result.jobs, page.waitingOn);
      this.pages.set(key, page);
    }
    return page;
  }

  private async jobsOf(node: GroupNode): Promise<QueueTreeNode[]> {
    const page = await this.page(node.queue, node.group);
    const children: QueueTreeNode[] = page.jobs.map((job) => {
      const waitingOn = page.waitingOn.get(job.id);
      return waitingOn ? { type: 'job', job, group: node.group, waitingOn } : { type: 'job', job, group: node.group };
    });
    if (page.nextCursor !== null) children.push({ type: 'loadMore', queue: node.queue, group: node.group, loaded: page.jobs.length, total: node.filtered ? null : node.count });
    return children;
  }

  /**
   * What each of `jobs` depends on, into `into`. A job deleted meanwhile, or a read that fails,
   * only leaves its row saying counts instead of names.
   */
  private async readWaitingOn(jobs: readonly Job[], into: Map<string, JobDependency[]>): Promise<void> {
    const client = this.connection.client();
    const todo = jobs.filter((j) => j.dependsOn > 0).slice(0, Math.max(0, WAITING_ON_READS - into.size));
    const next = async (): Promise<void> => {
      for (let job = todo.shift(); job !== undefined; job = todo.shift()) {
        const id = job.id;
        await client.call('jobs.get', { id }).then(
          (r) => into.set(id, r.dependencies),
          () => undefined,
        );
      }
    };
    await Promise.all(Array.from({ length: WAITING_ON_AT_ONCE }, next));
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

/** How an expanded group key is remembered. */
function keyGroupKey(queue: string, group: string | null): string {
  return `keyGroup:${queue}:${group ?? ''}`;
}

function pageKey(queue: string, group: GroupName): string {
  return `${queue}\0${group}`;
}
