/** Retry: dead, cancelled or completed jobs go back to queued with a fresh attempt budget. Bulk with a multi-selection. */
import { command } from '../command';
import { jobTargets, reportBulk } from '../targets';
import { assertMayEnqueue } from '../../trust';

export const retryJob = command('spool.jobs.retry', async (ctx, ...args) => {
  const jobs = await jobTargets(ctx, args);
  for (const job of jobs) assertMayEnqueue(job.kind);
  const client = ctx.connection.client();
  if (jobs.length === 1 && jobs[0]) {
    const { job } = await client.call('jobs.retry', { id: jobs[0].id });
    ctx.enqueued.track(job.id);
    ctx.queues.refresher.now();
    return { count: 1, errors: [] };
  }
  const result = await client.call('jobs.retryMany', { ids: jobs.map((j) => j.id) });
  for (const job of jobs) ctx.enqueued.track(job.id);
  reportBulk('retried', result.count, result.errors);
  ctx.queues.refresher.now();
  return result;
});
