/**
 * A warning for a change made by hand to a queue or schedule that a jobs file owns: the next
 * `spool apply` of that file puts its declared values back (or makes a deleted schedule again),
 * so the change does not last. The file is named when the one in the current folder is that
 * project's; otherwise the project is.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownedChangeNote as noteText, parseJobsFile, type OwnedObject } from '../shared/jobsfile';
import { DEFAULT_FILES } from './jobsfile/read';

export type { OwnedObject } from '../shared/jobsfile';

/** The note to print after a change to `name`, or null when no project owns it (the words are shared/jobsfile/owned.ts's). */
export function ownedChangeNote(type: OwnedObject, name: string, owner: string | undefined, change: 'changed' | 'deleted', cwd = process.cwd()): string | null {
  if (owner === undefined) return null;
  return noteText(type, name, owner, change, projectFile(owner, cwd));
}

/** The jobs file in `cwd` if it declares `project`, as a path relative to `cwd`; null otherwise. */
function projectFile(project: string, cwd: string): string | null {
  for (const name of DEFAULT_FILES) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(cwd, name), 'utf8');
    } catch {
      continue;
    }
    return parseJobsFile(text).partial.project === project ? name : null;
  }
  return null;
}
