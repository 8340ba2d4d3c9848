/**
 * Enqueue Current File as Shell Job: runs the file in the active editor (with its shebang, or
 * `sh` when it has none) in the file's folder. Saves the file first so the job runs what is shown.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { command } from '../command';
import { enqueueFromWindow } from './enqueue';

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export const enqueueFile = command('spool.jobs.enqueueFile', async (ctx, arg, queueArg) => {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file') throw new Error('Open a script file in the editor first: Spool runs the file that is saved on disk.');
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty) await doc.save();
  const file = uri.fsPath;
  const first = doc?.lineAt(0).text ?? '';
  const commandLine = first.startsWith('#!') ? `${first.slice(2).trim()} ${shellQuote(file)}` : `sh ${shellQuote(file)}`;
  const queue = typeof queueArg === 'string' && queueArg !== '' ? queueArg : 'default';
  return enqueueFromWindow(ctx, { queue, kind: 'shell', payload: { command: commandLine, cwd: path.dirname(file) } });
});
