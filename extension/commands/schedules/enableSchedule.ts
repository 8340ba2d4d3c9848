/** Enable a schedule: it fires again from its next cron time. */
import { command } from '../command';
import { scheduleTarget } from '../targets';

export const enableSchedule = command('spool.schedules.enable', async (ctx, arg) => {
  const name = await scheduleTarget(ctx, arg);
  if (!name) return undefined;
  const { schedule } = await ctx.connection.client().call('schedules.enable', { name });
  ctx.schedules.refresher.now();
  return schedule;
});
