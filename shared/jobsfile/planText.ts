/**
 * A plan as a person reads it, the same in `spool plan`, `spool apply` and the editor's Show Plan:
 * one line per object with its action, the fields an update changes (from → to, written as in
 * the file), notes (renames, adoption, --force), then the drift found, the unmanaged objects left
 * alone (counted by type unless asked to list them), the conflicts, and a count. Colours are the caller's (the CLI's, or none).
 */
import { countChanges, formatFieldValue, type Change, type Plan } from './plan';

/** The colours a plan is painted with; PLAIN paints nothing. */
export interface PlanPaint {
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  dim(s: string): string;
}

const same = (s: string): string => s;

/** No colours: for the editor, a pipe, a test. */
export const PLAIN: PlanPaint = { green: same, yellow: same, red: same, dim: same };

const SIGNS: Readonly<Record<Change['action'], string>> = { create: '+', update: '~', delete: '-', unchanged: '=' };

/** How the plan is written: its colours, whether unchanged objects are listed (plan does, apply's summary does not), and how unmanaged ones are. */
export interface PlanTextOptions {
  paint?: PlanPaint;
  showUnchanged?: boolean;
  /** List the unmanaged objects one per line; by default they are counted by type. */
  listUnmanaged?: boolean;
  /** How to list them, said after the counts (the CLI's "spool plan --verbose lists them"). */
  listHint?: string;
}

/** The plan, ready to print or show. */
export function planText(plan: Plan, options: PlanTextOptions = {}): string {
  const paint = options.paint ?? PLAIN;
  const showUnchanged = options.showUnchanged ?? true;
  const colour: Record<Change['action'], (s: string) => string> = { create: paint.green, update: paint.yellow, delete: paint.red, unchanged: paint.dim };
  const lines: string[] = [`Plan for project "${plan.project}":`];
  for (const change of plan.changes) {
    if (change.action === 'unchanged' && !showUnchanged) continue;
    lines.push(colour[change.action](`  ${SIGNS[change.action]} ${change.action.padEnd(9)} ${change.type.padEnd(8)} ${change.name}`));
    for (const f of change.fields ?? []) {
      lines.push(`        ${f.field}: ${formatFieldValue(f.field, f.from)} → ${formatFieldValue(f.field, f.to)}`);
    }
    if (change.note !== undefined) lines.push(paint.dim(`        note: ${change.note}`));
  }
  if (plan.drift.length > 0) {
    lines.push('', paint.yellow("Drift (changed by hand since the last apply; apply puts the file's values back):"));
    for (const d of plan.drift) {
      lines.push(`  ${d.type} ${d.name}: ${d.fields.map((f) => `${f.field} ${formatFieldValue(f.field, f.from)} → ${formatFieldValue(f.field, f.to)}`).join(', ')}`);
    }
  }
  if (plan.unmanaged.length > 0) {
    if (options.listUnmanaged === true) {
      lines.push('', paint.dim('Unmanaged (no project owns them; never touched):'));
      for (const u of plan.unmanaged) lines.push(paint.dim(`  ${u.type} ${u.name}`));
    } else {
      // A daemon used by hand has many: one line per type, so that the changes stay in sight.
      const counts = new Map<string, number>();
      for (const u of plan.unmanaged) counts.set(u.type, (counts.get(u.type) ?? 0) + 1);
      const listed = [...counts].map(([type, n]) => `${n} ${type}${n === 1 ? '' : 's'}`).join(', ');
      lines.push('', paint.dim(`Unmanaged (no project owns them; never touched): ${listed}${options.listHint ? ` (${options.listHint})` : ''}.`));
    }
  }
  if (plan.conflicts.length > 0) {
    lines.push('', paint.red('Conflicts (apply refuses until they are resolved):'));
    for (const c of plan.conflicts) lines.push(paint.red(`  ${c.message}`));
  }
  const n = countChanges(plan);
  lines.push('', `${n.create} to create, ${n.update} to update, ${n.delete} to delete, ${n.unchanged} unchanged.`);
  return lines.join('\n');
}
