/**
 * Purge a queue: deletes every job in it except running ones, after a modal confirmation that
 * says how many. A second argument `{ confirmed: true }` skips the question.
 */
import * as vscode from 'vscode';
import { command } from '../command';
import { queueTarget } from '../targets';

export const purgeQueue = command('spool.queues.purge', async (ctx, arg, options) => {
  const name = await queueTarget(ctx, arg, 'Purge which queue?');
  if (!name) return undefined;
  const confirmed = typeof options === 'object' && options !== null && 'confirmed' in options && options.confirmed === true;
  if (!confirmed) {
    const { queue } = await ctx.connection.client().call('queues.get', { name });
    const c = queue.counts;
    const count = c.queued + c.retrying + c.dead + c.completed + c.cancelled;
    const running = c.running > 0 ? ` ${c.running} running job${c.running === 1 ? ' is' : 's are'} kept.` : '';
    const answer = await vscode.window.showWarningMessage(`Purge queue ${name}? This deletes ${count} job${count === 1 ? '' : 's'} and ${count === 1 ? 'its' : 'their'} history.${running}`, { modal: true }, 'Purge');
    if (answer !== 'Purge') return undefined;
  }
  const result = await ctx.connection.client().call('queues.purge', { name });
  void vscode.window.setStatusBarMessage(`Spool: purged ${result.deleted} job${result.deleted === 1 ? '' : 's'} from ${name}.`, 4000);
  ctx.queues.refresher.now();
  return result;
});
