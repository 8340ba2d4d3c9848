/**
 * Navigation between the file's objects: go to definition (a schedule's template, a template's
 * queue, the step a workflow's need names), find references (who names an object), and the
 * outline (document symbols: the sections and their objects, a workflow's steps under it).
 */
import { DocumentSymbol, SymbolKind, type Position, type Range } from 'vscode-languageserver-types';
import type { ObjectLocation, ObjectType } from '../../shared/jobsfile';
import { getLocation } from 'jsonc-parser';
import { nodeAt, nodeAtPath, offsetAt, rangeAt, rangeOf, stringValue, within, type JobsDocument } from './document';
import { hoveredStep, stepKeyRange, workflowKeys, workflowSymbols } from './workflows';

/** The object at `offset`: a reference's target, or the object whose key it is on. */
function targetAt(doc: JobsDocument, offset: number): { type: ObjectType; name: string } | undefined {
  const ref = doc.parse.references.find((r) => within(r.range, offset));
  if (ref !== undefined) return ref.to;
  const location = doc.parse.locations.find((l) => within(l.key, offset));
  if (location !== undefined) return { type: location.type, name: location.name };
  const workflow = workflowKeys(doc).find((w) => offset >= offsetAt(doc, w.range.start) && offset <= offsetAt(doc, w.range.end));
  return workflow === undefined ? undefined : { type: 'workflow', name: workflow.name };
}

/** Where the object is declared: its key, and for queues, templates and schedules its body. */
function keyOf(doc: JobsDocument, target: { type: ObjectType; name: string }): Range | undefined {
  // Workflows are read apart from the other objects (../../shared/jobsfile/workflows.ts): their keys are found in the tree.
  if (target.type === 'workflow') return workflowKeys(doc).find((w) => w.name === target.name)?.range;
  const location = doc.parse.locations.find((l) => l.type === target.type && l.name === target.name);
  return location === undefined ? undefined : rangeOf(location.key);
}

/** The range of the key that declares what is under the cursor, or null (not declared in the file). */
export function definition(doc: JobsDocument, position: Position): Range | null {
  const offset = offsetAt(doc, position);
  const at = getLocation(doc.text, offset);
  const node = nodeAt(doc, offset);
  const step = hoveredStep(at.path, at.isAtPropertyKey, node?.type === 'string' ? stringValue(node) : undefined);
  if (step !== undefined) return stepKeyRange(doc, step.workflow, step.step);
  const target = targetAt(doc, offset);
  return (target === undefined ? undefined : keyOf(doc, target)) ?? null;
}

/** Every use of the object under the cursor (and its declaration when asked). */
export function references(doc: JobsDocument, position: Position, includeDeclaration: boolean): Range[] {
  const target = targetAt(doc, offsetAt(doc, position));
  if (target === undefined) return [];
  const out: Range[] = [];
  const key = keyOf(doc, target);
  if (includeDeclaration && key !== undefined) out.push(key);
  for (const r of doc.parse.references) if (r.to.type === target.type && r.to.name === target.name) out.push(rangeOf(r.range));
  return out;
}

const SECTIONS: readonly { key: string; type: ObjectType; kind: SymbolKind }[] = [
  { key: 'queues', type: 'queue', kind: SymbolKind.Struct },
  { key: 'templates', type: 'template', kind: SymbolKind.Class },
  { key: 'schedules', type: 'schedule', kind: SymbolKind.Event },
];

/** The outline: each section with its objects, in the order of the text. */
export function documentSymbols(doc: JobsDocument): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  const root = doc.parse.tree;
  for (const section of SECTIONS) {
    const value = nodeAtPath(doc, [section.key]);
    const property = value?.parent;
    const keyNode = property?.children?.[0];
    if (value === undefined || property === undefined || keyNode === undefined || property.parent !== root) continue;
    const children = doc.parse.locations
      .filter((l) => l.type === section.type)
      .map((l) => DocumentSymbol.create(l.name, detailOf(doc, l), section.kind, spanRange(doc, l), rangeOf(l.key)));
    out.push(DocumentSymbol.create(section.key, `${children.length}`, SymbolKind.Namespace, rangeAt(doc, property.offset, property.length), rangeAt(doc, keyNode.offset, keyNode.length), children));
  }
  const workflows = workflowSymbols(doc);
  if (workflows !== undefined) out.push(workflows);
  return out;
}

/** From an object's key to the end of its body. */
function spanRange(doc: JobsDocument, l: ObjectLocation): Range {
  return rangeAt(doc, l.key.offset, l.value.offset + l.value.length - l.key.offset);
}

/** A word or two beside an object in the outline. */
function detailOf(doc: JobsDocument, l: ObjectLocation): string {
  if (l.type === 'schedule') {
    const s = doc.parse.partial.schedules.find((x) => x.name === l.name);
    return s === undefined ? '' : `${s.cron} → ${s.template}`;
  }
  if (l.type === 'template') {
    const t = doc.parse.partial.templates.find((x) => x.name === l.name);
    return t === undefined ? '' : `${t.kind} on ${t.queue}`;
  }
  return '';
}
