/** Resume a paused queue. */
import { command } from '../command';
import { queueTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

export const resumeQueue = command('spool.queues.resume', async (ctx, arg) => {
  const name = await queueTarget(ctx, arg, 'Resume which queue?');
  if (!name) return undefined;
  const { queue } = await ctx.connection.client().call('queues.resume', { name });
  ctx.queues.refresher.now();
  void warnIfOwned('queue', name, queue.owner, 'changed');
  return queue;
});
