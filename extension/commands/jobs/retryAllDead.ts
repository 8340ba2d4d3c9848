/** Retry All Dead Jobs of a queue (the clicked queue or Dead group, a name, or a pick). */
import * as vscode from 'vscode';
import { command } from '../command';
import { queueTarget, reportBulk } from '../targets';

export const retryAllDead = command('spool.jobs.retryAllDead', async (ctx, arg) => {
  const queue = await queueTarget(ctx, arg, 'Retry the dead jobs of which queue?');
  if (!queue) return undefined;
  const result = await ctx.connection.client().call('jobs.retryMany', { filter: { queue, states: ['dead'] } });
  if (result.count === 0 && result.errors.length === 0) void vscode.window.showInformationMessage(`Queue ${queue} has no dead jobs.`);
  else reportBulk('retried', result.count, result.errors);
  ctx.queues.refresher.now();
  return result;
});
