/**
 * Go to Job by Id: asks for an id (or takes one) and opens its details. Takes the whole id, or
 * the 8 characters the views show (or more of the id's end): those are looked up in the daemon
 * with `jobs.list { idSuffix, limit: 2 }`, which an index answers, so a job this window never
 * heard of (enqueued from the CLI, or before the window opened) is found as well. Two results
 * mean the end is shared, and the user is asked for more of the id rather than offered a guess.
 */
import * as vscode from 'vscode';
import type { SpoolContext } from '../../context';
import { command } from '../command';
import { parseJobRef, shortRefProblem } from './jobRef';

async function resolveShort(ctx: SpoolContext, suffix: string): Promise<string> {
  const { jobs } = await ctx.connection.client().call('jobs.list', { idSuffix: suffix, limit: 2 });
  const problem = shortRefProblem(suffix, jobs.length);
  const [job] = jobs;
  if (problem !== null || job === undefined) throw new Error(problem ?? `No job id ends in ${suffix}.`);
  return job.id;
}

export const goToJob = command('spool.jobs.goTo', async (ctx, arg) => {
  const text =
    typeof arg === 'string' && arg !== ''
      ? arg
      : await vscode.window.showInputBox({
          title: 'Spool: Go to Job',
          prompt: 'Job id: the whole id, or the 8 characters the views show',
          placeHolder: '0193b6f0-… or 4f5a6b7c',
          validateInput: (v) => {
            const ref = parseJobRef(v);
            return ref.kind === 'invalid' ? ref.message : null;
          },
        });
  if (!text) return undefined;
  const ref = parseJobRef(text);
  if (ref.kind === 'invalid') throw new Error(ref.message);
  const id = ref.kind === 'full' ? ref.id : await resolveShort(ctx, ref.suffix);
  const { job } = await ctx.connection.client().call('jobs.get', { id });
  return vscode.commands.executeCommand('spool.jobs.openDetails', job.id);
});
