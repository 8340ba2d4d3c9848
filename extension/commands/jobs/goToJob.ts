/** Go to Job by Id: asks for an id (or takes one) and opens its details. */
import * as vscode from 'vscode';
import { command } from '../command';

export const goToJob = command('spool.jobs.goTo', async (ctx, arg) => {
  const id =
    typeof arg === 'string' && arg !== ''
      ? arg
      : await vscode.window.showInputBox({
          title: 'Spool: Go to Job',
          prompt: 'Job id',
          placeHolder: '0193b6f0-…',
          validateInput: (v) => (v.trim() === '' ? 'Enter a job id (Copy Job Id copies one).' : null),
        });
  if (!id) return undefined;
  const { job } = await ctx.connection.client().call('jobs.get', { id: id.trim() });
  return vscode.commands.executeCommand('spool.jobs.openDetails', job.id);
});
