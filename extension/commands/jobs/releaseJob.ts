/** Release: held jobs wait again as they did (blocked on their dependencies, retrying, or queued at their run time). Bulk with a multi-selection. */
import { command } from '../command';
import { jobTargets, reportBulk } from '../targets';

export const releaseJob = command('spool.jobs.release', async (ctx, ...args) => {
  const jobs = await jobTargets(ctx, args);
  const result = await ctx.connection.client().call('jobs.unholdMany', { ids: jobs.map((j) => j.id) });
  reportBulk('released', result.count, result.errors);
  ctx.queues.refresher.now();
  return result;
});
