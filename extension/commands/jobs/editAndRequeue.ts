/** Edit & Re-enqueue: opens the job's queue, kind, payload and options as JSON; Enqueue Edited Job (in the title bar) enqueues a new job. */
import * as vscode from 'vscode';
import { command } from '../command';
import { jobTargets } from '../targets';

export const editAndRequeue = command('spool.jobs.editAndRequeue', async (ctx, ...args) => {
  const [job] = await jobTargets(ctx, args.slice(0, 1));
  if (!job) return undefined;
  const uri = ctx.editor.prepare(job);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  void vscode.window.setStatusBarMessage('Spool: edit the job, then click Enqueue Edited Job in the title bar to enqueue it as a new job.', 8000);
  return uri.toString();
});
