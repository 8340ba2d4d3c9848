/**
 * The warning after a change made by hand to a queue or schedule that a jobs file owns: the
 * next `spool apply` of that file puts its declared values back (or makes a deleted schedule
 * again), so the change does not last. The CLI and the extension say it in these words; each
 * finds the file its own way (the current folder; the workspace) and passes it, or null to name
 * the project only.
 */
import type { ObjectType } from './model';

export type OwnedObject = Extract<ObjectType, 'queue' | 'schedule'>;

/** The warning after a change to `name`, or null when no project owns it. */
export function ownedChangeNote(type: OwnedObject, name: string, owner: string | undefined, change: 'changed' | 'deleted', file: string | null): string | null {
  if (owner === undefined) return null;
  const where = file !== null ? `${file} (project "${owner}")` : `the spool.jsonc of project "${owner}"`;
  const undone = change === 'deleted' ? `makes it again` : `puts the file's values back`;
  return `${type === 'queue' ? 'Queue' : 'Schedule'} "${name}" is declared in ${where}: the next \`spool apply\` ${undone}. Change it in the file to keep the change.`;
}
