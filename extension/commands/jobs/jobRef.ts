/**
 * What Go to Job takes: a whole job id, or the 8 characters the views show (its last 8, see
 * views/format.ts shortId). Pure of `vscode`, so it is unit-tested.
 */

/** A whole id, a short one to look up among known ids, or what is wrong with the text. */
export type JobRef = { kind: 'full'; id: string } | { kind: 'short'; suffix: string } | { kind: 'invalid'; message: string };

const FULL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHORT = /^[0-9a-f]{8}$/;

export function parseJobRef(text: string): JobRef {
  const s = text.trim().toLowerCase();
  if (FULL.test(s)) return { kind: 'full', id: s };
  if (SHORT.test(s)) return { kind: 'short', suffix: s };
  if (s === '') return { kind: 'invalid', message: 'Type a job id, or the 8 characters the Queues view shows (Copy Job Id copies the whole id).' };
  return { kind: 'invalid', message: `"${text.trim()}" is not a job id: type the whole id (0193b6f0-…) or the 8 characters the views show, e.g. 4f5a6b7c.` };
}
