/** Cancel: waiting jobs stop at once; a running job is asked to stop (its process group is signalled). Bulk with a multi-selection. */
import * as vscode from 'vscode';
import { jobPhrase } from '../../notifications';
import { command } from '../command';
import { jobTargets, reportBulk } from '../targets';

export const cancelJob = command('spool.jobs.cancel', async (ctx, ...args) => {
  const jobs = await jobTargets(ctx, args);
  const client = ctx.connection.client();
  if (jobs.length === 1 && jobs[0]) {
    const { job } = await client.call('jobs.cancel', { id: jobs[0].id });
    ctx.queues.refresher.now();
    // A waiting job is cancelled at once; a running one only when its worker has stopped it.
    const what = job.state === 'running' ? 'asked running' : 'cancelled';
    void vscode.window.setStatusBarMessage(`Spool: ${what} ${jobPhrase(job)}${job.state === 'running' ? ' to stop' : ''}.`, 5000);
    return { count: 1, errors: [] };
  }
  const result = await client.call('jobs.cancelMany', { ids: jobs.map((j) => j.id) });
  // Running ones are only asked to stop; they end as cancelled when their worker stops them.
  const asked = result.stopRequested ?? 0;
  const stopping = `asked ${asked} running job${asked === 1 ? '' : 's'} to stop`;
  if (asked > 0 && asked === result.count) reportBulk(stopping, null, result.errors);
  else reportBulk('cancelled', result.count - asked, result.errors, asked > 0 ? ` and ${stopping}` : '');
  ctx.queues.refresher.now();
  return result;
});
