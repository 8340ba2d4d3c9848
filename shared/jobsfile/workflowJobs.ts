/**
 * A workflow and the values given for a run in, the run's jobs out: one job per step, or per
 * combination of its matrix, each with the jobs it depends on and the condition — what a run
 * creates in one transaction. Pure; the checks of `workflows.ts` have run (a declared workflow
 * has no cycle and no unknown step), and the values are checked here against the parameters.
 */
import { parsed, refused, type Parsed } from '../domain/parsed';
import type { EnqueueParams } from '../protocol';
import type { DeclaredWorkflow, WorkflowParam } from '../protocol/projects';
import type { DependencyCondition } from '../protocol/types';
import { jobTemplateOf } from './params';
import { closest } from './suggest';

/** One job of a run. */
export interface StepJob {
  /** The step it is a job of. */
  step: string;
  /** The matrix values it runs with (absent: the step has no matrix). */
  matrix?: Record<string, string>;
  /** The step's name, with the matrix values in brackets: `test (linux)`. */
  label: string;
  job: EnqueueParams;
  /** The jobs it waits for, by position in the list (always earlier), and the outcome. */
  dependsOn: { index: number; on: DependencyCondition }[];
}

/**
 * The values a run of `workflow` uses: the defaults overridden by `given`. Refused when `given`
 * names a parameter the workflow does not declare, leaves out one without a default, or gives
 * a value that is not of the parameter's type.
 */
export function resolveWorkflowParams(workflow: DeclaredWorkflow, given: Readonly<Record<string, string>>): Parsed<Record<string, string>> {
  const declared = Object.keys(workflow.params);
  for (const name of Object.keys(given)) {
    if (Object.hasOwn(workflow.params, name)) continue;
    const near = closest(name, declared);
    return refused(`workflow "${workflow.name}" has no parameter "${name}" (its parameters: ${declared.join(', ') || 'none'})${near !== undefined ? `. Did you mean "${near}"?` : ''}`);
  }
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, param] of Object.entries(workflow.params)) {
    const value = Object.hasOwn(given, name) ? given[name] : param.default;
    if (value === undefined) {
      missing.push(name);
      continue;
    }
    const wrong = paramTypeProblem(param, value);
    if (wrong !== null) return refused(`parameter "${name}" of workflow "${workflow.name}" must be ${wrong} (got "${value}")`);
    values[name] = value;
  }
  if (missing.length > 0) {
    return refused(`workflow "${workflow.name}" needs a value for ${missing.map((m) => `"${m}"`).join(', ')}: it has no default (give it with --param ${missing[0]}=…)`);
  }
  return parsed(values);
}

/** What a value of the parameter's type must be (`a number`), when `value` is not one; null when it is. */
export function paramTypeProblem(param: WorkflowParam, value: string): string | null {
  if (param.type === 'number') return value.trim() !== '' && Number.isFinite(Number(value)) ? null : 'a number';
  if (param.type === 'boolean') return value === 'true' || value === 'false' ? null : 'true or false';
  return null;
}

/**
 * The jobs of a run of `workflow` with `given` values: steps in an order where every step comes
 * after those it needs (the file's order where the needs allow), each step's matrix expanded in
 * the order its variables are written. A step that needs a matrix step depends on all its jobs.
 */
export function workflowJobs(workflow: DeclaredWorkflow, given: Readonly<Record<string, string>> = {}): Parsed<StepJob[]> {
  const values = resolveWorkflowParams(workflow, given);
  if (!values.ok) return values;
  const order = stepOrder(workflow);
  if (!order.ok) return order;
  const jobs: StepJob[] = [];
  const indexes = new Map<string, number[]>();
  for (const step of order.value) {
    const mine: number[] = [];
    const dependsOn = step.needs.flatMap((need) => (indexes.get(need.step) ?? []).map((index) => ({ index, on: need.on })));
    for (const combination of combinations(step.matrix)) {
      const template = { name: step.name, queue: step.queue, kind: step.kind, payload: step.payload, options: step.options, params: {} };
      const job: EnqueueParams = { queue: step.queue, ...jobTemplateOf(template, { ...values.value, ...combination }) };
      const entry: StepJob = { step: step.name, label: step.name, job, dependsOn };
      if (step.matrix !== undefined) {
        entry.matrix = combination;
        entry.label = `${step.name} (${Object.values(combination).join(', ')})`;
      }
      mine.push(jobs.length);
      jobs.push(entry);
    }
    indexes.set(step.name, mine);
  }
  return parsed(jobs);
}

/** What ordering steps looks at: their names and needs (a declared workflow, or a run's steps). */
interface StepsOf<S extends { name: string; needs: readonly { step: string }[] }> {
  name: string;
  steps: readonly S[];
}

/** The steps, each after those it needs; refused on a cycle or an unknown step. */
function stepOrder<S extends { name: string; needs: readonly { step: string }[] }>(workflow: StepsOf<S>): Parsed<S[]> {
  const names = new Set(workflow.steps.map((s) => s.name));
  const placed = new Set<string>();
  const out: S[] = [];
  let left = [...workflow.steps];
  while (left.length > 0) {
    const ready = left.filter((s) => s.needs.every((n) => placed.has(n.step)));
    if (ready.length === 0) {
      const unknown = left.flatMap((s) => s.needs.filter((n) => !names.has(n.step)).map((n) => `${s.name} needs "${n.step}"`));
      return refused(`workflow "${workflow.name}" cannot be run: ${unknown.length > 0 ? `${unknown.join(', ')}, which it does not have` : `its steps ${left.map((s) => s.name).join(', ')} wait for each other`}`);
    }
    for (const s of ready) {
      placed.add(s.name);
      out.push(s);
    }
    left = left.filter((s) => !placed.has(s.name));
  }
  return parsed(out);
}

/** Every combination of a matrix's values, the first variable varying slowest; one empty one without a matrix. */
function combinations(matrix: Record<string, string[]> | undefined): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const [name, values] of Object.entries(matrix ?? {})) out = out.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
  return out;
}

/**
 * Each step's stage: 1 for a step that needs none, else one more than the latest stage of the
 * steps it needs — the column a graph drawn left to right puts it in. A step in a cycle or
 * needing an unknown step (a file with errors) gets no stage. Takes a declared workflow, or the
 * steps a run was made from (`WorkflowRunDetail`).
 */
export function stepStages(workflow: StepsOf<{ name: string; needs: readonly { step: string }[] }>): Map<string, number> {
  const stages = new Map<string, number>();
  const order = stepOrder(workflow);
  if (!order.ok) return stages;
  for (const step of order.value) stages.set(step.name, 1 + Math.max(0, ...step.needs.map((n) => stages.get(n.step) ?? 0)));
  return stages;
}

/** How many jobs a step makes: the product of its matrix lists' lengths, 1 without a matrix. */
export function stepJobCount(step: DeclaredWorkflow['steps'][number]): number {
  return Object.values(step.matrix ?? {}).reduce((n, values) => n * values.length, 1);
}
