/**
 * Go to Job by Id: asks for an id (or takes one) and opens its details. Takes the whole id or the
 * 8 characters the views show. A short id is looked up among the jobs this window has heard of
 * (its own enqueues, the job events it received, the selection in the Queues view): the daemon
 * has no lookup by the end of an id, and scanning every job to find one is not worth it.
 */
import * as vscode from 'vscode';
import type { SpoolContext } from '../../context';
import { isJobNode } from '../../views/queues/nodes';
import { command } from '../command';
import { parseJobRef } from './jobRef';

async function resolveShort(ctx: SpoolContext, suffix: string): Promise<string | undefined> {
  const selected = ctx.queuesView.selection.filter(isJobNode).map((n) => n.job.id);
  const ids = [...new Set([...selected, ...ctx.enqueued.idsEndingWith(suffix)])].filter((id) => id.endsWith(suffix));
  if (ids.length === 1) return ids[0];
  if (ids.length === 0) throw new Error(`No job ending in ${suffix} among the jobs this window has seen. Select the job in the Queues view, or paste its whole id (Copy Job Id copies it).`);
  const pick = await vscode.window.showQuickPick(ids, { title: 'Spool: Go to Job', placeHolder: `Several jobs end in ${suffix}` });
  return pick;
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
  if (id === undefined) return undefined;
  const { job } = await ctx.connection.client().call('jobs.get', { id });
  return vscode.commands.executeCommand('spool.jobs.openDetails', job.id);
});
