/** Sending an enqueue from this window: trust check, context (workspace, origin), tracking for notifications. */
import * as vscode from 'vscode';
import type { EnqueueParams } from '../../../shared/protocol';
import type { Job } from '../../../shared/protocol/types';
import type { SpoolContext } from '../../context';
import { assertMayEnqueue } from '../../trust';

export async function enqueueFromWindow(ctx: SpoolContext, params: EnqueueParams): Promise<Job> {
  assertMayEnqueue(params.kind);
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const context = { origin: 'vscode', ...(workspace ? { workspace } : {}), ...params.context };
  const { job } = await ctx.connection.client().call('jobs.enqueue', { ...params, context });
  ctx.enqueued.track(job.id);
  ctx.log.info(`Enqueued ${job.kind} job ${job.id} in ${job.queue}.`);
  ctx.queues.refresher.changed();
  return job;
}
