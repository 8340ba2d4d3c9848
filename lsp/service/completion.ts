/**
 * Completion by JSON path, as the JSON language service's contributions do: field names with
 * their documentation where a key goes; where a value goes, what the field takes — queue and
 * template names (the file's, and the daemon's when it answered), time zones, kinds, backoff
 * strategies, the values of an enumeration, true or false, the field's examples, a workflow's
 * step names in `needs`. Inside a string
 * the whole string is replaced, quotes included.
 */
import { getLocation } from 'jsonc-parser';
import { CompletionItemKind, InsertTextFormat, type CompletionItem, type Position, type Range } from 'vscode-languageserver-types';
import { BACKOFF_STRATEGIES } from '../../shared/domain/backoff';
import { fieldAt, knownTimezones, type FieldSpec } from '../../shared/jobsfile';
import { memberValue, nodeAt, nodeAtPath, offsetAt, rangeAt, stringValue, type JobsDocument } from './document';
import { liveCountsText, type LiveData } from './live';
import { stepNameItems, workflowKeys } from './workflows';

/** The completion items at `position`. */
export function completion(doc: JobsDocument, position: Position, live: LiveData): CompletionItem[] {
  const offset = offsetAt(doc, position);
  const location = getLocation(doc.text, offset);
  const path = location.path.filter((p): p is string | number => p !== undefined);
  const node = nodeAt(doc, offset);
  // Inside a string (key or value): replace it whole.
  const inString = node !== undefined && node.type === 'string' && offset > node.offset && offset < node.offset + node.length;
  const replace = inString ? rangeAt(doc, node.offset, node.length) : undefined;
  if (location.isAtPropertyKey) return keyItems(doc, path.slice(0, -1), replace, live);
  const steps = stepNameItems(doc, path, (text) => edit(text, replace));
  if (steps !== undefined) return steps;
  const spec = fieldAt(path);
  if (spec === undefined) return [];
  return valueItems(doc, path, spec, replace, live);
}

/** A quoted text inserted at the cursor or over the string under it. */
function edit(text: string, replace: Range | undefined): Pick<CompletionItem, 'textEdit' | 'insertText'> {
  return replace !== undefined ? { textEdit: { range: replace, newText: text } } : { insertText: text };
}

/** Field names of the object at `parent` (those not written yet), or names for a map's keys. */
function keyItems(doc: JobsDocument, parent: (string | number)[], replace: Range | undefined, live: LiveData): CompletionItem[] {
  const spec = fieldAt(parent);
  const objectNode = parent.every((p) => typeof p === 'string') ? nodeAtPath(doc, parent as string[]) : undefined;
  if (spec?.kind === 'map') return mapKeyItems(doc, parent, replace, live);
  if (spec?.kind !== 'object') return [];
  const present = new Set((objectNode?.children ?? []).map((p) => p.children?.[0]?.value).filter((k): k is string => typeof k === 'string'));
  // A template offers the fields of its kind only.
  const kind = parent[0] === 'templates' && parent.length === 2 ? stringValue(memberValue(objectNode, 'kind')) : undefined;
  const group = kind === undefined ? undefined : kind === 'shell' || kind === 'http' ? kind : 'custom';
  const items: CompletionItem[] = [];
  for (const [name, field] of Object.entries(spec.fields)) {
    if (present.has(name)) continue;
    if (group !== undefined && field.kinds !== undefined && !field.kinds.includes(group)) continue;
    const required = spec.required?.includes(name) === true;
    items.push({
      label: name,
      kind: CompletionItemKind.Property,
      detail: `${field.kind}${required ? ', required' : ''}`,
      documentation: { kind: 'markdown', value: field.description },
      // Required fields first, then the table's order.
      sortText: `${required ? '0' : '1'}${String(items.length).padStart(3, '0')}`,
      ...(replace !== undefined ? { textEdit: { range: replace, newText: JSON.stringify(name) } } : { insertText: `${JSON.stringify(name)}: ` }),
    });
  }
  return items;
}

/** Names for a new entry of `queues` or `templates`: those used but not declared. */
function mapKeyItems(doc: JobsDocument, parent: (string | number)[], replace: Range | undefined, live: LiveData): CompletionItem[] {
  if (parent.length !== 1) return [];
  const type = parent[0] === 'queues' ? 'queue' : parent[0] === 'templates' ? 'template' : undefined;
  if (type === undefined) return [];
  const declared = new Set(doc.parse.locations.filter((l) => l.type === type).map((l) => l.name));
  const names = new Set<string>();
  for (const r of doc.parse.references) if (r.to.type === type && !declared.has(r.to.name)) names.add(r.to.name);
  if (type === 'queue') for (const q of live.queues ?? []) if (!declared.has(q.name)) names.add(q.name);
  return [...names].map((name) => ({
    label: name,
    kind: CompletionItemKind.Module,
    detail: `${type} used but not declared`,
    ...(replace !== undefined ? { textEdit: { range: replace, newText: JSON.stringify(name) } } : { insertText: `${JSON.stringify(name)}: {}` }),
  }));
}

/** What a value of `spec` at `path` can be. */
function valueItems(doc: JobsDocument, path: (string | number)[], spec: FieldSpec, replace: Range | undefined, live: LiveData): CompletionItem[] {
  // Inside a string the editor filters on what is typed from the range's start, opening quote
  // included ("Europe/Par): the items are matched as quoted text, or a fuzzy match on the bare
  // label ranks Pacific/Rarotonga before Europe/Paris.
  const value = (label: string, kind: CompletionItemKind, extra: Partial<CompletionItem> = {}): CompletionItem => ({
    label,
    kind,
    ...edit(JSON.stringify(label), replace),
    ...(replace !== undefined ? { filterText: JSON.stringify(label) } : {}),
    ...extra,
  });
  switch (spec.kind) {
    case 'name': {
      if (spec.ref === 'queue') return queueNames(doc, live).map(([name, detail]) => value(name, CompletionItemKind.Module, detail !== undefined ? { detail } : {}));
      if (spec.ref === 'template') return templateNames(doc, live).map(([name, detail]) => value(name, CompletionItemKind.Class, { detail }));
      if (spec.ref === 'workflow') return workflowNames(doc, live).map(([name, detail]) => value(name, CompletionItemKind.Function, { detail }));
      if (path[0] === 'templates' && path[2] === 'kind') {
        const kinds = new Set(['shell', 'http']);
        for (const t of doc.parse.partial.templates) kinds.add(t.kind);
        return [...kinds].map((k) => value(k, CompletionItemKind.EnumMember, { detail: k === 'shell' || k === 'http' ? 'run by the daemon' : 'custom kind, run by workers' }));
      }
      return (spec.examples ?? []).map((e) => value(e, CompletionItemKind.Value));
    }
    case 'timezone':
      return knownTimezones().map((zone) => value(zone, CompletionItemKind.Value, { sortText: spec.examples.includes(zone) ? `0${zone}` : `1${zone}` }));
    case 'backoff': {
      const items = spec.examples.map((e) => value(e, CompletionItemKind.Value, { sortText: `0${e}` }));
      for (const s of BACKOFF_STRATEGIES) if (!spec.examples.includes(s)) items.push(value(s, CompletionItemKind.EnumMember, { detail: 'strategy; base and cap keep the defaults', sortText: `1${s}` }));
      return items;
    }
    case 'string':
      if (spec.enum !== undefined) {
        return spec.enum.map((e, i) => {
          const doc = spec.enumDescriptions?.[i];
          return value(e, CompletionItemKind.EnumMember, doc !== undefined ? { documentation: doc } : {});
        });
      }
      return (spec.examples ?? []).map((e) => value(e, CompletionItemKind.Value));
    case 'boolean':
      return ['true', 'false'].map((b) => ({ label: b, kind: CompletionItemKind.Value, ...edit(b, replace) }));
    case 'duration':
    case 'rate':
    case 'ageing':
    case 'cron':
      return spec.examples.map((e) => value(e, CompletionItemKind.Value));
    case 'object':
    case 'map':
      return replace === undefined ? [{ label: '{}', kind: CompletionItemKind.Snippet, insertText: '{$0}', insertTextFormat: InsertTextFormat.Snippet }] : [];
    default:
      return [];
  }
}

/** Queue names with where they come from: the file's, then the daemon's others. */
function queueNames(doc: JobsDocument, live: LiveData): [string, string | undefined][] {
  const out = new Map<string, string | undefined>();
  for (const l of doc.parse.locations) if (l.type === 'queue') out.set(l.name, 'declared in this file');
  for (const q of live.queues ?? []) out.set(q.name, `${out.has(q.name) ? 'in this file; ' : 'on the daemon: '}${liveCountsText(q)}`);
  return [...out];
}

/** Workflow names: the file's, then the daemon's others. */
function workflowNames(doc: JobsDocument, live: LiveData): [string, string][] {
  const out = new Map<string, string>();
  for (const { name } of workflowKeys(doc)) out.set(name, 'declared in this file');
  for (const o of live.objects ?? []) if (o.type === 'workflow' && !out.has(o.name)) out.set(o.name, 'on the daemon');
  return [...out];
}

/** Template names: the file's, then the daemon's others (when it records templates). */
function templateNames(doc: JobsDocument, live: LiveData): [string, string][] {
  const out = new Map<string, string>();
  for (const l of doc.parse.locations) if (l.type === 'template') out.set(l.name, 'declared in this file');
  for (const o of live.objects ?? []) if (o.type === 'template' && !out.has(o.name)) out.set(o.name, 'on the daemon');
  return [...out];
}
