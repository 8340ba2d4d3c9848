/**
 * The plan of the file against the daemon, as text people read (the editor's "Show Plan"): the
 * text `spool plan` prints, drift included (shared/domain/present), without the unchanged
 * objects, which it counts.
 */
import { planText as present } from '../../shared/jobsfile';
import { planChanges, type LiveObject, type Plan } from '../../shared/jobsfile';
import type { JobsDocument } from './document';

/** The plan, or null when the file has errors (apply would refuse it). */
export function planOf(doc: JobsDocument, objects: readonly LiveObject[]): Plan | null {
  return doc.parse.declaration === null ? null : planChanges(doc.parse.declaration, { objects: [...objects] });
}

/** A plan in lines of text: one per change, fields that differ indented under it, then drift, unmanaged objects and conflicts. */
export function planText(plan: Plan): string {
  return present(plan, { showUnchanged: false });
}
