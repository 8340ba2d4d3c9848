/** Clear the Queues view's filter. */
import { command } from '../command';

export const clearFilter = command('spool.queues.clearFilter', (ctx) => {
  ctx.queues.setFilter({});
  ctx.queuesView.description = undefined;
});
