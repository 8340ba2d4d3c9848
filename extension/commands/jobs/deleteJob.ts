/**
 * Delete: removes jobs and their history (not running ones). Asks first, naming how many.
 * Arguments as for every job command; a trailing `{ confirmed: true }` skips the question. The
 * Delete key runs it on the jobs selected in the Queues view.
 */
import * as vscode from 'vscode';
import { jobLabel, shortId } from '../../views/format';
import { command } from '../command';
import { jobTargets, reportBulk } from '../targets';

function confirmedIn(args: unknown[]): boolean {
  return args.some((a) => typeof a === 'object' && a !== null && 'confirmed' in a && a.confirmed === true);
}

export const deleteJob = command('spool.jobs.delete', async (ctx, ...args) => {
  const jobs = await jobTargets(ctx, args);
  if (!confirmedIn(args)) {
    // The job as the tree shows it, which the user recognises; the id follows for the record.
    const what = jobs.length === 1 && jobs[0] ? `job "${jobLabel(jobs[0])}" (${shortId(jobs[0].id)}) and its run history` : `${jobs.length} jobs and their run history`;
    const answer = await vscode.window.showWarningMessage(`Delete ${what}? This cannot be undone.`, { modal: true }, 'Delete');
    if (answer !== 'Delete') return undefined;
  }
  const result = await ctx.connection.client().call('jobs.deleteMany', { ids: jobs.map((j) => j.id) });
  reportBulk('deleted', result.count, result.errors);
  ctx.queues.refresher.now();
  return result;
});
