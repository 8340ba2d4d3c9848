/**
 * Notifications for jobs enqueued from this window: a warning with Retry / Show Output when one
 * ends dead, and (with `spool.notifications: all`) a note when one completes. Only ids this
 * window enqueued are tracked, so other windows' jobs never pop up here.
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from './daemon/connection';
import { readSettings } from './settings';

/** Forget ids after this many, oldest first, so a long session does not grow without bound. */
const MAX_TRACKED = 10_000;

export class EnqueuedJobs implements vscode.Disposable {
  private readonly ids = new Set<string>();
  private readonly subscription: vscode.Disposable;

  constructor(connection: DaemonConnection) {
    this.subscription = connection.onJobChanged((event) => {
      if (!this.ids.has(event.id)) return;
      const level = readSettings().notifications;
      if (event.state === 'dead') {
        this.ids.delete(event.id);
        if (level === 'none') return;
        void vscode.window
          .showWarningMessage(`Spool: ${event.kind} job ${event.id} in ${event.queue} failed after ${event.attempt} attempt(s) and is dead.`, 'Retry', 'Show Output')
          .then((choice) => {
            if (choice === 'Retry') void vscode.commands.executeCommand('spool.jobs.retry', event.id);
            if (choice === 'Show Output') void vscode.commands.executeCommand('spool.jobs.showOutput', event.id);
          });
      } else if (event.state === 'completed' || event.state === 'cancelled' || event.deleted) {
        this.ids.delete(event.id);
        if (level === 'all' && event.state === 'completed') void vscode.window.showInformationMessage(`Spool: ${event.kind} job ${event.id} in ${event.queue} completed.`);
      }
    });
  }

  track(id: string): void {
    if (this.ids.size >= MAX_TRACKED) {
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
    this.ids.add(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
