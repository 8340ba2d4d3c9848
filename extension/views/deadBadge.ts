/**
 * The count of dead jobs as a badge on the Queues view, which VS Code also shows on the Spool
 * icon of the activity bar; and `spool.hasDeadJobs`, which shows Retry All Dead only when there
 * is something to retry. Follows the counts the daemon pushes; cleared while disconnected.
 */
import * as vscode from 'vscode';
import type { Stats } from '../../shared/protocol';
import type { DaemonConnection } from '../daemon/connection';
import { deadBadgeText } from './format';

export function showDeadBadge(view: vscode.TreeView<unknown>, connection: DaemonConnection): vscode.Disposable {
  let shown = -1;
  const show = (stats: Stats | null): void => {
    const dead = connection.state === 'connected' && stats ? stats.totals.dead : 0;
    if (dead === shown) return;
    shown = dead;
    view.badge = deadBadgeText(dead);
    void vscode.commands.executeCommand('setContext', 'spool.hasDeadJobs', dead > 0);
  };
  show(connection.stats);
  return vscode.Disposable.from(
    connection.onStats((stats) => show(stats)),
    connection.onDidChangeState(() => show(connection.stats)),
  );
}
