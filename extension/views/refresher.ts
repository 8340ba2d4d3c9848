/**
 * Refresh a view from daemon notifications without flooding it: changes are coalesced into one
 * refresh per `delayMs` (250 ms), and while the view is hidden nothing is fetched — the view is
 * only marked stale and refreshed when it becomes visible again.
 */
import type * as vscode from 'vscode';
import type { DaemonConnection } from '../daemon/connection';

export class Refresher implements vscode.Disposable {
  private timer: NodeJS.Timeout | null = null;
  private stale = false;
  private visible = false;

  constructor(
    private readonly refresh: () => void,
    private readonly delayMs = 250,
  ) {}

  /** A change has not been shown yet: a refresh is scheduled, or waits for the view to be shown. */
  get pending(): boolean {
    return this.stale;
  }

  /** A refresh will run when its debounce timer fires. */
  get scheduled(): boolean {
    return this.timer !== null;
  }

  /** Attach to the tree view whose visibility decides whether refreshes run. */
  watch(view: vscode.TreeView<unknown>): vscode.Disposable {
    this.visible = view.visible;
    return view.onDidChangeVisibility((e) => {
      this.visible = e.visible;
      if (e.visible && this.stale) this.schedule();
    });
  }

  /**
   * Refreshes soon on each of `changes` (daemon notifications), and at once when the connection
   * connects or changes state. Returns the listeners, for the view to dispose.
   */
  follow(connection: DaemonConnection, changes: readonly vscode.Event<unknown>[]): vscode.Disposable[] {
    return [...changes.map((event) => event(() => this.changed())), connection.onDidConnect(() => this.now()), connection.onDidChangeState(() => this.now())];
  }

  /** Something changed: refresh soon if visible, else when next shown. */
  changed(): void {
    this.stale = true;
    if (this.visible) this.schedule();
  }

  /** Refresh now (the Refresh button, a command that changed something). */
  now(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stale = false;
    this.refresh();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stale) return;
      this.stale = false;
      this.refresh();
    }, this.delayMs);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
