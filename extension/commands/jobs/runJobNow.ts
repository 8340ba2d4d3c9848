/** Run Now: a delayed job, or a retrying one waiting out its backoff, becomes due at once. */
import * as vscode from 'vscode';
import { jobPhrase } from '../../notifications';
import { command } from '../command';
import { jobTargets } from '../targets';

export const runJobNow = command('spool.jobs.runNow', async (ctx, ...args) => {
  const [target] = await jobTargets(ctx, args);
  if (target === undefined) return undefined;
  const { job } = await ctx.connection.client().call('jobs.runNow', { id: target.id });
  ctx.queues.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: ${jobPhrase(job)} is due now.`, 4000);
  return { job };
});
