/** Filter the Workers view by text in the id, name, queues or kinds; empty clears it. */
import * as vscode from 'vscode';
import { command } from '../command';

export const filterWorkers = command('spool.workers.filter', async (ctx, arg) => {
  const text = typeof arg === 'string' ? arg : await vscode.window.showInputBox({ title: 'Spool: Filter Workers', prompt: 'Text in the worker id, name, queues or kinds (empty shows all)', value: ctx.workers.filterText });
  if (text === undefined) return undefined;
  return ctx.workers.setFilter(text, ctx.workersView);
});
