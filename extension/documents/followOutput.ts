/**
 * Keeps a job's output document at its end: an editor that shows one opens scrolled to the end
 * (the newest lines of a running job), and while its reader is at the end, lines that arrive are
 * scrolled into view. Scrolling up stops that for the editor; scrolling back to the end starts it
 * again (see outputEnd.ts).
 */
import * as vscode from 'vscode';
import { OUTPUT_SCHEME } from './jobOutput';
import { showsEnd } from './outputEnd';

export class OutputFollower implements vscode.Disposable {
  /** By editor (document and column): whether it follows the end. Absent: not seen yet. */
  private readonly following = new Map<string, boolean>();
  /**
   * By document: its line count when its content last changed here. A scroll event that comes
   * before the change event of the lines that moved it is judged against this, not the new count.
   */
  private readonly lineCounts = new Map<string, number>();
  /**
   * Editors asked to show the end whose view has not been seen there yet: a scroll event from
   * before the reveal landed (the editor's first layout) is not the reader scrolling up.
   */
  private readonly revealing = new Set<string>();
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of editors) if (isOutput(editor.document) && this.following.get(key(editor)) !== false) this.toEnd(editor, !this.following.has(key(editor)));
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (!isOutput(e.document) || e.contentChanges.length === 0) return;
        this.lineCounts.set(e.document.uri.toString(), e.document.lineCount);
        for (const editor of vscode.window.visibleTextEditors) {
          if (editor.document === e.document && this.following.get(key(editor)) !== false) this.toEnd(editor, false);
        }
      }),
      vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
        const document = e.textEditor.document;
        if (!isOutput(document)) return;
        const last = e.visibleRanges.at(-1)?.end.line;
        if (last === undefined) return;
        const lineCount = this.lineCounts.get(document.uri.toString()) ?? document.lineCount;
        const k = key(e.textEditor);
        const atEnd = showsEnd(last, lineCount);
        if (atEnd) this.revealing.delete(k);
        else if (this.revealing.has(k)) return;
        this.following.set(k, atEnd);
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (!isOutput(document)) return;
        const uri = document.uri.toString();
        this.lineCounts.delete(uri);
        for (const k of [...this.following.keys()]) if (k.startsWith(`${uri}#`)) this.following.delete(k);
        for (const k of [...this.revealing]) if (k.startsWith(`${uri}#`)) this.revealing.delete(k);
      }),
    ];
    for (const editor of vscode.window.visibleTextEditors) if (isOutput(editor.document)) this.toEnd(editor, true);
  }

  /** Whether the editor of `uri` follows the end (the extension-host tests read it). */
  isFollowing(uri: string): boolean {
    return [...this.following.entries()].some(([k, on]) => on && k.startsWith(`${uri}#`));
  }

  private toEnd(editor: vscode.TextEditor, opening: boolean): void {
    const last = Math.max(0, editor.document.lineCount - 1);
    this.following.set(key(editor), true);
    this.revealing.add(key(editor));
    // On opening, the cursor goes to the end too, so the keys move from where the reader looks.
    if (opening) editor.selection = new vscode.Selection(last, 0, last, 0);
    editor.revealRange(new vscode.Range(last, 0, last, 0), vscode.TextEditorRevealType.Default);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function isOutput(document: vscode.TextDocument): boolean {
  return document.uri.scheme === OUTPUT_SCHEME;
}

function key(editor: vscode.TextEditor): string {
  return `${editor.document.uri.toString()}#${editor.viewColumn ?? 0}`;
}
