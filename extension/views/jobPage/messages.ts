/**
 * What the job page and the extension say to each other, declared once. The page's script is a
 * string (page/script.ts) and cannot import types, so it is built from the names declared here:
 * a message type or an action missing here is a compile error on the extension's side and an
 * unknown value, ignored with a log line, on the page's.
 */
import { WHOLE_JOB_ID } from '../../../shared/domain/present';
import type { JobAction } from '../../../shared/domain/states';

/**
 * The buttons and links of the page, each with the command it runs (given the job's id) and,
 * for those that move the job, the action of the transitions table (shared/domain/states.ts)
 * that decides in which states it is offered. The others are offered in every state.
 */
export const PAGE_ACTIONS = {
  retry: { label: 'Retry', command: 'spool.jobs.retry', transition: 'retry' },
  cancel: { label: 'Cancel', command: 'spool.jobs.cancel', transition: 'cancel' },
  edit: { label: 'Edit', command: 'spool.jobs.edit', transition: 'update' },
  runNow: { label: 'Run now', command: 'spool.jobs.runNow', transition: 'runNow' },
  hold: { label: 'Hold', command: 'spool.jobs.hold', transition: 'hold' },
  release: { label: 'Release', command: 'spool.jobs.release', transition: 'unhold' },
  editAndRequeue: { label: 'Edit & Re-enqueue', command: 'spool.jobs.editAndRequeue', transition: null },
  delete: { label: 'Delete', command: 'spool.jobs.delete', transition: 'delete' },
  copyId: { label: 'Copy Id', command: 'spool.jobs.copyId', transition: null },
  openJson: { label: 'Open as JSON', command: 'spool.jobs.openJson', transition: null },
  showOutput: { label: 'Show live output', command: 'spool.jobs.showOutput', transition: null },
} as const satisfies Record<string, { label: string; command: string; transition: JobAction | null }>;

/** A button or link of the page. */
export type PageAction = keyof typeof PAGE_ACTIONS;

/** Whether `name` is one of the page's actions. */
export function isPageAction(name: unknown): name is PageAction {
  return typeof name === 'string' && Object.hasOwn(PAGE_ACTIONS, name);
}

/** The `type` of every message, in either direction. */
export const MESSAGE = {
  /** Page → extension: a button or link was clicked. */
  action: 'action',
  /** Page → extension: the link of another job (a dependency or a dependent) was clicked. */
  openJob: 'openJob',
  /** Extension → page: the page's body, rendered anew (the job, its runs or its output changed). */
  render: 'render',
  /** Extension → page: the relative times, by `data-time` key, recomputed on a timer. */
  times: 'times',
} as const;

/** Page → extension: an action on the page's job. */
export interface ActionMessage {
  type: typeof MESSAGE.action;
  action: PageAction;
}

/** Page → extension: open the page of the job `id`. */
export interface OpenJobMessage {
  type: typeof MESSAGE.openJob;
  id: string;
}

/** Page → extension. */
export type FromPageMessage = ActionMessage | OpenJobMessage;

/** Extension → page. */
export type ToPageMessage = { type: typeof MESSAGE.render; html: string } | { type: typeof MESSAGE.times; times: Record<string, string> };

/**
 * Reads a message from the page; null for anything that is not one (the page is not trusted to
 * be right: a job to open must be named by a whole job id).
 */
export function readPageMessage(value: unknown): FromPageMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const type: unknown = Reflect.get(value, 'type');
  if (type === MESSAGE.openJob) {
    const id: unknown = Reflect.get(value, 'id');
    return typeof id === 'string' && WHOLE_JOB_ID.test(id) ? { type, id } : null;
  }
  const action: unknown = Reflect.get(value, 'action');
  return type === MESSAGE.action && isPageAction(action) ? { type, action } : null;
}
