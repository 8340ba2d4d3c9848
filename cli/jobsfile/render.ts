/**
 * A plan as a person reads it in a terminal: one line per object with its action, the fields an
 * update changes (from → to, written as in the file), notes (renames, adoption, --force), then
 * the drift found, the unmanaged objects left alone, the conflicts, and a count.
 */
import { countChanges, formatFieldValue, type Change, type Plan } from '../../shared/jobsfile';
import type { Colors } from '../format/color';

const SIGNS: Record<Change['action'], string> = { create: '+', update: '~', delete: '-', unchanged: '=' };

/** The plan, ready to print; `showUnchanged` lists unchanged objects too (plan does, apply's summary does not). */
export function renderPlan(plan: Plan, colors: Colors, showUnchanged = true): string {
  const paint: Record<Change['action'], (s: string) => string> = { create: colors.green, update: colors.yellow, delete: colors.red, unchanged: colors.dim };
  const lines: string[] = [`Plan for project "${plan.project}":`];
  for (const change of plan.changes) {
    if (change.action === 'unchanged' && !showUnchanged) continue;
    lines.push(paint[change.action](`  ${SIGNS[change.action]} ${change.action.padEnd(9)} ${change.type.padEnd(8)} ${change.name}`));
    for (const f of change.fields ?? []) {
      lines.push(`        ${f.field}: ${formatFieldValue(f.field, f.from)} → ${formatFieldValue(f.field, f.to)}`);
    }
    if (change.note !== undefined) lines.push(colors.dim(`        note: ${change.note}`));
  }
  if (plan.drift.length > 0) {
    lines.push('', colors.yellow('Drift (changed by hand since the last apply; apply puts the file\'s values back):'));
    for (const d of plan.drift) {
      lines.push(`  ${d.type} ${d.name}: ${d.fields.map((f) => `${f.field} ${formatFieldValue(f.field, f.from)} → ${formatFieldValue(f.field, f.to)}`).join(', ')}`);
    }
  }
  if (plan.unmanaged.length > 0) {
    lines.push('', colors.dim('Unmanaged (no project owns them; never touched):'));
    for (const u of plan.unmanaged) lines.push(colors.dim(`  ${u.type} ${u.name}`));
  }
  if (plan.conflicts.length > 0) {
    lines.push('', colors.red('Conflicts (apply refuses until they are resolved):'));
    for (const c of plan.conflicts) lines.push(colors.red(`  ${c.message}`));
  }
  const n = countChanges(plan);
  lines.push('', `${n.create} to create, ${n.update} to update, ${n.delete} to delete, ${n.unchanged} unchanged.`);
  return lines.join('\n');
}

/** `--json`: the changes as the protocol names them, plus what a script needs to decide. */
export function planJson(plan: Plan): { changes: { action: Change['action']; type: Change['type']; name: string; fields?: Change['fields']; note?: string }[]; unmanaged: Plan['unmanaged']; drift: Plan['drift']; conflicts: Plan['conflicts'] } {
  return {
    changes: plan.changes.map((c) => ({ action: c.action, type: c.type, name: c.name, ...(c.fields ? { fields: c.fields } : {}), ...(c.note !== undefined ? { note: c.note } : {}) })),
    unmanaged: plan.unmanaged,
    drift: plan.drift,
    conflicts: plan.conflicts,
  };
}
