/** Open Job as JSON: the job and its runs as a read-only JSON document that follows changes (the page's "Open as JSON"). */
import * as vscode from 'vscode';
import { jobDetailsUri } from '../../documents/jobDetails';
import { command } from '../command';
import { jobTargets } from '../targets';

export const openJobJson = command('spool.jobs.openJson', async (ctx, ...args) => {
  const [job] = await jobTargets(ctx, args.slice(0, 1));
  if (!job) return undefined;
  const doc = await vscode.workspace.openTextDocument(jobDetailsUri(job.id));
  await vscode.languages.setTextDocumentLanguage(doc, 'json');
  await vscode.window.showTextDocument(doc, { preview: true });
  return doc.uri.toString();
});
