/**
 * A plan in the terminal: the text is shared/domain/present's (the editor's Show Plan writes the
 * same), painted in the CLI's colours; `--json` gives the changes as the protocol names them.
 */
import { planText } from '../../shared/jobsfile';
import type { Change, Plan } from '../../shared/jobsfile';
import type { Colors } from '../format/color';

/**
 * The plan, ready to print; `showUnchanged` lists unchanged objects too (plan does, apply's
 * summary does not), `verbose` every unmanaged object rather than their counts.
 */
export function renderPlan(plan: Plan, colors: Colors, showUnchanged = true, verbose = false): string {
  return planText(plan, { paint: colors, showUnchanged, listUnmanaged: verbose, listHint: 'spool plan --verbose lists them' });
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
