/**
 * What the graph page of a workflow run and the extension say to each other, declared once: the
 * page's script (page/main.ts) and the panel (panel.ts) both import it. The page is not trusted
 * to be right: what it sends is read by `readRunPageMessage`.
 */
import { WHOLE_JOB_ID } from '../../../shared/domain/present';
import type { WorkflowRunDetail } from '../../../shared/protocol/workflows';
import type { RunActions } from './render';

export const RUN_MESSAGE = {
  /** Extension → page: the run as read now, and the buttons that apply. */
  run: 'run',
  /** Page → extension: the page's script is running and waits for the run. */
  ready: 'ready',
  /** Page → extension: a job's node was clicked. */
  openJob: 'openJob',
  /** Page → extension: a button was clicked. */
  action: 'action',
} as const;

/** Extension → page. */
export interface RunPageUpdate {
  type: typeof RUN_MESSAGE.run;
  run: WorkflowRunDetail;
  /** The extension's clock when it sent the run: the page ticks running jobs from it. */
  now: number;
  actions: RunActions;
  /** The daemon no longer has the run: the page keeps it under a banner. */
  gone: boolean;
}

/** Page → extension. */
export type FromRunPage = { type: typeof RUN_MESSAGE.ready } | { type: typeof RUN_MESSAGE.openJob; id: string } | { type: typeof RUN_MESSAGE.action; action: keyof RunActions };

/** Reads a message from the page; null for anything that is not one. */
export function readRunPageMessage(value: unknown): FromRunPage | null {
  if (typeof value !== 'object' || value === null) return null;
  const type: unknown = Reflect.get(value, 'type');
  if (type === RUN_MESSAGE.ready) return { type };
  if (type === RUN_MESSAGE.openJob) {
    const id: unknown = Reflect.get(value, 'id');
    return typeof id === 'string' && WHOLE_JOB_ID.test(id) ? { type, id } : null;
  }
  if (type === RUN_MESSAGE.action) {
    const action: unknown = Reflect.get(value, 'action');
    return action === 'retry' || action === 'cancel' ? { type, action } : null;
  }
  return null;
}
