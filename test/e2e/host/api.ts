/** Helpers for host suites: reach the activated Spool extension and wait on its state. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SpoolApi } from '../../../extension/context';
import type { SpoolExports } from '../../../extension/extension';
import type { QueueTreeNode } from '../../../extension/views/queues/nodes';
import { waitFor as poll } from '../support/wait';

export async function spool(): Promise<SpoolExports> {
  const ext = vscode.extensions.getExtension<SpoolExports>('spool.spool');
  assert.ok(ext, 'the Spool extension is not installed');
  return ext.isActive ? ext.exports : ext.activate();
}

/** support/wait.ts's waitFor (the suite is bundled with it), taking the deadline as a third argument. */
export function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
  return poll(what, probe, { timeoutMs });
}

export async function connected(api: SpoolApi): Promise<void> {
  await waitFor('the extension to connect to the daemon', () => api.context.connection.state === 'connected', 60_000);
}

/** Children of a node, with their tree items. */
export async function children(api: SpoolApi, node?: QueueTreeNode): Promise<{ node: QueueTreeNode; item: vscode.TreeItem }[]> {
  const nodes = await api.context.queues.getChildren(node);
  return nodes.map((n) => ({ node: n, item: api.context.queues.getTreeItem(n) }));
}

export function label(item: vscode.TreeItem): string {
  const l = item.label;
  return typeof l === 'string' ? l : (l?.label ?? '');
}

export async function queueNode(api: SpoolApi, name: string): Promise<{ node: QueueTreeNode; item: vscode.TreeItem }> {
  api.context.queues.refresh();
  const found = (await children(api)).find((c) => label(c.item) === name);
  assert.ok(found, `queue ${name} is not in the Queues view`);
  return found;
}

export async function groupNode(api: SpoolApi, queue: string, title: string): Promise<{ node: QueueTreeNode; item: vscode.TreeItem }> {
  const q = await queueNode(api, queue);
  const found = (await children(api, q.node)).find((c) => label(c.item) === title);
  assert.ok(found, `group ${title} is not under queue ${queue}`);
  return found;
}
