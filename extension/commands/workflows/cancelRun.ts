/**
 * Cancel Run: every job of the run that has not ended is cancelled, and running ones are asked
 * to stop (`workflows.cancel`), after a confirmation that says how many. Argument as for Open
 * Workflow Run.
 */
import * as vscode from 'vscode';
import { command } from '../command';
import { runName } from '../../views/workflows/model';
import { runTarget } from './runTarget';

export const cancelRun = command('spool.workflows.cancel', async (ctx, arg) => {
  const id = await runTarget(ctx, arg);
  if (id === undefined) return undefined;
  const client = ctx.connection.client();
  const run = await client.call('workflows.get', { id });
  const open = run.counts.blocked + run.counts.queued + run.counts.retrying + run.counts.running;
  const choice = await vscode.window.showWarningMessage(
    `Cancel ${runName(run)}? Its ${open} unfinished job${open === 1 ? ' is' : 's are'} cancelled${run.counts.running > 0 ? ` (${run.counts.running} running asked to stop)` : ''}.`,
    { modal: true },
    'Cancel Run',
  );
  if (choice !== 'Cancel Run') return undefined;
  const result = await client.call('workflows.cancel', { id });
  ctx.workflows.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: ${runName(result.run)} cancelled: ${result.changed} job${result.changed === 1 ? '' : 's'} cancelled or asked to stop.`, 5000);
  return result;
});
