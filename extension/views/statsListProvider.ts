/**
 * What the Schedules and Workers views share: a flat list fetched from the daemon, refreshed on
 * `stats.changed` (workers come and go without an event of their own) and on the view's own
 * events, redrawn from the list last read so relative times move, narrowed by a text filter, and
 * disposed with its listeners.
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from '../daemon/connection';
import { Refresher } from './refresher';

/** `T`: the tree's elements; `L`: the list the daemon returns, from which the top level is drawn. */
export abstract class StatsListProvider<T, L> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly refresher = new Refresher(() => {
    // A change overrides a pending redraw: the list is read again.
    this.redrawing = false;
    this.changeEmitter.fire(undefined);
  });
  /** Text the listed items must contain; empty shows all. */
  filterText = '';
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.refresher];
  /** The list last read, and whether the next draw is a redraw that reuses it. */
  private last: L | null = null;
  private redrawing = false;

  /** `changes`: the daemon events, besides new counts, that change what the view lists. */
  constructor(
    protected readonly connection: DaemonConnection,
    changes: readonly vscode.Event<unknown>[] = [],
  ) {
    this.disposables.push(...this.refresher.follow(connection, [connection.onStats, ...changes]));
  }

  /** Draw again from the list last read, so relative times move on; the daemon is not asked. */
  redraw(): void {
    this.redrawing = true;
    this.changeEmitter.fire(undefined);
  }

  abstract getTreeItem(node: T): vscode.TreeItem;
  /** Reads the list from the daemon. */
  protected abstract fetch(): Promise<L>;
  /** The top-level elements drawn from a list. */
  protected abstract top(list: L): T[];
  /** The children of an element; none by default. */
  protected childrenOf(_node: T): T[] {
    return [];
  }

  async getChildren(node?: T): Promise<T[]> {
    if (this.connection.state !== 'connected') return [];
    if (node) return this.childrenOf(node);
    const reuse = this.redrawing && this.last !== null;
    this.redrawing = false;
    if (!reuse || this.last === null) this.last = await this.fetch();
    return this.top(this.last);
  }

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
