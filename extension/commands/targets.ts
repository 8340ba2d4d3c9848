/**
 * Turning command arguments into the jobs, queues and schedules to act on: a clicked node with
 * the multi-selection, a job id string, or — from the palette — a pick.
 */
import * as vscode from 'vscode';
import type { Job } from '../../shared/protocol/types';
import type { SpoolContext } from '../context';
import { isGroupNode, isJobNode, isQueueNode } from '../views/queues/nodes';
import { isScheduleNode } from '../views/schedulesProvider';

/** The jobs a job command applies to: the selection when the clicked job is part of it. */
export async function jobTargets(ctx: SpoolContext, args: unknown[]): Promise<Job[]> {
  const [clicked, selection] = args;
  if (Array.isArray(selection) && selection.length > 0) {
    const jobs = selection.filter(isJobNode).map((n) => n.job);
    if (jobs.length > 0) return jobs;
  }
  if (isJobNode(clicked)) return [clicked.job];
  if (typeof clicked === 'string' && clicked !== '') return [(await ctx.connection.client().call('jobs.get', { id: clicked })).job];
  const picked = ctx.queuesView.selection.filter(isJobNode).map((n) => n.job);
  if (picked.length > 0) return picked;
  throw new Error('Select a job in the Spool Queues view first.');
}

/** The queue a queue command applies to: the clicked queue or group, a name, or a pick. */
export async function queueTarget(ctx: SpoolContext, arg: unknown, placeHolder = 'Choose a queue'): Promise<string | undefined> {
  if (isQueueNode(arg)) return arg.queue.name;
  if (isGroupNode(arg)) return arg.queue;
  if (typeof arg === 'string' && arg !== '') return arg;
  const { queues } = await ctx.connection.client().call('queues.list');
  if (queues.length === 0) throw new Error('There are no queues yet. A queue is created by its first job.');
  const pick = await vscode.window.showQuickPick(
    queues.map((q) => ({ label: q.name, description: q.paused ? 'paused' : undefined })),
    { placeHolder, title: 'Spool' },
  );
  return pick?.label;
}

/** The schedule a schedule command applies to: the clicked one, a name, or a pick. */
export async function scheduleTarget(ctx: SpoolContext, arg: unknown): Promise<string | undefined> {
  if (isScheduleNode(arg)) return arg.schedule.name;
  if (typeof arg === 'string' && arg !== '') return arg;
  const { schedules } = await ctx.connection.client().call('schedules.list');
  if (schedules.length === 0) throw new Error('There are no schedules yet. Create one with "Spool: Create Schedule".');
  const pick = await vscode.window.showQuickPick(schedules.map((s) => ({ label: s.name, description: s.cron })), { placeHolder: 'Choose a schedule', title: 'Spool' });
  return pick?.label;
}

/**
 * Reports a bulk result: what was done to how many jobs (`count` null: `done` says it all), and
 * why the others were refused.
 */
export function reportBulk(done: string, count: number | null, errors: { id: string; message: string }[], note = ''): void {
  const what = count === null ? done : `${done} ${count} job${count === 1 ? '' : 's'}`;
  if (errors.length === 0) {
    void vscode.window.setStatusBarMessage(`Spool: ${what}${note}.`, 4000);
    return;
  }
  const first = errors[0]?.message ?? '';
  void vscode.window.showWarningMessage(`Spool: ${what}${note}; ${errors.length} could not be: ${first}${errors.length > 1 ? ' (and others)' : ''}`);
}
