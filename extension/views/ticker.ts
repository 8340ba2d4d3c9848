/**
 * Keeps relative times moving ("3s ago", "in 4m"): while a view is visible, it is redrawn on a
 * slow timer from what it has already loaded; while hidden, nothing runs.
 */
import type * as vscode from 'vscode';

/** How often a visible view's times are redrawn: slow enough to cost nothing, quick enough for minutes to move. */
export const TICK_MS = 10_000;

export function tickWhileVisible(view: vscode.TreeView<unknown>, redraw: () => void, intervalMs = TICK_MS): vscode.Disposable {
  let timer: NodeJS.Timeout | null = null;
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const follow = (visible: boolean): void => {
    if (visible && !timer) timer = setInterval(redraw, intervalMs);
    else if (!visible) stop();
  };
  follow(view.visible);
  const listener = view.onDidChangeVisibility((e) => follow(e.visible));
  return { dispose: () => (stop(), listener.dispose()) };
}
