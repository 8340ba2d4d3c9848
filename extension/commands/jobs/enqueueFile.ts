/**
 * Enqueue Current File as Shell Job: runs a script (the active editor's, or the one clicked in
 * the Explorer or the editor's context menu) in the file's folder: with its shebang, as it is when
 * it is executable, with `sh`/`bash` for a .sh/.bash file; any other file is refused with why
 * (scriptFile.ts). Saves the file first so the job runs what is shown. Asks for the queue, offering
 * the one used last in this workspace first; a second argument (a queue name) skips the question.
 * Ends with a note naming the job, with Show Output.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Queue } from '../../../shared/protocol/types';
import type { SpoolContext } from '../../context';
import { announceJob } from '../../notifications';
import { command } from '../command';
import { type JobDraft } from '../steps/draft';
import { runSteps } from '../steps/flow';
import { queueStep } from '../steps/jobSteps';
import { enqueueFromWindow } from './enqueue';
import { scriptCommand } from './scriptFile';

/** Where the last queue used for a file is kept: per workspace, since scripts belong to one. */
const LAST_QUEUE_KEY = 'spool.enqueueFile.queue';


/**
 * Asks for the queue, with the one used last in this workspace first so Enter takes it again: a
 * queue the daemon has moves to the top; one it no longer has (purged, or a daemon restarted on
 * another database) is typed in, as is "default" when there is no queue at all.
 */
async function askQueue(ctx: SpoolContext, file: string): Promise<string | undefined> {
  const last = ctx.extension.workspaceState.get<string>(LAST_QUEUE_KEY);
  const { queues } = await ctx.connection.client().call('queues.list');
  const known = queues.find((q) => q.name === last);
  const offered: Queue[] = known ? [known, ...queues.filter((q) => q !== known)] : queues;
  const typed = known ? undefined : (last ?? (queues.length === 0 ? 'default' : undefined));
  const draft: JobDraft = typed === undefined ? {} : { queue: typed };
  const done = await runSteps(`Spool: Enqueue ${path.basename(file)}`, [queueStep<JobDraft>(offered, [])], draft);
  return done ? draft.queue : undefined;
}

export const enqueueFile = command('spool.jobs.enqueueFile', async (ctx, arg, queueArg) => {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== 'file') throw new Error('Open a script file in the editor first: Spool runs the file that is saved on disk.');
  const file = uri.fsPath;
  const isScript = (firstLine: string): ReturnType<typeof scriptCommand> => {
    let executable = false;
    try {
      fs.accessSync(file, fs.constants.X_OK);
      executable = fs.statSync(file).isFile();
    } catch {
      // Not executable (or not on disk yet: saved below).
    }
    return scriptCommand(file, firstLine, executable);
  };
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  // Refused before the queue is asked for: nothing to choose for a file that is not run.
  const before = isScript(open !== undefined ? (open.lineCount > 0 ? open.lineAt(0).text : '') : firstLineOnDisk(file));
  if ('refused' in before) throw new Error(before.refused);
  const queue = typeof queueArg === 'string' && queueArg !== '' ? queueArg : await askQueue(ctx, file);
  if (queue === undefined) return undefined;
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
  if (doc.isDirty) await doc.save();
  const script = isScript(doc.lineCount > 0 ? doc.lineAt(0).text : '');
  if ('refused' in script) throw new Error(script.refused);
  const job = await enqueueFromWindow(ctx, { queue, kind: 'shell', payload: { command: script.command, cwd: path.dirname(file) } });
  await ctx.extension.workspaceState.update(LAST_QUEUE_KEY, queue);
  void announceJob('enqueued', job);
  return job;
});

/** The first line of a file on disk ('' when it cannot be read), without reading all of a big one. */
function firstLineOnDisk(file: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(4096);
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).toString('utf8').split('\n', 1)[0] ?? '';
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
