/**
 * Open Dashboard: the queues' charts over time and their health now (views/dashboard). From the
 * palette or the Queues view's title on every queue; from a queue's menu (or with a queue's name)
 * on that queue.
 */
import { isGroupNode, isQueueNode } from '../../views/queues/nodes';
import { command } from '../command';

export const openDashboard = command('spool.dashboard.open', async (ctx, arg) => {
  const queue = isQueueNode(arg) ? arg.queue.name : isGroupNode(arg) ? arg.queue : typeof arg === 'string' && arg !== '' ? arg : undefined;
  await ctx.dashboard.open(queue);
  return queue ?? null;
});
