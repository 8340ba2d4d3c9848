/**
 * Enqueue Job: the multi-step quick pick. Called with an `EnqueueParams` object (another
 * extension, a test) it enqueues that directly; called from a queue item it starts at step 2.
 * Returns the job.
 */
import * as vscode from 'vscode';
import type { EnqueueParams } from '../../../shared/protocol';
import { isQueueNode } from '../../views/queues/nodes';
import { command } from '../command';
import { enqueueFromWindow } from './enqueue';
import { askEnqueueParams } from './enqueueSteps';

function isEnqueueParams(value: unknown): value is EnqueueParams {
  return typeof value === 'object' && value !== null && 'queue' in value && typeof value.queue === 'string' && 'kind' in value && typeof value.kind === 'string';
}

export const enqueueJob = command('spool.jobs.enqueue', async (ctx, arg) => {
  const params = isEnqueueParams(arg) ? arg : await askEnqueueParams(ctx, isQueueNode(arg) ? { queue: arg.queue.name } : {});
  if (!params) return undefined;
  const job = await enqueueFromWindow(ctx, params);
  void vscode.window.setStatusBarMessage(`Spool: enqueued ${job.kind} job in ${job.queue}`, 4000);
  return job;
});
