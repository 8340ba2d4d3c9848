/**
 * One analysed version of a jobs file: its text, `parseJobsFile`'s result and a line index, so
 * every request on the same version (diagnostics, hover, completion, lenses) shares one parse.
 * Positions are LSP positions (0-based, UTF-16); offsets are JavaScript string offsets.
 */
import { findNodeAtOffset, type Node } from 'jsonc-parser';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position, Range } from 'vscode-languageserver-types';
import { LineIndex, parseJobsFile, type ParseResult, type Span } from '../../shared/jobsfile';

/** A jobs file's text, read once. */
export interface JobsDocument {
  readonly text: string;
  readonly parse: ParseResult;
  readonly lines: LineIndex;
  /** For positions → offsets (the line index goes the other way). */
  readonly textDocument: TextDocument;
}

/** Reads `text` as a jobs file. Never throws: whatever the text, there is a document. */
export function analyze(text: string): JobsDocument {
  return { text, parse: parseJobsFile(text), lines: new LineIndex(text), textDocument: TextDocument.create('spool:jobs-file', 'jsonc', 0, text) };
}

/** The offset of an LSP position (clamped to the text, and to the end of its line). */
export function offsetAt(doc: JobsDocument, position: Position): number {
  return doc.textDocument.offsetAt(position);
}

/** The LSP range of a span. */
export function rangeOf(span: Span): Range {
  return { start: span.start, end: span.end };
}

/** The LSP range of `length` code units from `offset`. */
export function rangeAt(doc: JobsDocument, offset: number, length: number): Range {
  return rangeOf(doc.lines.span(offset, length));
}

/** Whether `offset` falls in a span (its end included: a cursor right after a word is on it). */
export function within(span: { offset: number; length: number }, offset: number): boolean {
  return offset >= span.offset && offset <= span.offset + span.length;
}

/** The innermost node of the tree at `offset`, or undefined (no tree, or outside it). */
export function nodeAt(doc: JobsDocument, offset: number): Node | undefined {
  return doc.parse.tree === undefined ? undefined : findNodeAtOffset(doc.parse.tree, offset, true);
}

/** The value node of `key` in an object node, if there is one. */
export function memberValue(node: Node | undefined, key: string): Node | undefined {
  if (node?.type !== 'object') return undefined;
  for (const property of node.children ?? []) {
    if (property.children?.[0]?.value === key) return property.children[1];
  }
  return undefined;
}

/** The string a node holds, if it is a string node. */
export function stringValue(node: Node | undefined): string | undefined {
  const v: unknown = node?.value;
  return node?.type === 'string' && typeof v === 'string' ? v : undefined;
}

/** The node at a path of the file's object (strings only: names of sections and objects). */
export function nodeAtPath(doc: JobsDocument, path: readonly string[]): Node | undefined {
  let node = doc.parse.tree;
  for (const key of path) node = memberValue(node, key);
  return node;
}
