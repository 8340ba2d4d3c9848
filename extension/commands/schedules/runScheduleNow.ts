/**
 * Run Schedule Now: enqueues the schedule's job at once; its next run time stays as it is. Ends
 * with a note naming the job, with Show Output.
 */
import { announceJob } from '../../notifications';
import { assertMayEnqueue } from '../../trust';
import { command } from '../command';
import { scheduleTarget } from '../targets';

export const runScheduleNow = command('spool.schedules.runNow', async (ctx, arg) => {
  const name = await scheduleTarget(ctx, arg);
  if (!name) return undefined;
  const client = ctx.connection.client();
  const { schedule } = await client.call('schedules.get', { name });
  assertMayEnqueue(schedule.job.kind);
  const { job } = await client.call('schedules.trigger', { name });
  ctx.enqueued.track(job.id);
  ctx.queues.refresher.now();
  ctx.schedules.refresher.now();
  void announceJob(`schedule ${name} enqueued`, job);
  return job;
});
