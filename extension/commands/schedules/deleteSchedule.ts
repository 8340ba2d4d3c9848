/** Delete a schedule after a confirmation (a second argument `{ confirmed: true }` skips it). Jobs it enqueued stay. */
import * as vscode from 'vscode';
import { command } from '../command';
import { scheduleTarget } from '../targets';

export const deleteSchedule = command('spool.schedules.delete', async (ctx, arg, options) => {
  const name = await scheduleTarget(ctx, arg);
  if (!name) return undefined;
  const confirmed = typeof options === 'object' && options !== null && 'confirmed' in options && options.confirmed === true;
  if (!confirmed) {
    const answer = await vscode.window.showWarningMessage(`Delete schedule ${name}? Jobs it already enqueued are kept.`, { modal: true }, 'Delete');
    if (answer !== 'Delete') return undefined;
  }
  const result = await ctx.connection.client().call('schedules.delete', { name });
  ctx.schedules.refresher.now();
  return result;
});
