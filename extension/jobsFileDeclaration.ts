/**
 * Where a jobs file declares a queue or schedule the daemon says a project owns: the pure part of
 * "Reveal in spool.jsonc" (text in, range out), apart from the command that finds and opens the
 * files, so it is tested without an editor.
 */
import { parseJobsFile, type ObjectType, type Span } from '../shared/jobsfile';

/**
 * What one file says about an owned object: `declared` with the range of its key (the name in
 * quotes); `project` when the file is the owner's but no longer declares it (removed or renamed
 * since the last apply); `other` when the file is another project's, or not a jobs file at all.
 */
export type DeclarationSite = { found: 'declared'; key: Span } | { found: 'project' } | { found: 'other' };

/**
 * Finds the key of the `type` object `name` in a jobs file's `text`, if the file's `project` is
 * `owner`. A file with errors still answers: the key of an object being edited is still there,
 * and a user revealing it is likely about to fix it.
 */
export function findDeclaration(text: string, owner: string, type: ObjectType, name: string): DeclarationSite {
  const parsed = parseJobsFile(text);
  if (parsed.partial.project !== owner) return { found: 'other' };
  const location = parsed.locations.find((l) => l.type === type && l.name === name);
  return location ? { found: 'declared', key: location.key } : { found: 'project' };
}

/** What a tree item owned by `owner` adds to its description: which file declares it. */
export function ownerDescription(owner: string): string {
  return `spool.jsonc (project ${owner})`;
}

/** The tooltip's line on an owned item: where it is declared, and what a change here becomes. */
export function ownerTooltip(owner: string): string {
  return `Declared in spool.jsonc of project ${owner}; changes made here are reported as drift by spool plan.`;
}
