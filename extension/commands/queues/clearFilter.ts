/** Clear the Queues view's filter: the whole tree is back, expanded as the user left it. */
import { command } from '../command';

export const clearFilter = command('spool.queues.clearFilter', (ctx) => ctx.queues.setFilter({}));
