/**
 * What the job page and the extension say to each other, declared once. The page's script is a
 * string (page/script.ts) and cannot import types, so it is built from the names declared here:
 * a message type or an action missing here is a compile error on the extension's side and an
 * unknown value, ignored with a log line, on the page's.
 */
import type { JobAction } from '../../../shared/domain/states';

/**
 * The buttons and links of the page, each with the command it runs (given the job's id) and,
 * for those that move the job, the action of the transitions table (shared/domain/states.ts)
 * that decides in which states it is offered. The others are offered in every state.
 */
export const PAGE_ACTIONS = {
  retry: { label: 'Retry', command: 'spool.jobs.retry', transition: 'retry' },
  cancel: { label: 'Cancel', command: 'spool.jobs.cancel', transition: 'cancel' },
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
  /** Extension → page: the page's body, rendered anew (the job, its runs or its output changed). */
  render: 'render',
  /** Extension → page: the relative times, by `data-time` key, recomputed on a timer. */
  times: 'times',
} as const;

/** Page → extension. */
export interface ActionMessage {
  type: typeof MESSAGE.action;
  action: PageAction;
}

/** Extension → page. */
export type ToPageMessage = { type: typeof MESSAGE.render; html: string } | { type: typeof MESSAGE.times; times: Record<string, string> };

/** Reads a message from the page; null for anything that is not one (the page is not trusted to be right). */
export function readPageMessage(value: unknown): ActionMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const type: unknown = Reflect.get(value, 'type');
  const action: unknown = Reflect.get(value, 'action');
  return type === MESSAGE.action && isPageAction(action) ? { type, action } : null;
}
