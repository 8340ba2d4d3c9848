/** Pause and Resume: a running shell job's processes stop where they are (SIGSTOP), and go on (SIGCONT). */
import * as vscode from 'vscode';
import { jobPhrase } from '../../notifications';
import { command } from '../command';
import { jobTargets } from '../targets';

export const pauseJob = command('spool.jobs.pause', async (ctx, ...args) => {
  const [target] = await jobTargets(ctx, args);
  if (target === undefined) return undefined;
  const { job } = await ctx.connection.client().call('jobs.pause', { id: target.id });
  ctx.queues.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: ${jobPhrase(job)} is paused.`, 4000);
  return { job };
});

export const resumeJob = command('spool.jobs.resume', async (ctx, ...args) => {
  const [target] = await jobTargets(ctx, args);
  if (target === undefined) return undefined;
  const { job } = await ctx.connection.client().call('jobs.resume', { id: target.id });
  ctx.queues.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: ${jobPhrase(job)} runs on.`, 4000);
  return { job };
});
