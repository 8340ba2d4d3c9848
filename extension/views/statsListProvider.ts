/**
 * What the Schedules and Workers views share: a flat list fetched from the daemon, refreshed on
 * `stats.changed` (workers come and go without an event of their own) and on the view's own
 * events, narrowed by a text filter, and disposed with its listeners.
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from '../daemon/connection';
import { Refresher } from './refresher';

export abstract class StatsListProvider<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly refresher = new Refresher(() => this.changeEmitter.fire(undefined));
  /** Text the listed items must contain; empty shows all. */
  filterText = '';
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.refresher];

  /** `changes`: the daemon events, besides new counts, that change what the view lists. */
  constructor(
    protected readonly connection: DaemonConnection,
    changes: readonly vscode.Event<unknown>[] = [],
  ) {
    this.disposables.push(...this.refresher.follow(connection, [connection.onStats, ...changes]));
  }

  /** Draw again so relative times move on (the list is read again: it is small). */
  redraw(): void {
    this.changeEmitter.fire(undefined);
  }

  abstract getTreeItem(node: T): vscode.TreeItem;
  abstract getChildren(node?: T): Promise<T[]>;

  /** Sets the filter (trimmed), shows it as the view's description, and refreshes at once. */
  setFilter(text: string, view: { description?: string | boolean }): string {
    this.filterText = text.trim();
    view.description = this.filterText === '' ? undefined : `filter: "${this.filterText}"`;
    this.refresher.now();
    return this.filterText;
  }

  /** Whether `text` (any of an item's searchable fields) matches the filter. */
  protected matches(text: string): boolean {
    return this.filterText === '' || text.toLowerCase().includes(this.filterText.toLowerCase());
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
