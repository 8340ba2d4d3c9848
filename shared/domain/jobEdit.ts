/**
 * A job's editable fields as one JSON document, the form `spool job edit --editor` and the
 * extension's Edit Job open: what is written out, and what the edited text asks to change (as
 * `jobs.update` params, only the fields that differ). The run time reads as an ISO time in UTC;
 * a shell job's command or an HTTP job's request is edited inside `payload`. Pure: no I/O.
 */
import type { UpdateJobParams } from '../protocol';
import type { Job } from '../protocol/types';
import { errorMessage } from '../protocol/errors';

/** The fields of the document, in the order it shows them. */
export interface EditableJob {
  priority: number;
  runAt: string;
  maxAttempts: number;
  timeoutMs: number;
  tags: string[];
  weight: number;
  /** Its group key (Job.group), or null for none. */
  group: string | null;
  payload: unknown;
}

export const EDITABLE_FIELDS: readonly (keyof EditableJob)[] = ['priority', 'runAt', 'maxAttempts', 'timeoutMs', 'tags', 'weight', 'group', 'payload'];

/** The job's editable fields. */
export function editableJob(job: Job): EditableJob {
  return { priority: job.priority, runAt: new Date(job.runAt).toISOString(), maxAttempts: job.maxAttempts, timeoutMs: job.timeoutMs, tags: job.tags, weight: job.weight, group: job.group ?? null, payload: job.payload };
}

/** The document's text for `job`, as written out for editing. */
export function editableText(job: Job): string {
  return `${JSON.stringify(editableJob(job), null, 2)}\n`;
}

/**
 * The fields of the edited `text` that differ from `job`, as jobs.update params (empty when none
 * does). Throws an Error saying what is wrong with the text: not JSON, an unknown field, a value
 * of the wrong type. The daemon checks the values themselves, naming the field.
 */
export function editedChanges(job: Job, text: string): Omit<UpdateJobParams, 'id'> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`it is not JSON (${errorMessage(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`it must be a JSON object with the fields ${EDITABLE_FIELDS.join(', ')}`);
  const edited = new Map(Object.entries(parsed));
  for (const key of edited.keys()) if (!EDITABLE_FIELDS.some((k) => k === key)) throw new Error(`"${key}" is not a field that can change (the fields are ${EDITABLE_FIELDS.join(', ')})`);
  const was = editableJob(job);
  const out: Omit<UpdateJobParams, 'id'> = {};
  for (const key of EDITABLE_FIELDS) {
    if (!edited.has(key)) continue;
    const value = edited.get(key);
    if (JSON.stringify(value) === JSON.stringify(was[key])) continue;
    if (key === 'runAt') {
      const at = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : NaN;
      if (!Number.isFinite(at)) throw new Error(`runAt must be a time such as ${was.runAt} (got ${JSON.stringify(value)})`);
      out.runAt = at;
    } else if (key === 'tags') {
      if (!Array.isArray(value) || !value.every((t): t is string => typeof t === 'string')) throw new Error('tags must be a list of strings');
      out.tags = value;
    } else if (key === 'group') {
      if (value !== null && typeof value !== 'string') throw new Error(`group must be a group key such as "customer:42", or null for none (got ${JSON.stringify(value)})`);
      out.group = value;
    } else if (key === 'payload') {
      out.payload = value;
    } else {
      if (typeof value !== 'number') throw new Error(`${key} must be a number (got ${JSON.stringify(value)})`);
      out[key] = value;
    }
  }
  return out;
}
