/**
 * Enable a schedule: it fires again from its next cron time. A shell schedule is not enabled
 * from an untrusted workspace, since it would then run its command.
 */
import { assertMayEnqueue } from '../../trust';
import { command } from '../command';
import { scheduleTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

export const enableSchedule = command('spool.schedules.enable', async (ctx, arg) => {
  const name = await scheduleTarget(ctx, arg);
  if (!name) return undefined;
  const client = ctx.connection.client();
  assertMayEnqueue((await client.call('schedules.get', { name })).schedule.job.kind);
  const { schedule } = await client.call('schedules.enable', { name });
  ctx.schedules.refresher.now();
  void warnIfOwned('schedule', name, schedule.owner, 'changed');
  return schedule;
});
