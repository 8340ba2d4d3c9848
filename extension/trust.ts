/**
 * Workspace trust: in an untrusted workspace Spool shows everything but starts no shell
 * command — no shell job is enqueued, retried or scheduled from this window.
 */
import * as vscode from 'vscode';

export function mayEnqueue(kind: string): boolean {
  return kind !== 'shell' || vscode.workspace.isTrusted;
}

export const UNTRUSTED_SHELL =
  'This workspace is not trusted, so Spool does not run shell commands from it. Trust the workspace (Manage Workspace Trust) to enqueue shell jobs.';

/** Throws the explanation when a shell job may not be started from this window. */
export function assertMayEnqueue(kind: string): void {
  if (!mayEnqueue(kind)) throw new Error(UNTRUSTED_SHELL);
}
