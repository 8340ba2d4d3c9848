/**
 * Validation of a jobs file's declaration as `project.apply` receives it (shared/jobsfile's
 * `Declaration`: what `parseJobsFile` made of the file). The client parsed the file, but the
 * daemon trusts no client: every field is checked again here, with the same limits as the
 * methods that make the same objects by hand, and a refusal names the field by its path under
 * `file` ("file.schedules[2].cron"). The same functions read back what an apply stored, so a
 * stored value that no longer passes is an error rather than a wrong plan.
 */
import { invalidParams, errorMessage } from '../../protocol/errors';
import { validateCron } from '../cron';
import { array, boolean, join, jsonText, name, object, oneOf, requiredObject, string } from '../validate';
import { MISSED_POLICIES, OVERLAP_POLICIES, PARAM_NAME, PARAM_NAME_RULE } from './declared';
import type { JobTemplate } from '../../protocol/types';
import type { Declaration, DeclaredQueue, DeclaredSchedule, DeclaredTemplate, QueueSettings, TemplateParam, TemplateState } from '../../protocol/projects';
import { LIMITS } from '../../protocol';
import { maxAttempts, partialBackoff, timeoutMs } from './jobs';
import { DEFAULT_TIMEZONE, MAX_CONCURRENCY, MAX_CRON_LENGTH, MAX_DESCRIPTION_LENGTH } from './limits';
import { rateLimit } from './queues';
import { jobTemplate, timezone } from './schedules';
import { declaredWorkflowOf } from './workflows';
import { anyKeys, jobOptionsOf, paramValues } from './declaredFields';
import { optionalRetryRule } from './retry';
import { ageingValue, groupWeights } from './queues';
import { formatAgeing } from '../ageing';

export { jobOptionsOf, paramValues };

/** The most objects of each type one declaration may hold: a file is reviewed by people. */
export const MAX_OBJECTS_PER_TYPE = 10_000;

const QUEUE_FIELDS = ['concurrency', 'rateLimit', 'maxAttempts', 'backoff', 'timeoutMs', 'retentionMs', 'paused', 'retry', 'expireAfterMs', 'ageing', 'groupConcurrency', 'groupRate', 'groupWeights'] as const;

/** A whole declaration; `field` is where it sits in the params ("file"). */
export function declaration(value: unknown, field: string): Declaration {
  const o = requiredObject(value, field, ['project', 'queues', 'templates', 'workflows', 'schedules']);
  const queues = list(o['queues'], join(field, 'queues'), declaredQueue);
  const templates = list(o['templates'], join(field, 'templates'), declaredTemplate);
  const workflows = o['workflows'] === undefined ? undefined : list(o['workflows'], join(field, 'workflows'), declaredWorkflowOf);
  const schedules = list(o['schedules'], join(field, 'schedules'), declaredScheduleOf);
  const templateNames = new Set(templates.map((t) => t.name));
  const workflowNames = new Set((workflows ?? []).map((w) => w.name));
  schedules.forEach((s, i) => {
    if (s.workflow !== undefined) {
      if (!workflowNames.has(s.workflow)) {
        throw invalidParams(`${field}.schedules[${i}].workflow`, `${field}.schedules[${i}].workflow names "${s.workflow}", which the file does not declare under workflows.`, 'a declared workflow');
      }
      return;
    }
    if (!templateNames.has(s.template)) {
      throw invalidParams(`${field}.schedules[${i}].template`, `${field}.schedules[${i}].template names "${s.template}", which the file does not declare under templates.`, 'a declared template');
    }
  });
  const declared: Declaration = { project: name(o['project'], join(field, 'project')), queues, templates, schedules };
  if (workflows !== undefined) declared.workflows = workflows;
  return declared;
}

/** An array of named objects, each checked, no name twice. */
function list<T extends { name: string }>(value: unknown, field: string, check: (value: unknown, field: string) => T): T[] {
  const items = value === undefined ? [] : array(value, field, MAX_OBJECTS_PER_TYPE).map((item, i) => check(item, `${field}[${i}]`));
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name)) throw invalidParams(`${field}[${i}].name`, `${field}[${i}].name "${item.name}" is declared twice; each name appears once.`, 'a unique name');
    seen.add(item.name);
  });
  return items;
}

function declaredQueue(value: unknown, field: string): DeclaredQueue {
  const o = requiredObject(value, field, ['name', 'settings']);
  return { name: name(o['name'], join(field, 'name')), settings: queueSettings(o['settings'] ?? {}, join(field, 'settings')) };
}

/** A queue's declared settings (only those given). */
export function queueSettings(value: unknown, field: string): QueueSettings {
  const o = object(value, field, QUEUE_FIELDS);
  const s: QueueSettings = {};
  const c = o['concurrency'];
  if (c !== undefined) s.concurrency = c === null ? null : integerIn(c, join(field, 'concurrency'), 1, MAX_CONCURRENCY);
  if (o['rateLimit'] !== undefined) s.rateLimit = rateLimit(o['rateLimit'], join(field, 'rateLimit'));
  if (o['maxAttempts'] !== undefined) s.maxAttempts = maxAttempts(o['maxAttempts'], join(field, 'maxAttempts'));
  if (o['backoff'] !== undefined) s.backoff = partialBackoff(o['backoff'], join(field, 'backoff'));
  if (o['timeoutMs'] !== undefined) s.timeoutMs = timeoutMs(o['timeoutMs'], join(field, 'timeoutMs'));
  const r = o['retentionMs'];
  if (r !== undefined) s.retentionMs = r === null ? null : integerIn(r, join(field, 'retentionMs'), 0, LIMITS.maxDurationMs);
  if (o['paused'] !== undefined) s.paused = boolean(o['paused'], join(field, 'paused'));
  const retry = optionalRetryRule(o['retry'], join(field, 'retry'));
  if (retry !== undefined) s.retry = retry;
  const e = o['expireAfterMs'];
  if (e !== undefined) s.expireAfterMs = e === null ? null : integerIn(e, join(field, 'expireAfterMs'), 1, LIMITS.maxDurationMs);
  const gc = o['groupConcurrency'];
  if (gc !== undefined) s.groupConcurrency = gc === null ? null : integerIn(gc, join(field, 'groupConcurrency'), 1, MAX_CONCURRENCY);
  if (o['groupRate'] !== undefined) s.groupRate = rateLimit(o['groupRate'], join(field, 'groupRate'));
  const gw = o['groupWeights'];
  if (gw !== undefined) s.groupWeights = gw === null ? null : groupWeights(gw, join(field, 'groupWeights'));
  if (o['ageing'] !== undefined) {
    const ageing = o['ageing'] === null ? null : ageingValue(o['ageing'], join(field, 'ageing'));
    s.ageing = ageing === null ? null : formatAgeing(ageing);
  }
  return s;
}

function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidParams(field, `${field} must be an integer from ${min} to ${max}, or null`, `${min}..${max} or null`);
  }
  return value;
}

function declaredTemplate(value: unknown, field: string): DeclaredTemplate {
  const o = requiredObject(value, field, ['name', 'queue', 'kind', 'payload', 'options', 'params', 'description']);
  return { name: name(o['name'], join(field, 'name')), ...templateStateOf(stripName(o), field) };
}

function stripName(o: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...rest } = o;
  return rest;
}

/** A template without its name: what the daemon stores. */
export function templateStateOf(value: unknown, field: string): TemplateState {
  const o = requiredObject(value, field, ['queue', 'kind', 'payload', 'options', 'params', 'description']);
  // The payload keeps its {{placeholders}}: it is checked for size here, and for its kind once
  // substituted, when a job is made of it.
  jsonText(o['payload'] ?? null, join(field, 'payload'));
  const state: TemplateState = {
    queue: name(o['queue'], join(field, 'queue')),
    kind: name(o['kind'], join(field, 'kind')),
    payload: o['payload'] ?? null,
    options: jobOptionsOf(o['options'] ?? {}, join(field, 'options'), true),
    params: templateParams(o['params'] ?? {}, join(field, 'params')),
  };
  if (o['description'] !== undefined) state.description = string(o['description'], join(field, 'description'), MAX_DESCRIPTION_LENGTH);
  return state;
}


function templateParams(value: unknown, field: string): Record<string, TemplateParam> {
  const out: Record<string, TemplateParam> = {};
  for (const [key, raw] of Object.entries(anyKeys(value, field))) {
    const f = join(field, key);
    if (!PARAM_NAME.test(key)) throw invalidParams(f, `${f}: a parameter name is ${PARAM_NAME_RULE}`, PARAM_NAME.source);
    const p = object(raw, f, ['default', 'description']);
    const param: TemplateParam = {};
    if (p['default'] !== undefined) param.default = string(p['default'], join(f, 'default'), LIMITS.maxPayloadBytes);
    if (p['description'] !== undefined) param.description = string(p['description'], join(f, 'description'), MAX_DESCRIPTION_LENGTH);
    out[key] = param;
  }
  return out;
}



/**
 * What a schedule that starts a workflow holds in place of a template's queue and job: a fire
 * starts a run instead, so they are not used (the store's columns still need a value).
 */
export const WORKFLOW_SCHEDULE_JOB: { queue: string; job: JobTemplate } = { queue: '', job: { kind: 'workflow' } };

/** A declared schedule, its job resolved; one that starts a workflow names it instead of a template. */
export function declaredScheduleOf(value: unknown, field: string): DeclaredSchedule {
  const o = requiredObject(value, field, ['name', 'cron', 'timezone', 'template', 'workflow', 'params', 'enabled', 'missedPolicy', 'overlapPolicy', 'queue', 'job']);
  const workflow = o['workflow'] === undefined ? undefined : name(o['workflow'], join(field, 'workflow'));
  if (workflow !== undefined && o['template'] !== undefined && o['template'] !== '') {
    throw invalidParams(join(field, 'template'), `${join(field, 'template')}: a schedule gives either a template or a workflow, not both.`, 'a template or a workflow');
  }
  if (workflow === undefined && o['template'] === undefined) {
    throw invalidParams(join(field, 'template'), `${join(field, 'template')} is required: the template the schedule enqueues (or give "workflow" for a workflow it starts).`, 'a template or a workflow');
  }
  const schedule: DeclaredSchedule = {
    name: name(o['name'], join(field, 'name')),
    cron: string(o['cron'], join(field, 'cron'), MAX_CRON_LENGTH, 1),
    timezone: o['timezone'] === undefined ? DEFAULT_TIMEZONE : timezone(o['timezone'], join(field, 'timezone')),
    template: workflow !== undefined ? '' : name(o['template'], join(field, 'template')),
    params: paramValues(o['params'] ?? {}, join(field, 'params')),
    enabled: o['enabled'] === undefined ? true : boolean(o['enabled'], join(field, 'enabled')),
    missedPolicy: o['missedPolicy'] === undefined ? 'skip' : oneOf(o['missedPolicy'], join(field, 'missedPolicy'), MISSED_POLICIES),
    overlapPolicy: o['overlapPolicy'] === undefined ? 'allow' : oneOf(o['overlapPolicy'], join(field, 'overlapPolicy'), OVERLAP_POLICIES),
    ...(workflow !== undefined
      ? { workflow, ...WORKFLOW_SCHEDULE_JOB }
      : { queue: name(o['queue'], join(field, 'queue')), job: jobTemplate(o['job'], join(field, 'job')) }),
  };
  try {
    validateCron({ cron: schedule.cron, timezone: schedule.timezone });
  } catch (error) {
    throw invalidParams(join(field, 'cron'), `${join(field, 'cron')}: ${errorMessage(error)}`, 'a cron expression');
  }
  return schedule;
}

/** `project.apply`'s params: the declaration (under `file`), and `project` must be its own. */
export function applyParams(value: unknown): { declaration: Declaration; force: boolean; expected: string | undefined } {
  const o = object(value, 'params', ['project', 'file', 'force', 'expected']);
  const project = name(o['project'], 'project');
  const declared = declaration(o['file'], 'file');
  if (declared.project !== project) {
    throw invalidParams('file.project', `file.project ("${declared.project}") must be the project the call names ("${project}").`, project);
  }
  return {
    declaration: declared,
    force: o['force'] === undefined ? false : boolean(o['force'], 'force'),
    expected: o['expected'] === undefined ? undefined : string(o['expected'], 'expected', 64, 1),
  };
}

/** `project.state`'s params. */
export function projectParams(value: unknown): string {
  return name(object(value, 'params', ['project'])['project'], 'project');
}

/** `templates.enqueue`'s params. */
export function enqueueTemplateParams(value: unknown): { name: string; params: Record<string, string>; project: string | undefined } {
  const o = object(value, 'params', ['name', 'params', 'project']);
  return {
    name: name(o['name'], 'name'),
    params: paramValues(o['params'] ?? {}, 'params'),
    project: o['project'] === undefined ? undefined : name(o['project'], 'project'),
  };
}
