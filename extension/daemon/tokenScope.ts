/**
 * What the token of a remote daemon lets this window do, in the editor's words. A `read` token
 * sees everything and changes nothing; a `worker` token may also enqueue; an `admin` token (and
 * the Unix socket, which is the local user's) may do everything. Actions the token cannot do are
 * hidden from the menus (context keys `spool.cannotEnqueue`, `spool.cannotManage`) and from the
 * job page, and a refusal says what the token can do instead of the protocol's "may not call".
 * No `vscode` import: unit-tested.
 */
import type { TokenScope } from '../../shared/protocol';

/** Null: the Unix socket, no limit. */
export type WindowScope = TokenScope | null;

/** May enqueue (Enqueue Job, Run Now's enqueue, Edit & Re-enqueue, Enqueue Current File). */
export function mayEnqueue(scope: WindowScope): boolean {
  return scope !== 'read';
}

/** May change jobs, queues and schedules (retry, cancel, delete, pause, configure, schedules…). */
export function mayManage(scope: WindowScope): boolean {
  return scope === null || scope === 'admin';
}

/** "This token can only read", "This token can only read and enqueue jobs"; null when it can do everything. */
export function scopeLimit(scope: WindowScope): string | null {
  if (scope === 'read') return 'This token can only read';
  if (scope === 'worker') return 'This token can only read and enqueue jobs';
  return null;
}

/**
 * The refusal of an action the token's scope does not allow, with what would allow it: `allowed`
 * are the scopes the daemon named (from the Forbidden error's data).
 */
export function refusedByScope(scope: WindowScope, allowed: readonly string[]): string {
  const limit = scopeLimit(scope) ?? 'This token cannot do this';
  const needed = allowed.includes('worker') ? 'a worker or admin token' : 'an admin token';
  return `${limit}: this needs ${needed}. Make one on the daemon's machine and set it with "Spool: Set Access Token for Remote Daemon".`;
}
