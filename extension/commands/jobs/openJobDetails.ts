/**
 * Open Job: the job's page (views/jobPage), one per job; opening it again reveals it. Arguments as
 * for every job command (a tree node, a job id); returns the id of the job shown.
 */
import { command } from '../command';
import { jobTargets } from '../targets';

export const openJobDetails = command('spool.jobs.openDetails', async (ctx, ...args) => {
  const [job] = await jobTargets(ctx, args.slice(0, 1));
  if (!job) return undefined;
  await ctx.jobPages.open(job);
  return job.id;
});
