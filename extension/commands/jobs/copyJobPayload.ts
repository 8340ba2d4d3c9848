/** Copy Job Payload: the payload as formatted JSON. */
import * as vscode from 'vscode';
import { command } from '../command';
import { jobTargets } from '../targets';

export const copyJobPayload = command('spool.jobs.copyPayload', async (ctx, ...args) => {
  const [job] = await jobTargets(ctx, args.slice(0, 1));
  if (!job) return undefined;
  const text = JSON.stringify(job.payload ?? null, null, 2);
  await vscode.env.clipboard.writeText(text);
  return text;
});
