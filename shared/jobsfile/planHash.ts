/**
 * The fingerprint of a plan: what `project.apply`'s `expected` carries. A client shows a plan,
 * the person says yes, and the daemon plans again inside its transaction; if that plan's
 * fingerprint is not the one the person saw (someone applied, or changed an object, in between),
 * the daemon refuses rather than apply what nobody reviewed. Declared here, once, so the CLI, the
 * language server and the daemon compute the same value.
 */
import { canonicalJson, type Plan } from './plan';

/**
 * A hex fingerprint of the plan's changes (action, type, name, the fields with their values) and
 * conflicts. Unchanged objects count too: a plan is what the person read. Two 32-bit FNV-1a
 * hashes with different seeds: not cryptographic, only to tell two plans apart.
 */
export function planHash(plan: Pick<Plan, 'changes' | 'conflicts'>): string {
  const text = canonicalJson({
    changes: plan.changes.map((c) => ({ action: c.action, type: c.type, name: c.name, fields: c.fields ?? [] })),
    conflicts: plan.conflicts.map((c) => ({ type: c.type, name: c.name, owner: c.owner })),
  });
  return fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x01000193);
}

function fnv1a(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
