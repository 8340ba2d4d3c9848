/**
 * A declared workflow as the daemon receives it (`project.apply`, `workflows.run`'s
 * `definition`) or reads back what an apply stored: every field checked again, and the checks
 * across steps the jobs file makes (shared/jobsfile/workflows.ts) — each `needs` names a step of
 * the workflow, no step waits for itself through others (the cycle named step by step), a
 * matrix makes at least one job and at most MAX_STEP_INSTANCES. A refusal names the field by its
 * path ("definition.steps[2].needs[0].step").
 */
import { invalidParams } from '../../protocol/errors';
import type { DeclaredStep, DeclaredWorkflow, StepNeed, WorkflowParam } from '../../protocol/projects';
import { DEPENDENCY_CONDITIONS } from '../../protocol/types';
import { LIMITS } from '../../protocol';
import { isRecord } from '../records';
import { array, integer, join, jsonText, name, object, oneOf, requiredObject, shown, string } from '../validate';
import { MAX_MATRIX_VALUES, MAX_STEP_INSTANCES, MAX_WORKFLOW_STEPS, PARAM_NAME, PARAM_NAME_RULE, WORKFLOW_PARAM_TYPES } from './declared';
import { MAX_DESCRIPTION_LENGTH } from './limits';
import { jobOptionsOf, paramValues } from './declaredFields';
import { WORKFLOW_RUN_STATES, type WorkflowRunState } from '../../protocol/workflows';

/**
 * The cycles among steps' needs, each once: a depth-first walk that, on meeting a step still on
 * its path, reports the path from that step (each element: a step and the need it follows next).
 * Linear in steps and needs. Needs naming no step are passed over.
 */
export function findCycles<N extends { step: string }>(steps: readonly { name: string; needs: readonly N[] }[]): { step: string; need: N }[][] {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const state = new Map<string, 'open' | 'done'>();
  const trail: { step: string; need: N }[] = [];
  const cycles: { step: string; need: N }[][] = [];
  const visit = (s: { name: string; needs: readonly N[] }): void => {
    state.set(s.name, 'open');
    for (const need of s.needs) {
      const next = byName.get(need.step);
      if (next === undefined) continue;
      trail.push({ step: s.name, need });
      const seen = state.get(next.name);
      if (seen === 'open') {
        const from = trail.findIndex((t) => t.step === next.name);
        cycles.push(trail.slice(from));
      } else if (seen === undefined) visit(next);
      trail.pop();
    }
    state.set(s.name, 'done');
  };
  for (const s of steps) if (!state.has(s.name)) visit(s);
  return cycles;
}

/** A declared workflow (with its name). */
export function declaredWorkflowOf(value: unknown, field: string): DeclaredWorkflow {
  const o = requiredObject(value, field, ['name', 'params', 'steps', 'description']);
  const { name: _name, ...rest } = o;
  return { name: name(o['name'], join(field, 'name')), ...workflowStateOf(rest, field) };
}

/** A workflow without its name: what the daemon stores. */
export function workflowStateOf(value: unknown, field: string): Omit<DeclaredWorkflow, 'name'> {
  const o = requiredObject(value, field, ['params', 'steps', 'description']);
  const params = workflowParams(o['params'] ?? {}, join(field, 'params'));
  const stepsField = join(field, 'steps');
  const steps = array(o['steps'], stepsField, MAX_WORKFLOW_STEPS, 1).map((raw, i) => declaredStep(raw, `${stepsField}[${i}]`));
  const index = new Map<string, number>();
  steps.forEach((s, i) => {
    if (index.has(s.name)) throw invalidParams(`${stepsField}[${i}].name`, `${stepsField}[${i}].name "${s.name}" is used by another step; each step has its own name.`, 'a unique step name');
    index.set(s.name, i);
  });
  steps.forEach((s, i) => {
    s.needs.forEach((need, j) => {
      if (index.has(need.step)) return;
      const f = `${stepsField}[${i}].needs[${j}].step`;
      throw invalidParams(f, `${f} names the step "${need.step}", which the workflow does not have (its steps: ${[...index.keys()].join(', ')}).`, [...index.keys()].join(', '));
    });
  });
  const cycle = findCycles(steps)[0];
  if (cycle !== undefined) {
    const names = [...cycle.map((c) => c.step), cycle[0]?.step ?? ''];
    const closing = cycle[cycle.length - 1]?.step ?? '';
    const f = `${stepsField}[${index.get(closing) ?? 0}].needs`;
    throw invalidParams(f, `${field} has a cycle: ${names.join(' → ')}. Each of these steps waits for the next, so none could start; remove one of these needs.`, 'needs that never lead back to the step');
  }
  const state: Omit<DeclaredWorkflow, 'name'> = { params, steps };
  if (o['description'] !== undefined) state.description = string(o['description'], join(field, 'description'), MAX_DESCRIPTION_LENGTH);
  return state;
}

function workflowParams(value: unknown, field: string): Record<string, WorkflowParam> {
  if (!isRecord(value)) throw invalidParams(field, `${field} must be an object (got ${shown(value)})`, 'an object');
  const out: Record<string, WorkflowParam> = {};
  for (const [key, raw] of Object.entries(value)) {
    const f = join(field, key);
    if (!PARAM_NAME.test(key)) throw invalidParams(f, `${f}: a parameter name is ${PARAM_NAME_RULE}`, PARAM_NAME.source);
    const p = requiredObject(raw, f, ['type', 'default', 'description']);
    const param: WorkflowParam = { type: p['type'] === undefined ? 'string' : oneOf(p['type'], join(f, 'type'), WORKFLOW_PARAM_TYPES) };
    if (p['default'] !== undefined) param.default = string(p['default'], join(f, 'default'), LIMITS.maxPayloadBytes);
    if (p['description'] !== undefined) param.description = string(p['description'], join(f, 'description'), MAX_DESCRIPTION_LENGTH);
    out[key] = param;
  }
  return out;
}

function declaredStep(value: unknown, field: string): DeclaredStep {
  const o = requiredObject(value, field, ['name', 'queue', 'kind', 'payload', 'options', 'needs', 'matrix', 'template', 'description']);
  jsonText(o['payload'] ?? null, join(field, 'payload'));
  const step: DeclaredStep = {
    name: name(o['name'], join(field, 'name')),
    queue: name(o['queue'], join(field, 'queue')),
    kind: name(o['kind'], join(field, 'kind')),
    payload: o['payload'] ?? null,
    options: jobOptionsOf(o['options'] ?? {}, join(field, 'options')),
    needs: needs(o['needs'] ?? [], join(field, 'needs')),
  };
  if (o['matrix'] !== undefined) step.matrix = matrix(o['matrix'], join(field, 'matrix'));
  if (o['template'] !== undefined) step.template = name(o['template'], join(field, 'template'));
  if (o['description'] !== undefined) step.description = string(o['description'], join(field, 'description'), MAX_DESCRIPTION_LENGTH);
  return step;
}

function needs(value: unknown, field: string): StepNeed[] {
  const seen = new Set<string>();
  return array(value, field, MAX_WORKFLOW_STEPS).map((raw, i) => {
    const f = `${field}[${i}]`;
    const n = requiredObject(raw, f, ['step', 'on']);
    const need: StepNeed = { step: name(n['step'], join(f, 'step')), on: n['on'] === undefined ? 'succeeded' : oneOf(n['on'], join(f, 'on'), DEPENDENCY_CONDITIONS) };
    if (seen.has(need.step)) throw invalidParams(join(f, 'step'), `${f}.step names "${need.step}" twice; a step waits for another once.`, 'a step not named before');
    seen.add(need.step);
    return need;
  });
}

function matrix(value: unknown, field: string): Record<string, string[]> {
  if (!isRecord(value)) throw invalidParams(field, `${field} must be an object of variables, each with a list of values (got ${shown(value)})`, 'an object');
  const out: Record<string, string[]> = {};
  let jobs = 1;
  for (const [key, raw] of Object.entries(value)) {
    const f = join(field, key);
    if (!PARAM_NAME.test(key)) throw invalidParams(f, `${f}: a matrix variable's name is ${PARAM_NAME_RULE}`, PARAM_NAME.source);
    out[key] = array(raw, f, MAX_MATRIX_VALUES, 1).map((v, i) => string(v, `${f}[${i}]`, LIMITS.maxPayloadBytes));
    jobs *= out[key].length;
  }
  if (Object.keys(out).length === 0) throw invalidParams(field, `${field} has no variable: give one with its values, or leave matrix out.`, 'at least one variable');
  if (jobs > MAX_STEP_INSTANCES) throw invalidParams(field, `${field} makes ${jobs} jobs; a step makes at most ${MAX_STEP_INSTANCES}.`, `at most ${MAX_STEP_INSTANCES} combinations`);
  return out;
}

/** `workflows.run`'s params, checked. */
export interface RunInput {
  workflow: string;
  params: Record<string, string>;
  /** The workflow sent inline, or null to run the one the daemon holds. */
  definition: DeclaredWorkflow | null;
}

export function runParams(value: unknown): RunInput {
  const o = object(value, 'params', ['workflow', 'params', 'definition']);
  const workflow = name(o['workflow'], 'workflow');
  const params = paramValues(o['params'] ?? {}, 'params');
  const definition = o['definition'] === undefined ? null : declaredWorkflowOf(o['definition'], 'definition');
  if (definition !== null && definition.name !== workflow) {
    throw invalidParams('definition.name', `definition.name ("${definition.name}") must be the workflow the call names ("${workflow}").`, workflow);
  }
  return { workflow, params, definition };
}

/** The most runs one page of `workflows.runs` holds. */
export const MAX_RUNS_PAGE = 500;

/** `workflows.runs`'s params, checked. */
export interface RunsInput {
  workflow: string | null;
  state: WorkflowRunState | null;
  limit: number;
  /** The id of the last run of the previous page. */
  cursor: string | null;
}

export function runsParams(value: unknown): RunsInput {
  const o = object(value, 'params', ['workflow', 'state', 'limit', 'cursor']);
  return {
    workflow: o['workflow'] === undefined ? null : name(o['workflow'], 'workflow'),
    state: o['state'] === undefined ? null : oneOf(o['state'], 'state', WORKFLOW_RUN_STATES),
    limit: o['limit'] === undefined ? 50 : integer(o['limit'], 'limit', 1, MAX_RUNS_PAGE),
    cursor: o['cursor'] === undefined ? null : runId(o['cursor'], 'cursor', 'the nextCursor of the previous page'),
  };
}

/** `{id}` of workflows.get, cancel and retry: a run's id. */
export function runIdParams(value: unknown): string {
  return runId(object(value, 'params', ['id'])['id'], 'id', 'a workflow run id');
}

function runId(value: unknown, field: string, what: string): string {
  if (typeof value !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw invalidParams(field, `${field} must be ${what} (a UUID such as 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b; got ${shown(value)})`, 'UUID');
  }
  return value.toLowerCase();
}
