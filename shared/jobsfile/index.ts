/**
 * Jobs as code: the pure core of `spool.jsonc` that the CLI (`spool plan`, `apply`, `run`), the
 * daemon's apply and the language server share. No I/O: text and live data in, values out.
 *
 * - `model.ts`: the normalized declaration and the problems;
 * - `spec.ts`: every field of the file, declared once (checks, schema and docs derive from it);
 * - `parse.ts`: `parseJobsFile`, with problems at exact ranges;
 * - `params.ts`: `{{name}}` placeholders and `templateToJob`;
 * - `workflows.ts`: the workflows' steps and the checks across them (needs, cycles, matrices);
 * - `workflowJobs.ts`: `workflowJobs`, a workflow and a run's values turned into its jobs;
 * - `plan.ts`: `planChanges`, the diff of a declaration against what a daemon has;
 * - `schema.ts`: the JSON Schema generated from the spec;
 * - `format.ts`: problems as a terminal prints them.
 */
export * from './model';
export * from './positions';
export { MAX_DEPTH, OBJECT_SPECS, parseJobsFile } from './parse';
export { pathText } from './check';
export { jobTemplateOf, placeholderNames, placeholders, resolveParams, substitute, templateToJob, type Placeholder } from './params';
export { formatProblem } from './format';
export { resolveWorkflowParams, stepJobCount, stepStages, workflowJobs, type StepJob } from './workflowJobs';
export { fieldAt, FILE_SPEC, NEED_SPEC, PARAM_NAME, QUEUE_SPEC, SCHEDULE_SPEC, STEP_SPEC, TEMPLATE_SPEC, WORKFLOW_SPEC, type FieldSpec, type KindGroup, type KeyRule, type ObjectSpec } from './spec';
export { closest, knownTimezones, suggestTimezone } from './suggest';
export {
  canonicalJson,
  countChanges,
  formatFieldValue,
  hasChanges,
  planChanges,
  queueState,
  scheduleState,
  templateState,
  workflowState,
  type Change,
  type ChangeAction,
  type Conflict,
  type Drift,
  type FieldChange,
  type LiveObject,
  type LiveState,
  type Plan,
  type QueueState,
  type ScheduleState,
  type TemplateState,
  type WorkflowState,
} from './plan';
export { planHash } from './planHash';
export { PLAIN, planText, type PlanPaint, type PlanTextOptions } from './planText';
export { jobsFileSchema, type JsonSchema } from './schema';
