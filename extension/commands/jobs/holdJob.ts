/** Hold: waiting jobs (blocked, queued, delayed, retrying) are put aside; no worker takes them until released. Bulk with a multi-selection. */
import { command } from '../command';
import { jobTargets, reportBulk } from '../targets';

export const holdJob = command('spool.jobs.hold', async (ctx, ...args) => {
  const jobs = await jobTargets(ctx, args);
  const result = await ctx.connection.client().call('jobs.holdMany', { ids: jobs.map((j) => j.id) });
  reportBulk('held', result.count, result.errors);
  ctx.queues.refresher.now();
  return result;
});
