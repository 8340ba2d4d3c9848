/** The plan of the file against the daemon, as text people read (the editor's "Show Plan"). */
import { formatFieldValue, planChanges, type LiveObject, type Plan } from '../../shared/jobsfile';
import type { JobsDocument } from './document';

/** The plan, or null when the file has errors (apply would refuse it). */
export function planOf(doc: JobsDocument, objects: readonly LiveObject[]): Plan | null {
  return doc.parse.declaration === null ? null : planChanges(doc.parse.declaration, { objects: [...objects] });
}

/** A plan in lines of text: one per change, fields that differ indented under it. */
export function planText(plan: Plan): string {
  const sign = { create: '+', update: '~', delete: '-', unchanged: '=' } as const;
  const lines = [`Plan for project "${plan.project}"`, ''];
  for (const c of plan.changes) {
    if (c.action === 'unchanged') continue;
    lines.push(`${sign[c.action]} ${c.action} ${c.type} ${c.name}${c.note !== undefined ? `  (${c.note})` : ''}`);
    for (const f of c.fields ?? []) lines.push(`    ${f.field}: ${formatFieldValue(f.field, f.from)} → ${formatFieldValue(f.field, f.to)}`);
  }
  const unchanged = plan.changes.filter((c) => c.action === 'unchanged').length;
  if (lines.length === 2) lines.push('No changes.');
  lines.push('', `${unchanged} unchanged.`);
  for (const c of plan.conflicts) lines.push(`! conflict: ${c.message}`);
  for (const u of plan.unmanaged) lines.push(`  unmanaged ${u.type} ${u.name} (no project owns it; left alone)`);
  return lines.join('\n');
}
