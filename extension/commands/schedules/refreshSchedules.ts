/** Refresh the Schedules view now. */
import { command } from '../command';

export const refreshSchedules = command('spool.schedules.refresh', (ctx) => ctx.schedules.refresher.now());
