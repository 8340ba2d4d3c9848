/**
 * "All matching the filter": the Queues view's filter (states, kind, text), narrowed to the
 * queue, state group or group key the action was started from, as the `filter` of the bulk
 * methods, and in words for the confirmation ("state=dead queue=emails"). Pure, for the command
 * and its tests.
 */
import type { JobFilter } from '../../../shared/protocol';
import type { JobState } from '../../../shared/protocol/types';
import type { GroupName, JobViewFilter } from '../../views/queues/text';

/** What the action was started from: a queue, one of its state groups, or one of its group keys. */
export interface BulkScope {
  queue?: string;
  /** A state group of the tree (queued = due, delayed = not yet due). */
  state?: GroupName;
  /** A group key (Job.group). */
  group?: string;
}

export type BulkAction = 'retry' | 'cancel' | 'delete' | 'hold' | 'release' | 'priority';
export const BULK_ACTIONS: readonly BulkAction[] = ['retry', 'cancel', 'delete', 'hold', 'release', 'priority'];

/** The verb the confirmation starts with and the past tense the status bar reports. */
export const BULK_WORDS: Record<BulkAction, { verb: string; done: string; what: string }> = {
  retry: { verb: 'Retry', done: 'retried', what: 'dead and cancelled jobs run again' },
  cancel: { verb: 'Cancel', done: 'cancelled', what: 'waiting jobs end cancelled; running ones are asked to stop' },
  delete: { verb: 'Delete', done: 'deleted', what: 'jobs that are not running are removed' },
  hold: { verb: 'Hold', done: 'held', what: 'waiting jobs are not started until released' },
  release: { verb: 'Release', done: 'released', what: 'held jobs wait to run again' },
  priority: { verb: 'Set the priority of', done: 'reprioritized', what: 'jobs that have not started get a new priority' },
};

/** The tree's state groups picked: by the scope's group if it names one, else by the filter. */
function pickedStates(view: JobViewFilter, scope: BulkScope): GroupName[] {
  if (scope.state) return view.states && view.states.length > 0 && !view.states.includes(scope.state) ? [] : [scope.state];
  return view.states ?? [];
}

/**
 * The bulk filters that together cover exactly the jobs the tree shows as matching: one, or two
 * when due or delayed queued jobs are picked apart from other states (`delayed` narrows queued
 * jobs only, so they need a filter of their own). Empty when the scope and filter pick nothing.
 */
export function bulkFilters(view: JobViewFilter, scope: BulkScope): JobFilter[] {
  const base: JobFilter = {};
  if (scope.queue) base.queue = scope.queue;
  if (scope.group) base.group = scope.group;
  if (view.kind) base.kind = view.kind;
  if (view.search) base.search = view.search;
  const picked = pickedStates(view, scope);
  if (picked.length === 0) return scope.state || (view.states && view.states.length > 0) ? [] : [base];
  const due = picked.includes('queued');
  const delayed = picked.includes('delayed');
  const plain: JobState[] = picked.filter((s): s is Exclude<GroupName, 'delayed'> => s !== 'delayed' && s !== 'queued');
  if (due && delayed) plain.push('queued');
  const filters: JobFilter[] = [];
  if (plain.length > 0) filters.push({ ...base, states: plain });
  if (due !== delayed) filters.push({ ...base, states: ['queued'], delayed });
  return filters;
}

/** True when a filter would name nothing at all (the daemon refuses that: it would mean every job). */
export function isEmptyFilter(filter: JobFilter): boolean {
  return Object.keys(filter).length === 0;
}

/** The scope and filter in words, as `spool jobs` writes a filter: "state=dead queue=emails kind=shell". */
export function bulkFilterWords(view: JobViewFilter, scope: BulkScope): string {
  const parts: string[] = [];
  const states = pickedStates(view, scope);
  if (states.length > 0) parts.push(`state=${states.join(',')}`);
  if (scope.queue) parts.push(`queue=${scope.queue}`);
  if (scope.group) parts.push(`group=${scope.group}`);
  if (view.kind) parts.push(`kind=${view.kind}`);
  if (view.search) parts.push(`search="${view.search}"`);
  return parts.join(' ');
}

/** The confirmation: "Retry 1,204 jobs matching state=dead queue=emails?" */
export function bulkQuestion(action: BulkAction, count: number, words: string, priority?: number): string {
  const jobs = `${count.toLocaleString('en-US')} job${count === 1 ? '' : 's'}`;
  const to = action === 'priority' ? ` to ${priority ?? 0}` : '';
  return `${BULK_WORDS[action].verb} ${jobs} matching ${words}${to}?`;
}
