/**
 * A workflow's steps in the editor: the step names `needs` can take (completion), a step's place
 * in the graph — what it waits for and what waits for it (hover), the step a need names (go to
 * definition), the workflows with their steps in the outline, and where each workflow's name is
 * (its code lenses). All read the tree as
 * written rather than the parsed workflows, so a step with an error is still offered and shown
 * while the file is being typed.
 */
import type { Node } from 'jsonc-parser';
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver-types';
import { DEPENDENCY_CONDITIONS, type DependencyCondition } from '../../shared/protocol/types';
import { stepJobCount } from '../../shared/jobsfile';
import { DocumentSymbol, SymbolKind, type Range } from 'vscode-languageserver-types';
import { memberValue, nodeAtPath, rangeAt, stringValue, type JobsDocument } from './document';

/** One edge of a workflow as written: `from` waits for `to` to end `on` an outcome. */
interface Edge {
  from: string;
  to: string;
  on: DependencyCondition;
}

/** The steps of workflow `name` as written: their names in order, and every need between them. */
function graphOf(doc: JobsDocument, name: string): { steps: string[]; edges: Edge[]; nodes: Map<string, Node> } {
  const stepsNode = nodeAtPath(doc, ['workflows', name, 'steps']);
  const steps: string[] = [];
  const edges: Edge[] = [];
  const nodes = new Map<string, Node>();
  if (stepsNode?.type !== 'object') return { steps, edges, nodes };
  for (const property of stepsNode.children ?? []) {
    const key = stringValue(property.children?.[0]);
    const body = property.children?.[1];
    if (key === undefined) continue;
    steps.push(key);
    if (body !== undefined) nodes.set(key, body);
    const needs = memberValue(body, 'needs');
    if (needs?.type !== 'array') continue;
    for (const item of needs.children ?? []) {
      const to = stringValue(item) ?? stringValue(memberValue(item, 'step'));
      if (to === undefined) continue;
      const on = DEPENDENCY_CONDITIONS.find((c) => c === stringValue(memberValue(item, 'on'))) ?? 'succeeded';
      edges.push({ from: key, to, on });
    }
  }
  return { steps, edges, nodes };
}

/**
 * Completion of a step name in `needs` (a bare name, or the `step` of an object): the other
 * steps of the workflow, those the step does not wait for yet first. `path` is the location's.
 */
export function stepNameItems(doc: JobsDocument, path: readonly (string | number)[], edit: (text: string) => Pick<CompletionItem, 'textEdit' | 'insertText'>): CompletionItem[] | undefined {
  const [section, workflow, steps, step, needs, index, field] = path;
  const bare = path.length === 6;
  if (section !== 'workflows' || typeof workflow !== 'string' || steps !== 'steps' || typeof step !== 'string' || needs !== 'needs' || typeof index !== 'number') return undefined;
  if (!bare && !(path.length === 7 && field === 'step')) return undefined;
  const graph = graphOf(doc, workflow);
  const waited = new Set(graph.edges.filter((e) => e.from === step).map((e) => e.to));
  return graph.steps
    .filter((s) => s !== step)
    .map((s) => ({
      label: s,
      kind: CompletionItemKind.Function,
      detail: waited.has(s) ? 'step (already needed)' : 'step',
      sortText: `${waited.has(s) ? '1' : '0'}${s}`,
      ...edit(JSON.stringify(s)),
    }));
}

/** The step a hover is on: a step's key, or a step name in `needs`; undefined otherwise. */
export function hoveredStep(path: readonly (string | number)[], atKey: boolean, value: string | undefined): { workflow: string; step: string } | undefined {
  const [section, workflow, steps, step, needs, , field] = path;
  if (section !== 'workflows' || typeof workflow !== 'string' || steps !== 'steps' || typeof step !== 'string') return undefined;
  if (path.length === 4 && atKey) return { workflow, step };
  const inNeeds = needs === 'needs' && !atKey && (path.length === 6 || (path.length === 7 && field === 'step'));
  return inNeeds && value !== undefined ? { workflow, step: value } : undefined;
}

/** A step's hover: what it runs, what it waits for, and what waits for it. */
export function stepHover(doc: JobsDocument, workflow: string, step: string): string {
  const graph = graphOf(doc, workflow);
  if (!graph.steps.includes(step)) return `**Step ${step}**: workflow "${workflow}" has no such step.`;
  const declared = doc.parse.workflows.find((w) => w.name === workflow)?.steps.find((s) => s.name === step);
  const lines = [`**Step ${step}** of workflow ${workflow}${declared !== undefined ? ` — ${declared.kind} job on queue \`${declared.queue}\`${declared.template !== undefined ? ` (template ${declared.template})` : ''}` : ''}`];
  if (declared?.matrix !== undefined) {
    const jobs = stepJobCount(declared);
    lines.push('', `${jobs} job${jobs === 1 ? '' : 's'}, one per ${Object.entries(declared.matrix).map(([k, v]) => `${k} (${v.join(', ')})`).join(' × ')}`);
  }
  const condition = (on: DependencyCondition): string => (on === 'succeeded' ? '' : ` (${on})`);
  const waitsFor = graph.edges.filter((e) => e.from === step);
  const waitedBy = graph.edges.filter((e) => e.to === step);
  lines.push('', `Waits for: ${waitsFor.length === 0 ? 'nothing — it starts with the run' : waitsFor.map((e) => `${e.to}${condition(e.on)}`).join(', ')}`);
  lines.push('', `Waited for by: ${waitedBy.length === 0 ? 'no step' : waitedBy.map((e) => `${e.from}${condition(e.on)}`).join(', ')}`);
  return lines.join('\n');
}

/** The range of a step's key (go to definition from a need), or null when the workflow has no such step. */
export function stepKeyRange(doc: JobsDocument, workflow: string, step: string): Range | null {
  const body = graphOf(doc, workflow).nodes.get(step);
  const key = body?.parent?.children?.[0];
  return key === undefined ? null : rangeAt(doc, key.offset, key.length);
}

/** The outline's "workflows" section: each workflow, its steps as children with what they wait for. */
export function workflowSymbols(doc: JobsDocument): DocumentSymbol | undefined {
  const section = nodeAtPath(doc, ['workflows']);
  const property = section?.parent;
  const sectionKey = property?.children?.[0];
  if (section?.type !== 'object' || property === undefined || sectionKey === undefined || property.parent !== doc.parse.tree) return undefined;
  const workflows: DocumentSymbol[] = [];
  for (const entry of section.children ?? []) {
    const key = entry.children?.[0];
    const name = stringValue(key);
    if (key === undefined || name === undefined) continue;
    const graph = graphOf(doc, name);
    const steps = graph.steps.flatMap((step) => {
      const body = graph.nodes.get(step);
      const stepKey = body?.parent?.children?.[0];
      if (body?.parent === undefined || stepKey === undefined) return [];
      const waits = graph.edges.filter((e) => e.from === step).map((e) => e.to);
      return [DocumentSymbol.create(step, waits.length > 0 ? `after ${waits.join(', ')}` : '', SymbolKind.Function, rangeAt(doc, body.parent.offset, body.parent.length), rangeAt(doc, stepKey.offset, stepKey.length))];
    });
    workflows.push(DocumentSymbol.create(name, `${steps.length} step${steps.length === 1 ? '' : 's'}`, SymbolKind.Module, rangeAt(doc, entry.offset, entry.length), rangeAt(doc, key.offset, key.length), steps));
  }
  return DocumentSymbol.create('workflows', `${workflows.length}`, SymbolKind.Namespace, rangeAt(doc, property.offset, property.length), rangeAt(doc, sectionKey.offset, sectionKey.length), workflows);
}

/** Each workflow's name and the range of its key, in the file's order (where its lenses go). */
export function workflowKeys(doc: JobsDocument): { name: string; range: Range }[] {
  const section = nodeAtPath(doc, ['workflows']);
  if (section?.type !== 'object') return [];
  return (section.children ?? []).flatMap((entry) => {
    const key = entry.children?.[0];
    const name = stringValue(key);
    return key === undefined || name === undefined ? [] : [{ name, range: rangeAt(doc, key.offset, key.length) }];
  });
}
