/**
 * Evaluates the `when` clauses of the manifest's tree-item menus for one view and contextValue,
 * as far as Spool's menus use them (`view == x`, `viewItem == y`, `viewItem =~ /re/`,
 * `!spool.key`, `&&`).
 * It lets a test say which commands a user sees on a job in a given state.
 */
import * as vscode from 'vscode';

interface MenuEntry {
  command: string;
  when?: string;
  group?: string;
}

function isMenuEntry(value: unknown): value is MenuEntry {
  return typeof value === 'object' && value !== null && 'command' in value && typeof value.command === 'string';
}

function clauseHolds(clause: string, view: string, viewItem: string, keys: Readonly<Record<string, boolean>>): boolean {
  const c = clause.trim();
  let m = /^!(spool\.\w+)$/.exec(c);
  if (m && m[1] !== undefined) return keys[m[1]] !== true;
  m = /^view == (\S+)$/.exec(c);
  if (m) return m[1] === view;
  m = /^viewItem == (\S+)$/.exec(c);
  if (m) return m[1] === viewItem;
  m = /^viewItem =~ \/(.+)\/$/.exec(c);
  if (m && m[1] !== undefined) return new RegExp(m[1]).test(viewItem);
  throw new Error(`menus.ts cannot evaluate the clause "${c}"`);
}

/**
 * The commands of view/item/context shown for an item, split into inline and context menu;
 * `keys`: the context keys set (`spool.cannotManage` for a read-only token), the others unset.
 */
export function menuFor(view: string, viewItem: string, keys: Readonly<Record<string, boolean>> = {}): { inline: string[]; context: string[] } {
  const ext = vscode.extensions.getExtension('spool.spool');
  const manifest: unknown = ext?.packageJSON;
  const menus: unknown = typeof manifest === 'object' && manifest !== null ? Reflect.get(Reflect.get(Reflect.get(manifest, 'contributes') ?? {}, 'menus') ?? {}, 'view/item/context') : undefined;
  const entries = Array.isArray(menus) ? menus.filter(isMenuEntry) : [];
  const shown = entries.filter((e) => (e.when ?? '').split('&&').every((clause) => clauseHolds(clause, view, viewItem, keys)));
  return {
    inline: shown.filter((e) => e.group === 'inline').map((e) => e.command),
    context: shown.filter((e) => e.group !== 'inline').map((e) => e.command),
  };
}
