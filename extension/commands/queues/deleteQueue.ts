/**
 * Delete a queue and every job in it, from the queue's context menu: asks first, naming how many
 * jobs go with it. A queue with running jobs is refused (the daemon would refuse it too): they
 * are cancelled first. A second argument `{ confirmed: true }` skips the question.
 */
import * as vscode from 'vscode';
import { command } from '../command';
import { queueTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

export const deleteQueue = command('spool.queues.delete', async (ctx, arg, options) => {
  const name = await queueTarget(ctx, arg, 'Delete which queue?');
  if (!name) return undefined;
  const client = ctx.connection.client();
  const { queue } = await client.call('queues.get', { name });
  const c = queue.counts;
  if (c.running > 0) throw new Error(`Cannot delete queue ${name}: ${c.running} of its jobs are running. Cancel them first, or wait for them to end.`);
  const confirmed = typeof options === 'object' && options !== null && 'confirmed' in options && options.confirmed === true;
  if (!confirmed) {
    const count = c.queued + c.retrying + c.dead + c.completed + c.cancelled;
    const jobs = count === 0 ? 'It holds no jobs.' : `This deletes the ${count === 1 ? 'job' : `${count} jobs`} it holds and their history.`;
    const answer = await vscode.window.showWarningMessage(`Delete queue ${name}? ${jobs} This cannot be undone.`, { modal: true }, 'Delete Queue');
    if (answer !== 'Delete Queue') return undefined;
  }
  // `force`: the user agreed to delete the jobs with the queue.
  const result = await client.call('queues.delete', { name, force: true });
  void vscode.window.setStatusBarMessage(`Spool: deleted queue ${name} and ${result.deleted} job${result.deleted === 1 ? '' : 's'}.`, 4000);
  ctx.queues.refresher.now();
  void warnIfOwned('queue', name, queue.owner, 'deleted');
  return result;
});
