/** Pause a queue: nothing more is claimed from it; running jobs finish. */
import { command } from '../command';
import { queueTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

export const pauseQueue = command('spool.queues.pause', async (ctx, arg) => {
  const name = await queueTarget(ctx, arg, 'Pause which queue?');
  if (!name) return undefined;
  const { queue } = await ctx.connection.client().call('queues.pause', { name });
  ctx.queues.refresher.now();
  void warnIfOwned('queue', name, queue.owner, 'changed');
  return queue;
});
