/**
 * The `workflows` section of a jobs file: each workflow's parameters and steps read against
 * `spec.ts`, then the checks that span steps — a `needs` naming no step of the workflow, a cycle
 * (named step by step: `build → test → build`), a matrix with no value (a step that would make
 * no job, so nothing could wait for it), a `{{name}}` that is neither a parameter of the workflow
 * nor a matrix variable of the step. A template step is turned into the job its template makes,
 * the template's own parameters filled in, so a step is always a job with the workflow's
 * placeholders left in (see `DeclaredStep`). Called by `parse.ts` once templates are read.
 */
import type { Node } from 'jsonc-parser';
import { isRecord } from '../domain/records';
import { MAX_STEP_INSTANCES, MAX_WORKFLOW_STEPS, WORKFLOW_PARAM_TYPES } from '../domain/rules/declared';
import { findCycles } from '../domain/rules/workflows';
import { NAME_RULE } from '../domain/validate';
import { NAME_PATTERN } from '../protocol';
import { DEPENDENCY_CONDITIONS, type DependencyCondition } from '../protocol/types';
import type { DeclaredStep, DeclaredTemplate, DeclaredWorkflow, StepNeed, TemplateParam, WorkflowParam, WorkflowParamType } from '../protocol/projects';
import { members, pathText, setEntry, type Checker, type JsonPath } from './check';
import { checkPlaceholders, checkStrings, checkTargets, groupOf, optionsOf, payloadOf, stringOf, withoutUnique } from './jobFields';
import { placeholderNames, substitute } from './params';
import { NEED_SPEC, STEP_SPEC, WORKFLOW_SPEC } from './spec';
import { closest } from './suggest';

/** What a template step needs of a template: its job (null when it has an error) and parameters. */
export interface TemplateForSteps {
  template: DeclaredTemplate | null;
  params: Record<string, TemplateParam>;
}

/** The fields that make an inline step's job: a template step takes them from its template. */
const JOB_FIELDS = ['queue', 'kind', 'shell', 'http', 'command', 'cwd', 'env', 'url', 'method', 'headers', 'body', 'payload'] as const;

/** One `needs` entry as read, with the node naming the step (where its problems go). */
interface NeedRead extends StepNeed {
  node: Node;
}

/** A step as read: its job (null after an error) and its needs for the checks across steps. */
interface StepRead {
  name: string;
  keyNode: Node;
  step: DeclaredStep | null;
  needs: NeedRead[];
}

/** Every workflow of the `workflows` node (undefined: the file has none). */
export function readWorkflows(checker: Checker, node: Node | undefined, templates: ReadonlyMap<string, TemplateForSteps>, queues: ReadonlySet<string>): DeclaredWorkflow[] {
  if (node === undefined) return [];
  const out: DeclaredWorkflow[] = [];
  for (const { name, keyNode, value, path } of entries(checker, node, ['workflows'], 'workflow')) {
    const workflow = readWorkflow(checker, name, keyNode, value, path, templates);
    if (workflow !== null) for (const step of workflow.steps) if (step.template === undefined) checkQueue(checker, queues, step.queue, value, [...path, 'steps', step.name, 'queue']);
    if (workflow !== null) out.push(workflow);
  }
  return out;
}

/**
 * An inline step's queue that the file does not declare: a warning, as for a template (the
 * daemon makes a queue on first use; the file just does not manage its settings).
 */
function checkQueue(checker: Checker, queues: ReadonlySet<string>, queue: string, workflowNode: Node, path: JsonPath): void {
  if (queues.has(queue)) return;
  let node: Node | undefined = workflowNode;
  for (const key of path.slice(2)) node = node?.type === 'object' ? members(node).find((m) => m.key === key)?.value : undefined;
  if (node === undefined) return;
  const near = closest(queue, queues);
  checker.report(
    node,
    'unknown-queue',
    `${pathText(path)} names the queue "${queue}", which this file does not declare under "queues": the daemon makes it on first use with default settings.${near !== undefined ? ` Did you mean "${near}"?` : ''}`,
    path,
    { severity: 'warning', allowed: [...queues].join(', ') || 'no queues are declared', ...(near !== undefined ? { suggestion: near } : {}) },
  );
}

/** The entries of a map of named objects: keys checked (pattern, duplicates). */
function entries(checker: Checker, node: Node, path: JsonPath, type: string): { name: string; keyNode: Node; value: Node; path: JsonPath }[] {
  if (node.type !== 'object') {
    checker.report(node, 'wrong-type', `${pathText(path)} must be an object of ${type}s by name (got ${node.type === 'array' ? 'an array' : node.type})`, path, { allowed: 'an object' });
    return [];
  }
  const out: { name: string; keyNode: Node; value: Node; path: JsonPath }[] = [];
  const seen = new Map<string, Node>();
  for (const { key, keyNode, value } of members(node)) {
    const at = [...path, key];
    if (!checker.unique(key, keyNode, seen, at, path)) continue;
    if (!NAME_PATTERN.test(key)) {
      checker.report(keyNode, 'invalid-name', `${pathText(path)} has the name "${key.length > 60 ? `${key.slice(0, 57)}...` : key}": a ${type} name must be ${NAME_RULE}.`, at, { allowed: NAME_RULE });
      continue;
    }
    if (value !== undefined) out.push({ name: key, keyNode, value, path: at });
  }
  return out;
}

function readWorkflow(checker: Checker, name: string, keyNode: Node, node: Node, path: JsonPath, templates: ReadonlyMap<string, TemplateForSteps>): DeclaredWorkflow | null {
  const read = checker.object(node, WORKFLOW_SPEC, path, { nameNode: keyNode, manual: ['steps'] });
  if (read === null) return null;
  const params = workflowParams(read.values['params'], read.nodes['params']);
  const stepsNode = read.nodes['steps'];
  const steps: StepRead[] = [];
  if (stepsNode !== undefined) {
    const found = entries(checker, stepsNode, [...path, 'steps'], 'step');
    if (found.length > MAX_WORKFLOW_STEPS) {
      checker.report(stepsNode, 'out-of-range', `${pathText([...path, 'steps'])} has ${found.length} steps; a workflow may have up to ${MAX_WORKFLOW_STEPS}.`, [...path, 'steps'], {
        allowed: `up to ${MAX_WORKFLOW_STEPS} steps`,
      });
      // Not read further: one problem says it all, and a huge file stays quick to check.
      return null;
    }
    for (const entry of found) steps.push(readStep(checker, entry.name, entry.keyNode, entry.value, entry.path, params, templates));
    if (found.length === 0 && stepsNode.type === 'object') {
      checker.report(stepsNode, 'missing-required', `${pathText([...path, 'steps'])} is empty: a workflow needs at least one step.`, [...path, 'steps'], { allowed: 'at least one step', layer: 'schema' });
    }
  }
  checkNeeds(checker, path, steps);
  const workflow: DeclaredWorkflow = { name, params, steps: steps.flatMap((s) => (s.step !== null ? [s.step] : [])) };
  const description = read.values['description'];
  if (typeof description === 'string') workflow.description = description;
  return workflow;
}

/** The declared parameters (names as written even when their bodies are unreadable). */
function workflowParams(value: unknown, node: Node | undefined): Record<string, WorkflowParam> {
  const params: Record<string, WorkflowParam> = {};
  if (isRecord(value)) {
    for (const [p, spec] of Object.entries(value)) {
      const param: WorkflowParam = { type: 'string' };
      if (isRecord(spec)) {
        const type = WORKFLOW_PARAM_TYPES.find((t) => t === spec['type']);
        if (type !== undefined) param.type = type;
        if (typeof spec['default'] === 'string') param.default = spec['default'];
        if (typeof spec['description'] === 'string') param.description = spec['description'];
      }
      setEntry(params, p, param);
    }
  } else if (node?.type === 'object') {
    for (const m of members(node)) setEntry(params, m.key, { type: 'string' satisfies WorkflowParamType });
  }
  return params;
}

function readStep(checker: Checker, name: string, keyNode: Node, node: Node, path: JsonPath, params: Record<string, WorkflowParam>, templates: ReadonlyMap<string, TemplateForSteps>): StepRead {
  const fields = node.type === 'object' ? new Map(members(node).map((m) => [m.key, m.value])) : new Map<string, Node | undefined>();
  const kind = stringOf(fields.get('kind'));
  const group = kind !== undefined ? groupOf(kind) : fields.has('shell') ? 'shell' : fields.has('http') ? 'http' : undefined;
  const read = checker.object(node, STEP_SPEC, path, { nameNode: keyNode, manual: ['needs'], ...(group !== undefined ? { group } : {}) });
  const result: StepRead = { name, keyNode, step: null, needs: [] };
  if (read === null) return result;
  const v = read.values;
  result.needs = readNeeds(checker, read.nodes['needs'], [...path, 'needs']);
  const matrix = readMatrix(checker, v['matrix'], read.nodes['matrix'], [...path, 'matrix'], params);
  // The names a step's strings may use: the workflow's parameters and the step's matrix variables.
  // A variable with an unusable list is still the step's: its uses are not reported as well.
  const matrixNode = read.nodes['matrix'];
  const scope = [...Object.keys(params), ...(matrixNode?.type === 'object' ? members(matrixNode).map((m) => m.key) : [])];
  const owner = `neither ${pathText(path.slice(0, 2))}.params nor this step's matrix declares`;
  const fix = `Declare it under ${pathText(path.slice(0, 2))}.params, or as a variable of the step's "matrix".`;
  const templateName = typeof v['template'] === 'string' ? v['template'] : undefined;
  const job = read.nodes['template'] !== undefined ? templateJob(checker, read.nodes, v, path, templateName, templates, scope, owner, fix) : inlineJob(checker, node, keyNode, read.nodes, v, path, group, scope, owner, fix);
  if (job === null || matrix === null) return result;
  const step: DeclaredStep = { name, ...job, options: { ...job.options, ...optionsOf(v) }, needs: result.needs.map(({ step: s, on }) => ({ step: s, on })) };
  if (matrix !== undefined) {
    step.matrix = matrix;
    checkMatrixUsed(checker, read.nodes['matrix'], path, matrix, step.payload);
  }
  if (templateName !== undefined) step.template = templateName;
  if (typeof v['description'] === 'string') step.description = v['description'];
  result.step = step;
  return result;
}

/** `needs`: names, or `{ step, on }` objects. */
function readNeeds(checker: Checker, node: Node | undefined, path: JsonPath): NeedRead[] {
  if (node === undefined) return [];
  if (node.type !== 'array') {
    checker.report(node, 'wrong-type', `${pathText(path)} must be a list of step names or { "step", "on" } objects`, path, { allowed: 'a list of step names or { "step", "on" } objects' });
    return [];
  }
  const out: NeedRead[] = [];
  (node.children ?? []).forEach((item, i) => {
    const at = [...path, i];
    if (item.type === 'string') {
      const step = stringOf(item) ?? '';
      if (!NAME_PATTERN.test(step)) checker.report(item, 'invalid-name', `${pathText(at)} must name a step: ${NAME_RULE} (got "${step}")`, at, { allowed: NAME_RULE });
      else out.push({ step, on: 'succeeded', node: item });
      return;
    }
    if (item.type !== 'object') {
      checker.report(item, 'wrong-type', `${pathText(at)} must be a step name or { "step": name, "on": ${DEPENDENCY_CONDITIONS.join(' | ')} }`, at, { allowed: 'a step name or { "step", "on" }' });
      return;
    }
    const need = checker.object(item, NEED_SPEC, at);
    const stepNode = need?.nodes['step'];
    const step = need?.values['step'];
    if (need === null || stepNode === undefined || typeof step !== 'string') return;
    const on: DependencyCondition = DEPENDENCY_CONDITIONS.find((c) => c === need.values['on']) ?? 'succeeded';
    if (need.nodes['on'] !== undefined && need.values['on'] === undefined) return;
    out.push({ step, on, node: stepNode });
  });
  return out;
}

/**
 * A step's matrix as read: undefined when it has none, null when it is unusable (a variable
 * with no value, a parameter's name taken, too many jobs), each reported.
 */
function readMatrix(checker: Checker, value: unknown, node: Node | undefined, path: JsonPath, params: Record<string, WorkflowParam>): Record<string, string[]> | undefined | null {
  if (node === undefined) return undefined;
  if (!isRecord(value)) return null;
  const matrix: Record<string, string[]> = {};
  let ok = true;
  let jobs = 1;
  for (const m of members(node)) {
    const values = value[m.key];
    if (!Array.isArray(values)) {
      ok = false;
      continue;
    }
    const at = [...path, m.key];
    if (values.length === 0) {
      ok = false;
      checker.report(m.value ?? m.keyNode, 'empty-matrix', `${pathText(at)} lists no value: the step would make no job, so nothing could wait for it. Give at least one value, or remove the variable.`, at, {
        allowed: 'one value or more',
      });
      continue;
    }
    if (Object.hasOwn(params, m.key)) {
      ok = false;
      checker.report(m.keyNode, 'invalid-name', `${pathText(at)} has the name of a parameter of the workflow: {{${m.key}}} would mean two things. Rename the variable.`, at, { allowed: 'a name that is not a parameter' });
      continue;
    }
    jobs *= values.length;
    setEntry(matrix, m.key, values.filter((x): x is string => typeof x === 'string'));
  }
  if (ok && jobs > MAX_STEP_INSTANCES) {
    ok = false;
    checker.report(node, 'out-of-range', `${pathText(path)} makes ${jobs} jobs (the product of its lists' lengths); a step may make up to ${MAX_STEP_INSTANCES}.`, path, { allowed: `up to ${MAX_STEP_INSTANCES} jobs` });
  }
  return ok ? matrix : null;
}

/** A matrix variable none of the step's strings uses makes the same job several times: a warning. */
function checkMatrixUsed(checker: Checker, node: Node | undefined, path: JsonPath, matrix: Record<string, string[]>, payload: unknown): void {
  if (node === undefined) return;
  const used = placeholderNames(payload);
  for (const m of members(node)) {
    if (used.has(m.key) || (matrix[m.key]?.length ?? 0) < 2) continue;
    checker.report(m.keyNode, 'unused-matrix', `${pathText([...path, 'matrix', m.key])} is used by none of the step's fields: its ${matrix[m.key]?.length ?? 0} jobs would be the same. Use {{${m.key}}} in the step, or remove the variable.`, [...path, 'matrix', m.key], {
      severity: 'warning',
    });
  }
}

type StepJob = Pick<DeclaredStep, 'queue' | 'kind' | 'payload' | 'options'>;

/** An inline step's job: "shell"/"http" shorthands or a template's fields. */
function inlineJob(checker: Checker, node: Node, keyNode: Node, nodes: Record<string, Node>, v: Record<string, unknown>, path: JsonPath, group: ReturnType<typeof groupOf>, scope: string[], owner: string, fix: string): StepJob | null {
  if (nodes['queue'] === undefined) checker.missing(node, keyNode, 'queue', 'the queue the step\'s job goes to (or "template": a template\'s job).', path);
  if (nodes['kind'] === undefined && nodes['shell'] === undefined && nodes['http'] === undefined) {
    checker.report(keyNode, 'missing-required', `${pathText(path)} needs a job: "template" (a template's job), "shell" (a command), "http" (a request), or "kind" with the kind's fields.`, path, {
      allowed: 'template, shell, http, or kind',
      layer: 'schema',
    });
    return null;
  }
  // Both spellings of one thing: say which to keep rather than pick one.
  const twice = nodes['shell'] !== undefined && nodes['command'] !== undefined ? ['shell', 'command'] : nodes['http'] !== undefined && nodes['url'] !== undefined ? ['http', 'url'] : null;
  if (twice !== null) {
    const second = nodes[twice[1] ?? '']?.parent?.children?.[0];
    checker.report(second ?? keyNode, 'not-allowed', `${pathText(path)} gives both "${twice[0]}" and "${twice[1]}": write the job one way (the "${twice[0]}" shorthand, or "kind" with "${twice[1]}").`, [...path, twice[1] ?? ''], {
      allowed: `"${twice[0]}" or "${twice[1]}"`,
    });
    return null;
  }
  const http = nodes['http'];
  const values: Record<string, unknown> = { ...v };
  if (typeof v['shell'] === 'string') values['command'] = v['shell'];
  if (isRecord(v['http'])) Object.assign(values, v['http']);
  checkPlaceholders(checker, nodes, scope, path, owner, fix);
  checkTargets(checker, nodes, path);
  const shell = nodes['shell'];
  if (shell !== undefined) checkStrings(checker, shell, [...path, 'shell'], scope, owner, fix);
  if (http?.type === 'object') {
    checkStrings(checker, http, [...path, 'http'], scope, owner, fix);
    checkTargets(checker, Object.fromEntries(members(http).flatMap((m) => (m.value !== undefined ? [[m.key, m.value]] : []))), [...path, 'http']);
  }
  if (group === undefined) return null;
  const need = group === 'shell' ? 'command' : group === 'http' ? 'url' : 'payload';
  if (nodes[need] === undefined && !(need === 'command' && shell !== undefined) && !(need === 'url' && http !== undefined)) {
    checker.report(keyNode, 'missing-required', `${pathText(path)} needs "${need}" for its ${group === 'custom' ? 'custom kind' : `${group} job`}.`, [...path, need], { layer: 'schema' });
    return null;
  }
  const queue = values['queue'];
  const kind = typeof values['kind'] === 'string' ? values['kind'] : group;
  if (typeof queue !== 'string' || !(need in values)) return null;
  return { queue, kind, payload: payloadOf(group, values), options: {} };
}

/**
 * A template step's job: the template's, with the template's parameters filled in from the
 * step's `params`, else the workflow's parameter or the step's matrix variable of the same
 * name (left as a placeholder, substituted when a run starts), else the template's default.
 */
function templateJob(checker: Checker, nodes: Record<string, Node>, v: Record<string, unknown>, path: JsonPath, name: string | undefined, templates: ReadonlyMap<string, TemplateForSteps>, scope: string[], owner: string, fix: string): StepJob | null {
  for (const field of JOB_FIELDS) {
    const node = nodes[field];
    if (node === undefined || node.parent?.children?.[0] === undefined) continue;
    checker.report(node.parent.children[0], 'not-allowed', `${pathText(path)} runs the template "${name ?? ''}": "${field}" is the template's. Change it in the template, or write the step's job inline instead of "template".`, [...path, field], {
      allowed: 'template, params, needs, matrix, description and the job options (priority, attempts, backoff, timeout, tags)',
    });
  }
  const paramsNode = nodes['params'];
  if (paramsNode !== undefined) checkStrings(checker, paramsNode, [...path, 'params'], scope, owner, fix);
  const templateNode = nodes['template'];
  if (name === undefined || templateNode === undefined) return null;
  const read = templates.get(name);
  if (read === undefined) {
    const names = [...templates.keys()];
    const near = closest(name, names);
    checker.report(templateNode, 'unknown-template', `${pathText([...path, 'template'])} names the template "${name}", which this file does not declare${near !== undefined ? `. Did you mean "${near}"?` : ''} (templates: ${names.join(', ') || 'none'}).`, [...path, 'template'], {
      allowed: names.join(', ') || 'no templates are declared',
      ...(near !== undefined ? { suggestion: near } : {}),
    });
    return null;
  }
  const given = isRecord(v['params']) ? v['params'] : {};
  const declared = Object.keys(read.params);
  let ok = true;
  if (paramsNode?.type === 'object') {
    for (const m of members(paramsNode)) {
      if (Object.hasOwn(read.params, m.key)) continue;
      ok = false;
      const near = closest(m.key, declared);
      checker.report(m.keyNode, 'unknown-param', `${pathText([...path, 'params'])} gives "${m.key}", which template "${name}" does not take${near !== undefined ? `. Did you mean "${near}"?` : ''} (its parameters: ${declared.join(', ') || 'none'}).`, [...path, 'params', m.key], {
        allowed: declared.join(', ') || 'none',
        ...(near !== undefined ? { suggestion: near } : {}),
      });
    }
  }
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const [p, param] of Object.entries(read.params)) {
    const value = given[p];
    if (typeof value === 'string') values[p] = value;
    else if (scope.includes(p)) values[p] = `{{${p}}}`;
    else if (param.default !== undefined) values[p] = param.default;
    else if (!(paramsNode?.type === 'object' && members(paramsNode).some((m) => m.key === p))) missing.push(p);
  }
  if (missing.length > 0) {
    ok = false;
    checker.report(templateNode, 'missing-param', `${pathText(path)} gives no value for ${missing.map((p) => `"${p}"`).join(', ')} of template "${name}", which has no default: add it under the step's "params", or declare a parameter of that name in the workflow.`, [...path, 'params'], {
      allowed: declared.join(', '),
    });
  }
  if (!ok || read.template === null) return null;
  const t = read.template;
  return { queue: t.queue, kind: t.kind, payload: substitute(t.payload, values), options: withoutUnique(t.options) };
}

/** The checks across a workflow's steps: every need names a step, and no step waits for itself. */
function checkNeeds(checker: Checker, path: JsonPath, steps: readonly StepRead[]): void {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const names = [...byName.keys()];
  for (const s of steps) {
    for (const [i, need] of s.needs.entries()) {
      if (byName.has(need.step)) continue;
      const near = closest(need.step, names);
      const at = [...path, 'steps', s.name, 'needs', i];
      checker.report(need.node, 'unknown-step', `${pathText(at)} names the step "${need.step}", which ${pathText(path)} does not have${near !== undefined ? `. Did you mean "${near}"?` : ''} (its steps: ${names.join(', ')}).`, at, {
        allowed: names.join(', '),
        ...(near !== undefined ? { suggestion: near } : {}),
      });
    }
  }
  const order = new Map(steps.map((s, i) => [s.name, i]));
  for (const found of findCycles(steps)) {
    // Named from the step written first in the file, whichever step the walk entered it by.
    const first = found.reduce((best, c, i) => ((order.get(c.step) ?? 0) < (order.get(found[best]?.step ?? '') ?? 0) ? i : best), 0);
    const cycle = [...found.slice(first), ...found.slice(0, first)];
    const names = [...cycle.map((c) => c.step), cycle[0]?.step ?? ''];
    const closing = cycle[cycle.length - 1];
    if (closing === undefined) continue;
    const text = names.join(' → ');
    checker.report(closing.need.node, 'workflow-cycle', `${pathText(path)} has a cycle: ${text}. Each of these steps waits for the next, so none could start; remove one of these needs.`, [...path, 'steps', closing.step, 'needs'], {
      allowed: 'needs that never lead back to the step',
    });
  }
}
