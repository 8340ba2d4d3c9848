/** Delete a schedule after a confirmation (a second argument `{ confirmed: true }` skips it). Jobs it enqueued stay. */
import * as vscode from 'vscode';
import { command } from '../command';
import { scheduleTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

export const deleteSchedule = command('spool.schedules.delete', async (ctx, arg, options) => {
  const name = await scheduleTarget(ctx, arg);
  if (!name) return undefined;
  const confirmed = typeof options === 'object' && options !== null && 'confirmed' in options && options.confirmed === true;
  if (!confirmed) {
    const answer = await vscode.window.showWarningMessage(`Delete schedule ${name}? Jobs it already enqueued are kept.`, { modal: true }, 'Delete');
    if (answer !== 'Delete') return undefined;
  }
  const client = ctx.connection.client();
  // Its owner, read before it goes: a project's schedule comes back with the next apply.
  const owner = await client.call('schedules.get', { name }).then((r) => r.schedule.owner, () => undefined);
  const result = await client.call('schedules.delete', { name });
  ctx.schedules.refresher.now();
  void warnIfOwned('schedule', name, owner, 'deleted');
  return result;
});
