/**
 * Retry All Dead Jobs of a queue (the clicked queue or Dead group, a name, or a pick of the
 * queues that have dead jobs). The dead jobs are listed and retried by id, and this window
 * follows each one as it follows a single retry: one that dies again raises the same warning. In
 * an untrusted workspace the dead shell jobs stay dead: only the others are retried.
 */
import * as vscode from 'vscode';
import type { SpoolClient } from '../../../shared/client/client';
import { LIMITS, type BulkResult, type ListJobsResult } from '../../../shared/protocol';
import { mayEnqueue } from '../../trust';
import { command } from '../command';
import { queueTarget, reportBulk } from '../targets';

export const retryAllDead = command('spool.jobs.retryAllDead', async (ctx, arg) => {
  const queue = arg === undefined ? await pickQueueWithDead(ctx.connection.client()) : await queueTarget(ctx, arg, 'Retry the dead jobs of which queue?');
  if (!queue) return undefined;
  const client = ctx.connection.client();
  const trusted = vscode.workspace.isTrusted;
  const { result, shellLeft, ids } = await retryDead(client, queue, trusted);
  const refused = new Set(result.errors.map((e) => e.id));
  for (const id of ids) if (!refused.has(id)) ctx.enqueued.track(id);
  if (shellLeft > 0) {
    void vscode.window.showWarningMessage(
      `Spool: retried ${result.count} dead job${result.count === 1 ? '' : 's'} of ${queue}; ${shellLeft} dead shell job${shellLeft === 1 ? '' : 's'} stay dead because this workspace is not trusted, so Spool does not run shell commands from it.`,
    );
  } else if (result.count === 0 && result.errors.length === 0) void vscode.window.showInformationMessage(`Queue ${queue} has no dead jobs.`);
  else reportBulk('retried', result.count, result.errors);
  ctx.queues.refresher.now();
  return result;
});

/** From the palette or the title bar: a pick of the queues that have dead jobs, with how many. */
async function pickQueueWithDead(client: SpoolClient): Promise<string | undefined> {
  const { queues } = await client.call('queues.list');
  const withDead = queues.filter((q) => q.counts.dead > 0);
  if (withDead.length === 0) {
    void vscode.window.showInformationMessage('Spool: no queue has dead jobs.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    withDead.map((q) => ({ label: q.name, description: `${q.counts.dead} dead` })),
    { placeHolder: 'Retry the dead jobs of which queue?', title: 'Spool: Retry All Dead Jobs' },
  );
  return pick?.label;
}

/** The dead jobs of `queue` (shell jobs only when `shell`), retried by id; the ids, and how many shell jobs were left. */
async function retryDead(client: SpoolClient, queue: string, shell: boolean): Promise<{ result: BulkResult; shellLeft: number; ids: string[] }> {
  const ids: string[] = [];
  let shellLeft = 0;
  let cursor: string | null = null;
  do {
    const page: ListJobsResult = await client.call('jobs.list', { queue, states: ['dead'], limit: LIMITS.maxPageSize, ...(cursor ? { cursor } : {}) });
    for (const job of page.jobs) {
      if (shell || mayEnqueue(job.kind)) ids.push(job.id);
      else shellLeft++;
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  const result: BulkResult = { count: 0, errors: [] };
  for (let i = 0; i < ids.length; i += LIMITS.maxBatch) {
    const part = await client.call('jobs.retryMany', { ids: ids.slice(i, i + LIMITS.maxBatch) });
    result.count += part.count;
    result.errors.push(...part.errors);
  }
  return { result, shellLeft, ids };
}
