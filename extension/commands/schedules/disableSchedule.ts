/** Disable a schedule: it stops firing until enabled; it is kept. */
import { command } from '../command';
import { scheduleTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

export const disableSchedule = command('spool.schedules.disable', async (ctx, arg) => {
  const name = await scheduleTarget(ctx, arg);
  if (!name) return undefined;
  const { schedule } = await ctx.connection.client().call('schedules.disable', { name });
  ctx.schedules.refresher.now();
  void warnIfOwned('schedule', name, schedule.owner, 'changed');
  return schedule;
});
