/**
 * Enqueue Job: the multi-step quick input. Called with an `EnqueueParams` object (another
 * extension, a test) it enqueues that directly; called from a queue item it starts at the kind.
 * When the daemon refuses the answers (a payload over its limit, say) the refusal is shown and
 * the last step opens again with every answer kept. Ends with a note naming the job, with Show
 * Output. Returns the job.
 */
import * as vscode from 'vscode';
import { ErrorCode, type EnqueueParams } from '../../../shared/protocol';
import { SpoolError } from '../../../shared/protocol/errors';
import { announceJob } from '../../notifications';
import { isQueueNode } from '../../views/queues/nodes';
import { command } from '../command';
import { editorMessage } from '../../errors';
import { enqueueFromWindow } from './enqueue';
import { askEnqueueParams, enqueueFlow } from './enqueueSteps';

function isEnqueueParams(value: unknown): value is EnqueueParams {
  return typeof value === 'object' && value !== null && 'queue' in value && typeof value.queue === 'string' && 'kind' in value && typeof value.kind === 'string';
}

export const enqueueJob = command('spool.jobs.enqueue', async (ctx, arg) => {
  if (isEnqueueParams(arg)) {
    const job = await enqueueFromWindow(ctx, arg);
    void announceJob('enqueued', job);
    return job;
  }
  const flow = await enqueueFlow(ctx, isQueueNode(arg) ? { queue: arg.queue.name } : {});
  for (let again = false; ; again = true) {
    const params = await askEnqueueParams(ctx, flow, again);
    if (!params) return undefined;
    try {
      const job = await enqueueFromWindow(ctx, params);
      void announceJob('enqueued', job);
      return job;
    } catch (error) {
      // Only a refusal of the answers is worth another go; anything else ends the command.
      if (!(error instanceof SpoolError && (error.code === ErrorCode.InvalidParams || error.code === ErrorCode.PayloadTooLarge))) throw error;
      void vscode.window.showErrorMessage(`Spool: the job was not enqueued: ${editorMessage(error)}`);
    }
  }
});
