/** Show Job Output: a document that follows a running job's output live and stays after it ends. */
import * as vscode from 'vscode';
import { jobOutputUri } from '../../documents/jobOutput';
import { command } from '../command';
import { jobTargets } from '../targets';

export const showJobOutput = command('spool.jobs.showOutput', async (ctx, ...args) => {
  const [job] = await jobTargets(ctx, args.slice(0, 1));
  if (!job) return undefined;
  const doc = await vscode.workspace.openTextDocument(jobOutputUri(job));
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc.uri.toString();
});
