/** Resume a paused queue. */
import { command } from '../command';
import { queueTarget } from '../targets';

export const resumeQueue = command('spool.queues.resume', async (ctx, arg) => {
  const name = await queueTarget(ctx, arg, 'Resume which queue?');
  if (!name) return undefined;
  const { queue } = await ctx.connection.client().call('queues.resume', { name });
  ctx.queues.refresher.now();
  return queue;
});
