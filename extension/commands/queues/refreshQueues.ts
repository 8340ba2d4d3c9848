/** Refresh the Queues view now. */
import { command } from '../command';

export const refreshQueues = command('spool.queues.refresh', (ctx) => ctx.queues.refresher.now());
