/**
 * Edit Job: opens a job that has not started as a JSON document of its editable fields; Apply
 * Job Edit (in the title bar) changes the job. Saving the document applies nothing.
 */
import * as vscode from 'vscode';
import { command } from '../command';
import { jobTargets } from '../targets';

export const editJob = command('spool.jobs.edit', async (ctx, ...args) => {
  const [target] = await jobTargets(ctx, args.slice(0, 1));
  if (!target) return undefined;
  // The job as it is now, not as a tree row last showed it.
  const { job } = await ctx.connection.client().call('jobs.get', { id: target.id });
  const uri = ctx.editor.prepareEdit(job);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  void vscode.window.setStatusBarMessage('Spool: edit the job, then click Apply Job Edit in the title bar. Saving does not apply it.', 8000);
  return uri.toString();
});
