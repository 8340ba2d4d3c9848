/** Copy Job Id: the ids of the selected jobs, one per line. */
import * as vscode from 'vscode';
import { command } from '../command';
import { jobTargets } from '../targets';

export const copyJobId = command('spool.jobs.copyId', async (ctx, ...args) => {
  const text = (await jobTargets(ctx, args)).map((j) => j.id).join('\n');
  await vscode.env.clipboard.writeText(text);
  return text;
});
