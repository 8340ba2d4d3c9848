/**
 * Enqueue Edited Job: the button in the title bar of an Edit & Re-enqueue document. Enqueues a
 * new job from the document's text as it stands; saving the document does not (see
 * documents/editPayload.ts). Takes the document's URI, else the active editor's. Returns the job.
 */
import * as vscode from 'vscode';
import { announceJob } from '../../notifications';
import { EDIT_SCHEME } from '../../documents/editPayload';
import { command } from '../command';

export const enqueueEdited = command('spool.jobs.enqueueEdited', async (ctx, arg) => {
  const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : vscode.window.activeTextEditor?.document.uri;
  const document = uri === undefined ? undefined : vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (document === undefined || document.uri.scheme !== EDIT_SCHEME) {
    throw new Error('Enqueue Edited Job works on a document opened by Edit & Re-enqueue Job: open one from a job first.');
  }
  const job = await ctx.editor.enqueue(document);
  ctx.queues.refresher.changed();
  void announceJob('enqueued', job);
  return job;
});
