/** Refresh the Workers view now. */
import { command } from '../command';

export const refreshWorkers = command('spool.workers.refresh', (ctx) => ctx.workers.refresher.now());
