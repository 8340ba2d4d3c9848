/**
 * What Go to Job takes: a whole job id, or its end — the 8 characters the views show (its last
 * 8) or more of it, read as `spool` reads them (shared/domain/present's readJobId). Pure of
 * `vscode`, so it is unit-tested.
 */
import { readJobId } from '../../../shared/domain/present';

/** A whole id, the end of one to look up in the daemon, or what is wrong with the text. */
export type JobRef = { kind: 'full'; id: string } | { kind: 'short'; suffix: string } | { kind: 'invalid'; message: string };

export function parseJobRef(text: string): JobRef {
  const read = readJobId(text);
  if (read.kind === 'whole') return { kind: 'full', id: read.id };
  if (read.kind === 'end') return { kind: 'short', suffix: read.suffix };
  if (read.kind === 'empty') return { kind: 'invalid', message: 'Type a job id, or the 8 characters the Queues view shows (Copy Job Id copies the whole id).' };
  return { kind: 'invalid', message: `"${text.trim()}" is not a job id: type the whole id (0193b6f0-…) or the 8 characters the views show, e.g. 4f5a6b7c.` };
}

/**
 * What Go to Job says when the end of an id names no job, or several (`found` is what
 * `jobs.list { idSuffix, limit: 2 }` returned: 2 means two or more).
 */
export function shortRefProblem(suffix: string, found: number): string | null {
  if (found === 0) return `No job id ends in ${suffix}. Paste the whole id (Copy Job Id copies it), or find the job in the Queues view.`;
  if (found > 1) return `2 or more jobs end in ${suffix}: paste more of the id (Copy Job Id copies it whole).`;
  return null;
}
