/**
 * Quick fixes for the diagnostics the service published (their `data` says what they are about):
 * change to the closest valid text (a time zone, a field, a template, queue or parameter name),
 * and create the missing template or queue entry. Edits come from jsonc-parser's `modify`, which
 * keeps the file's formatting and comments.
 */
import { modify, type EditResult, type FormattingOptions } from 'jsonc-parser';
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver-types';
import { offsetAt, rangeAt, type JobsDocument } from './document';
import type { DiagnosticData } from './diagnostics';

/** The fixes for `diagnostics` (those of this document the editor hands back). */
export function codeActions(doc: JobsDocument, uri: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    const data = dataOf(diagnostic);
    if (data === undefined) continue;
    const edit = (edits: TextEdit[]) => ({ changes: { [uri]: edits } });
    if (data.suggestion !== undefined) {
      const start = offsetAt(doc, diagnostic.range.start);
      const end = offsetAt(doc, diagnostic.range.end);
      // Only where the range is a whole string literal (a key or a value): inside one, the
      // suggestion is a part of it and the fix would need more care than a replace.
      if (doc.text[start] === '"' && doc.text[end - 1] === '"' && end - start >= 2) {
        out.push({
          title: `Change to "${data.suggestion}"`,
          kind: CodeActionKind.QuickFix,
          diagnostics: [diagnostic],
          isPreferred: true,
          edit: edit([{ range: diagnostic.range, newText: JSON.stringify(data.suggestion) }]),
        });
      }
    }
    if (data.name !== undefined && (data.code === 'unknown-template' || data.code === 'unknown-queue' || data.code === 'queue-on-daemon-only')) {
      const template = data.code === 'unknown-template';
      const value = template ? newTemplate(doc) : {};
      const path = [template ? 'templates' : 'queues', data.name];
      out.push({
        title: `Create ${template ? 'template' : 'queue'} "${data.name}" in this file`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        edit: edit(toTextEdits(doc, modify(doc.text, path, value, { formattingOptions: formatting(doc) }))),
      });
    }
  }
  return out;
}

function dataOf(diagnostic: Diagnostic): DiagnosticData | undefined {
  const data: unknown = diagnostic.data;
  if (typeof data !== 'object' || data === null || !('code' in data) || typeof data.code !== 'string') return undefined;
  return data as DiagnosticData;
}

/** A template to start from: a shell job on the file's first queue. */
function newTemplate(doc: JobsDocument): Record<string, string> {
  const queue = doc.parse.locations.find((l) => l.type === 'queue')?.name ?? 'default';
  return { queue, kind: 'shell', command: 'echo TODO' };
}

/** The file's indentation, guessed from its first indented line (two spaces when none). */
function formatting(doc: JobsDocument): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(doc.text)?.[1] ?? '  ';
  const eol = doc.text.includes('\r\n') ? '\r\n' : '\n';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 4, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

function toTextEdits(doc: JobsDocument, edits: EditResult): TextEdit[] {
  return edits.map((e) => ({ range: rangeAt(doc, e.offset, e.length), newText: e.content }));
}
