/** Filter the Schedules view by text in the name or queue; empty clears it. */
import * as vscode from 'vscode';
import { command } from '../command';

export const filterSchedules = command('spool.schedules.filter', async (ctx, arg) => {
  const text = typeof arg === 'string' ? arg : await vscode.window.showInputBox({ title: 'Spool: Filter Schedules', prompt: 'Text in the schedule name or queue (empty shows all)', value: ctx.schedules.filterText });
  if (text === undefined) return undefined;
  return ctx.schedules.setFilter(text, ctx.schedulesView);
});
