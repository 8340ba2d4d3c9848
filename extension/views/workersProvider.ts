/**
 * The Workers view: the daemon's built-in executors and remote workers, what they serve, how
 * many jobs they hold (and the job weight they may hold, when they declared a capacity), and their
 * last heartbeat; under each, the jobs it is running.
 */
import * as vscode from 'vscode';
import type { Worker } from '../../shared/protocol/types';
import { relativeTime, shortId } from './format';
import { StatsListProvider } from './statsListProvider';

export interface WorkerNode {
  type: 'worker';
  worker: Worker;
}
export interface WorkerJobNode {
  type: 'workerJob';
  jobId: string;
}
export type WorkerTreeNode = WorkerNode | WorkerJobNode;

export function workerItem(node: WorkerNode, now = Date.now()): vscode.TreeItem {
  const w = node.worker;
  const running = w.runningJobIds.length;
  const item = new vscode.TreeItem(w.name ?? w.id, running > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `worker:${w.id}`;
  const serves = `${w.queues.length > 0 ? w.queues.join(', ') : 'all queues'}${w.kinds.length > 0 ? ` · ${w.kinds.join(', ')}` : ''}`;
  // A built-in executor lives in the daemon, which listed it: it is alive as long as the daemon
  // answers, however long ago its last heartbeat row was written.
  const alive = w.type === 'builtin' || w.alive;
  const seen = w.type === 'builtin' ? 'alive' : w.alive ? `seen ${relativeTime(w.lastHeartbeatAt, now)}` : 'gone';
  // A capacity bounds the job weight the worker holds at once (spool work --capacity); the daemon
  // does not report the weight held now, so the capacity is shown on its own.
  const capacity = w.capacity === null ? '' : ` · capacity ${w.capacity}`;
  item.description = `${w.type} · ${serves} · ${running} running${capacity} · ${seen}`;
  item.iconPath = new vscode.ThemeIcon(w.type === 'builtin' ? 'server-process' : 'remote', alive ? undefined : new vscode.ThemeColor('disabledForeground'));
  item.contextValue = `worker.${w.type}`;
  item.tooltip = new vscode.MarkdownString(
    `**${w.name ?? w.id}** (${w.type})\n\nId: \`${w.id}\`  \nHost: ${w.host ?? '—'} · pid ${w.pid ?? '—'}  \nConcurrency: ${w.concurrency ?? '—'} · capacity ${w.capacity === null ? '—' : `${w.capacity} (job weight held at once)`}  \nStarted: ${relativeTime(w.startedAt, now)} · last heartbeat ${relativeTime(w.lastHeartbeatAt, now)}`,
  );
  return item;
}

export class WorkersProvider extends StatsListProvider<WorkerTreeNode, Worker[]> {
  getTreeItem(node: WorkerTreeNode): vscode.TreeItem {
    if (node.type === 'worker') return workerItem(node);
    const item = new vscode.TreeItem(`job ${shortId(node.jobId)}`, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon('sync~spin');
    item.tooltip = node.jobId;
    item.command = { command: 'spool.jobs.openDetails', title: 'Open Job Details', arguments: [node.jobId] };
    return item;
  }

  protected async fetch(): Promise<Worker[]> {
    return (await this.connection.client().call('workers.list')).workers;
  }

  protected top(workers: Worker[]): WorkerTreeNode[] {
    return workers
      .filter((w) => this.matches(`${w.id} ${w.name ?? ''} ${w.queues.join(' ')} ${w.kinds.join(' ')}`))
      .map((worker) => ({ type: 'worker', worker }));
  }

  protected override childrenOf(node: WorkerTreeNode): WorkerTreeNode[] {
    return node.type === 'worker' ? node.worker.runningJobIds.map((jobId) => ({ type: 'workerJob', jobId })) : [];
  }
}
