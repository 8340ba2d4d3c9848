/**
 * Jobs as code, the engine's half: what a store holds turned into the `LiveObject`s a plan is
 * made against, and an apply's decision — the plan, the refusals, and the writes — made from
 * what the store read inside the apply's transaction. Synchronous and without I/O, so the SQLite
 * store can run it inside its transaction (see applyProject in ./ops/projects.ts).
 */
import { SpoolError, errorMessage } from '../../shared/protocol/errors';
import { nextFireTime } from '../../shared/domain/cron';
import {
  canonicalJson,
  planChanges,
  queueState,
  scheduleState,
  templateState,
  workflowState,
  type Declaration,
  type DeclaredSchedule,
  type DeclaredTemplate,
  type LiveObject,
  type Plan,
  type QueueSettings,
  type ScheduleState,
  type TemplateState,
  type WorkflowState,
} from '../../shared/jobsfile';
import { ErrorCode, type ApplyProjectResult, type Template } from '../../shared/protocol';
import { planHash } from '../../shared/jobsfile';
import type { Schedule } from '../../shared/protocol/types';
import type { Queue } from '../../shared/protocol/types';
import type { OverlapPolicy } from '../../shared/jobsfile';
import type { Ownership, StoredTemplate } from '../storage/statements/projects';
import type { StoredWorkflow } from '../storage/statements/workflows';
import { workflowStateOf } from '../../shared/domain/rules/workflows';
import type { ConfigureInput } from './validate/queues';
import type { ScheduleInput } from './validate/schedules';
import * as vd from '../../shared/domain/rules/declaration';
import { ageingValue } from '../../shared/domain/rules/queues';

/** Everything a plan is made against: every queue, template and schedule, and every ownership record. */
export interface ProjectObjects {
  queues: Queue[];
  templates: StoredTemplate[];
  workflows: StoredWorkflow[];
  schedules: Schedule[];
  owned: Ownership[];
}

/** A schedule as apply writes it: its fields, where its job came from, its overlap policy. */
export interface ScheduleDeclared extends ScheduleInput {
  overlapPolicy: OverlapPolicy;
  template: string;
  params: Record<string, string>;
  /** The workflow a fire starts a run of, instead of enqueueing the job. */
  workflow?: string;
}

/**
 * One write of an apply, decided by the engine from what the store read in the same
 * transaction. A `put` creates the object or changes it, and records `project` as its owner and
 * `applied` as what it declared.
 */
export type ApplyWrite =
  | { type: 'queue'; action: 'put'; name: string; settings: ConfigureInput; paused: boolean | undefined; project: string; applied: string }
  /** Deletes the queue; with `force` its waiting and finished jobs first. Running jobs refuse it (InvalidState). */
  | { type: 'queue'; action: 'delete'; name: string; force: boolean }
  | { type: 'template'; action: 'put'; name: string; queue: string; kind: string; body: string; project: string; applied: string }
  | { type: 'template'; action: 'delete'; name: string }
  | { type: 'workflow'; action: 'put'; name: string; body: string; project: string; applied: string }
  | { type: 'workflow'; action: 'delete'; name: string }
  /** `nextRunAt` undefined keeps the stored next fire time (the cron, zone and enabled did not change). */
  | { type: 'schedule'; action: 'put'; schedule: ScheduleDeclared; nextRunAt: number | null | undefined; project: string; applied: string }
  | { type: 'schedule'; action: 'delete'; name: string };

/** What the engine decided, from what the store read: the writes, and what the call answers. */
export interface ApplyDecision<T> {
  writes: ApplyWrite[];
  result: T;
}

/** What an apply was asked, validated. */
export interface ApplyInput {
  declaration: Declaration;
  force: boolean;
  expected: string | undefined;
}

/** The stored text of a value apply wrote, read back with the validation its input had. */
function parsed<T>(text: string, what: string, check: (value: unknown, field: string) => T): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The stored ${what} is not JSON (${errorMessage(error)}); apply the jobs file again to rewrite it.`);
  }
  return check(value, what);
}

/** A stored template as the protocol's record. */
export function templateRecord(stored: StoredTemplate, owner: string | undefined): Template {
  const state = parsed(stored.body, `template "${stored.name}"`, vd.templateStateOf);
  const template: Template = { name: stored.name, ...state, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
  if (owner !== undefined) template.owner = owner;
  return template;
}

/** A stored template as the declaration it was made from. */
export function declaredTemplate(stored: StoredTemplate): DeclaredTemplate {
  return { name: stored.name, ...parsed(stored.body, `template "${stored.name}"`, vd.templateStateOf) };
}

/** A stored workflow as the declaration it was made from. */
export function declaredWorkflow(stored: StoredWorkflow): WorkflowState & { name: string } {
  return { name: stored.name, ...parsed(stored.body, `workflow "${stored.name}"`, workflowStateOf) };
}

/** A stored schedule's last-applied value (a declared schedule without its name). */
function scheduleApplied(value: unknown, field: string): ScheduleState {
  const withName = typeof value === 'object' && value !== null ? { ...value, name: 'applied' } : value;
  const { name: _name, ...state } = vd.declaredScheduleOf(withName, field);
  return state;
}

/** Every object the store holds, as a plan compares them. */
export function liveObjects(objects: ProjectObjects): LiveObject[] {
  const owned = new Map<string, Ownership>();
  for (const o of objects.owned) owned.set(`${o.type}\u0000${o.name}`, o);
  const ownership = (type: Ownership['type'], name: string): Ownership | undefined => owned.get(`${type}\u0000${name}`);
  const out: LiveObject[] = [];
  for (const q of objects.queues) {
    const o = ownership('queue', q.name);
    const jobs = Object.values(q.counts).reduce((a, b) => a + b, 0);
    const live: LiveObject = { type: 'queue', name: q.name, current: queueState(q), jobs };
    if (o !== undefined) {
      live.owner = o.project;
      live.applied = parsed<QueueSettings>(o.applied, `applied settings of queue "${q.name}"`, vd.queueSettings);
    }
    out.push(live);
  }
  for (const t of objects.templates) {
    const o = ownership('template', t.name);
    const live: LiveObject = { type: 'template', name: t.name, current: parsed(t.body, `template "${t.name}"`, vd.templateStateOf) };
    if (o !== undefined) {
      live.owner = o.project;
      live.applied = parsed<TemplateState>(o.applied, `applied template "${t.name}"`, vd.templateStateOf);
    }
    out.push(live);
  }
  for (const w of objects.workflows) {
    const o = ownership('workflow', w.name);
    const live: LiveObject = { type: 'workflow', name: w.name, current: parsed(w.body, `workflow "${w.name}"`, workflowStateOf) };
    if (o !== undefined) {
      live.owner = o.project;
      live.applied = parsed<WorkflowState>(o.applied, `applied workflow "${w.name}"`, workflowStateOf);
    }
    out.push(live);
  }
  for (const s of objects.schedules) {
    const o = ownership('schedule', s.name);
    const live: LiveObject = { type: 'schedule', name: s.name, current: scheduleState(s, scheduleExtra(s)) };
    if (o !== undefined) {
      live.owner = o.project;
      live.applied = parsed<ScheduleState>(o.applied, `applied schedule "${s.name}"`, scheduleApplied);
    }
    out.push(live);
  }
  return out;
}

function scheduleExtra(s: Schedule): Parameters<typeof scheduleState>[1] {
  const extra: Parameters<typeof scheduleState>[1] = { overlapPolicy: s.overlapPolicy ?? 'allow' };
  if (s.template !== undefined) extra.template = s.template;
  if (s.params !== undefined) extra.params = s.params;
  if (s.workflow !== undefined) extra.workflow = s.workflow;
  return extra;
}

/**
 * The decision of an apply, from what the store read in its transaction: the plan, refused as a
 * whole if it has conflicts, deletes a queue with jobs without `force`, or differs from what
 * the person saw; else the writes that carry it out.
 */
export function decideApply(input: ApplyInput, objects: ProjectObjects, now: number): ApplyDecision<ApplyProjectResult> {
  const { declaration } = input;
  const plan = planChanges(declaration, { objects: liveObjects(objects) });
  const hash = planHash(plan);
  refuse(plan, input, hash);
  const project = declaration.project;
  const owned = new Map<string, Ownership>();
  for (const o of objects.owned) owned.set(`${o.type}\u0000${o.name}`, o);
  const schedules = new Map(objects.schedules.map((s) => [s.name, s]));
  const byChange = new Map(plan.changes.map((c) => [`${c.type}\u0000${c.name}`, c]));
  const writes: ApplyWrite[] = [];
  // A declared object is written when the plan changes it, or when its ownership record does not
  // hold what the file declares (a hand change that matched the file): the record then moves to
  // the file's value and the next plan reports no drift.
  const needsWrite = (type: Ownership['type'], name: string, applied: string): boolean => {
    const change = byChange.get(`${type}\u0000${name}`);
    return change !== undefined && (change.action !== 'unchanged' || owned.get(`${type}\u0000${name}`)?.applied !== applied);
  };
  for (const q of declaration.queues) {
    const applied = canonicalJson(q.settings);
    if (!needsWrite('queue', q.name, applied)) continue;
    const s = q.settings;
    writes.push({
      type: 'queue',
      action: 'put',
      name: q.name,
      settings: {
        name: q.name,
        concurrency: s.concurrency,
        rateLimit: s.rateLimit,
        defaultMaxAttempts: s.maxAttempts,
        defaultBackoff: s.backoff,
        defaultTimeoutMs: s.timeoutMs,
        retentionMs: s.retentionMs,
        // The jobs file does not declare shell resource limits (yet): apply leaves a queue's as they are.
        limits: undefined,
        groupConcurrency: s.groupConcurrency,
        groupRate: s.groupRate,
        groupWeights: s.groupWeights,
        ...(s.retry === undefined ? {} : { retry: s.retry }),
        ...(s.expireAfterMs === undefined ? {} : { defaultExpireAfterMs: s.expireAfterMs }),
        ...(s.ageing === undefined ? {} : { ageing: s.ageing === null ? null : ageingValue(s.ageing, 'ageing') }),
      },
      paused: s.paused,
      project,
      applied,
    });
  }
  for (const t of declaration.templates) {
    const body = canonicalJson(templateState(t));
    if (!needsWrite('template', t.name, body)) continue;
    writes.push({ type: 'template', action: 'put', name: t.name, queue: t.queue, kind: t.kind, body, project, applied: body });
  }
  for (const w of declaration.workflows ?? []) {
    const body = canonicalJson(workflowState(w));
    if (!needsWrite('workflow', w.name, body)) continue;
    writes.push({ type: 'workflow', action: 'put', name: w.name, body, project, applied: body });
  }
  for (const s of declaration.schedules) {
    const applied = canonicalJson(withoutName(s));
    if (!needsWrite('schedule', s.name, applied)) continue;
    writes.push({ type: 'schedule', action: 'put', schedule: s, nextRunAt: nextRun(s, schedules.get(s.name), now), project, applied });
  }
  for (const change of plan.changes) {
    if (change.action !== 'delete') continue;
    if (change.type === 'queue') writes.push({ type: 'queue', action: 'delete', name: change.name, force: input.force });
    else writes.push({ type: change.type, action: 'delete', name: change.name });
  }
  const applied = plan.changes.some((c) => c.action !== 'unchanged');
  return { writes, result: { changes: plan.changes, applied, hash, unmanaged: plan.unmanaged, drift: plan.drift } };
}

function withoutName(s: DeclaredSchedule): Omit<DeclaredSchedule, 'name'> {
  const { name: _name, ...rest } = s;
  return rest;
}

/**
 * The next fire time to store: from now when the schedule is new, or its cron or zone changed,
 * or it is being enabled (a changed cron never fires at once: the next time strictly after now);
 * undefined keeps the stored one.
 */
function nextRun(s: DeclaredSchedule, current: Schedule | undefined, now: number): number | null | undefined {
  if (!s.enabled) return null;
  const fresh = current === undefined || current.cron !== s.cron || current.timezone !== s.timezone || !current.enabled || current.nextRunAt === null;
  return fresh ? nextFireTime({ cron: s.cron, timezone: s.timezone }, now) : undefined;
}

function refuse(plan: Plan, input: ApplyInput, hash: string): void {
  const project = input.declaration.project;
  if (plan.conflicts.length > 0) {
    throw new SpoolError(ErrorCode.InvalidState, `Nothing was applied: ${plan.conflicts.map((c) => c.message).join(' ')}`, { project });
  }
  if (input.expected !== undefined && input.expected !== hash) {
    throw new SpoolError(
      ErrorCode.InvalidState,
      `Nothing was applied: the daemon's objects changed since the plan you saw (another apply, or a change by hand). Run \`spool plan\` again and review it.`,
      { project },
    );
  }
  const forced = plan.changes.filter((c) => c.needsForce);
  if (forced.length > 0 && !input.force) {
    const names = forced.map((c) => `"${c.name}"`).join(', ');
    throw new SpoolError(
      ErrorCode.InvalidState,
      `Nothing was applied: the file no longer declares queue${forced.length === 1 ? '' : 's'} ${names}, which still hold${forced.length === 1 ? 's' : ''} jobs. Apply with --force (force: true) to delete ${forced.length === 1 ? 'it' : 'them'} and ${forced.length === 1 ? 'its' : 'their'} jobs, or purge ${forced.length === 1 ? 'it' : 'them'} first.`,
      { project, queue: forced[0]?.name ?? '' },
    );
  }
}
