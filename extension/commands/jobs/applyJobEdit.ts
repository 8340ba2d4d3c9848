/**
 * Apply Job Edit: the button in the title bar of an Edit Job document. Changes the job with the
 * document's text as it stands (saved or not); saving alone never does (documents/editPayload.ts).
 * Takes the document's URI, else the active editor's. Returns the job as changed.
 */
import * as vscode from 'vscode';
import { jobPhrase } from '../../notifications';
import { command } from '../command';

export const applyJobEdit = command('spool.jobs.applyEdit', async (ctx, arg) => {
  const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : vscode.window.activeTextEditor?.document.uri;
  const document = uri === undefined ? undefined : vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (document === undefined) throw new Error('Apply Job Edit works on a document opened by Edit Job: open one from a job first.');
  const { job, changed } = await ctx.editor.applyEdit(document);
  ctx.queues.refresher.now();
  void vscode.window.setStatusBarMessage(changed === 0 ? 'Spool: nothing changed in the document; nothing was applied.' : `Spool: applied ${changed} change${changed === 1 ? '' : 's'} to ${jobPhrase(job)}.`, 5000);
  return job;
});
