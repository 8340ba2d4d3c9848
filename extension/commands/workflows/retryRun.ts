/**
 * Retry Failed Part: the run's failed and cancelled jobs run again, with the jobs that depend on
 * them; the jobs that succeeded keep their results (`workflows.retry`). Argument as for Open
 * Workflow Run.
 */
import * as vscode from 'vscode';
import { command } from '../command';
import { runName } from '../../views/workflows/model';
import { runTarget } from './runTarget';

export const retryRun = command('spool.workflows.retry', async (ctx, arg) => {
  const id = await runTarget(ctx, arg);
  if (id === undefined) return undefined;
  const result = await ctx.connection.client().call('workflows.retry', { id });
  ctx.workflows.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: ${runName(result.run)} runs again: ${result.changed} job${result.changed === 1 ? '' : 's'} retried.`, 5000);
  return result;
});
