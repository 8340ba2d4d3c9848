/**
 * Act on All Matching Jobs: retry, cancel, delete, hold, release or set the priority of every
 * job the Queues view's filter matches, across pages, not only those loaded. Started from a
 * queue, a state group or a group key it is narrowed to it; from the view's title it spans every
 * queue. The daemon counts the jobs first (a dry run of the same bulk method) and the
 * confirmation says how many: "Retry 1,204 jobs matching state=dead queue=emails?".
 *
 * Arguments: the clicked node (or none), then optionally `{ action, priority, confirmed }` from
 * another extension or a test; without `confirmed` the user is asked. Returns the bulk result,
 * with the count asked about as `asked` and the question as `question`.
 */
import * as vscode from 'vscode';
import type { SpoolClient } from '../../../shared/client/client';
import type { BulkResult, JobFilter } from '../../../shared/protocol';
import { priorityText } from '../../../shared/domain/rules/options';
import { isGroupNode, isKeyGroupNode, isQueueNode } from '../../views/queues/nodes';
import { mayEnqueue, UNTRUSTED_SHELL } from '../../trust';
import { command } from '../command';
import { reportBulk } from '../targets';
import { BULK_ACTIONS, BULK_WORDS, bulkFilterWords, bulkFilters, bulkQuestion, isEmptyFilter, type BulkAction, type BulkScope } from './bulkFilter';

const METHODS = {
  retry: 'jobs.retryMany',
  cancel: 'jobs.cancelMany',
  delete: 'jobs.deleteMany',
  hold: 'jobs.holdMany',
  release: 'jobs.unholdMany',
  priority: 'jobs.updateMany',
} as const;

interface BulkOptions {
  action?: BulkAction;
  priority?: number;
  confirmed?: boolean;
}

export type BulkMatchingResult = BulkResult & { asked: number; question: string };

function scopeOf(arg: unknown): BulkScope {
  if (isQueueNode(arg)) return { queue: arg.queue.name };
  if (isGroupNode(arg)) return { queue: arg.queue, state: arg.group };
  if (isKeyGroupNode(arg) && arg.counts.group !== null) return { queue: arg.queue, group: arg.counts.group };
  return {};
}

function isOptions(value: unknown): value is BulkOptions {
  return typeof value === 'object' && value !== null && !('type' in value);
}

async function call(client: SpoolClient, action: BulkAction, filter: JobFilter, dryRun: boolean, priority: number): Promise<BulkResult> {
  if (action === 'priority') return client.call('jobs.updateMany', { filter, priority, dryRun });
  return client.call(METHODS[action], { filter, dryRun });
}

async function pickAction(words: string): Promise<BulkAction | undefined> {
  const picked = await vscode.window.showQuickPick(
    BULK_ACTIONS.map((action) => ({ label: action === 'priority' ? 'Set Priority…' : BULK_WORDS[action].verb, description: BULK_WORDS[action].what, action })),
    { title: 'Spool: Act on All Matching Jobs', placeHolder: `What to do with every job matching ${words}` },
  );
  return picked?.action;
}

async function askPriority(): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    title: 'Spool: Set Priority of All Matching Jobs',
    prompt: 'The priority every matching job that has not started gets (higher runs first)',
    placeHolder: '5',
    validateInput: (v) => {
      const p = priorityText(v);
      return p.ok ? null : p.message;
    },
  });
  if (text === undefined) return undefined;
  const p = priorityText(text);
  return p.ok ? p.value : undefined;
}

export const bulkMatching = command('spool.jobs.bulkMatching', async (ctx, arg, more) => {
  const options = isOptions(more) ? more : {};
  const scope = scopeOf(arg);
  const view = ctx.queues.filter;
  const words = bulkFilterWords(view, scope);
  const filters = bulkFilters(view, scope);
  if (filters.length === 0 || filters.some(isEmptyFilter)) {
    void vscode.window.showInformationMessage(
      filters.length === 0 ? `Spool: no jobs match ${words}.` : 'Spool: set a job filter first (Filter Jobs, in the title bar), or start from a queue: an action on all jobs of every queue is not offered.',
    );
    return undefined;
  }
  const action = options.action ?? (await pickAction(words));
  if (!action) return undefined;
  if (action === 'retry' && !vscode.workspace.isTrusted && !(view.kind !== undefined && mayEnqueue(view.kind))) {
    void vscode.window.showWarningMessage(`Spool: ${UNTRUSTED_SHELL} Retry all matching retries shell jobs too; filter by another kind (kind:NAME) to retry those here.`);
    return undefined;
  }
  const priority = action === 'priority' ? (options.priority ?? (await askPriority())) : 0;
  if (priority === undefined) return undefined;
  const client = ctx.connection.client();
  const counts = await Promise.all(filters.map((filter) => call(client, action, filter, true, priority)));
  const asked = counts.reduce((n, r) => n + r.count, 0);
  const queues = counts.reduce((n, r) => n + (r.queues ?? 0), 0);
  const question = bulkQuestion(action, asked, words, priority);
  if (asked === 0) {
    void vscode.window.showInformationMessage(`Spool: no jobs matching ${words} can be ${BULK_WORDS[action].done}.`);
    return { count: 0, errors: [], asked, question };
  }
  if (options.confirmed !== true) {
    const detail = scope.queue === undefined && queues > 1 ? `They are in ${queues} queues.` : undefined;
    const yes = BULK_WORDS[action].verb === 'Set the priority of' ? 'Set Priority' : BULK_WORDS[action].verb;
    const answer = await vscode.window.showWarningMessage(question, { modal: true, ...(detail ? { detail } : {}) }, yes);
    if (answer !== yes) return undefined;
  }
  const result: BulkResult = { count: 0, errors: [] };
  for (const filter of filters) {
    const part = await call(client, action, filter, false, priority);
    result.count += part.count;
    result.errors.push(...part.errors);
    if (part.stopRequested !== undefined) result.stopRequested = (result.stopRequested ?? 0) + part.stopRequested;
  }
  reportBulk(BULK_WORDS[action].done, result.count, result.errors);
  ctx.queues.refresher.now();
  return { ...result, asked, question };
});
