/**
 * `planChanges`: what apply would do, from the declaration and what a daemon has. Pure, so
 * `spool plan`, the daemon's apply (which plans again inside its transaction) and the language
 * server's "Apply (N changes)" lens give the same answer.
 *
 * The rules, in the words of docs/jobs-as-code.md:
 * - a declared object the daemon lacks is created; one this project owns is updated when a
 *   declared field differs, else unchanged. Only the fields the file declares are compared: a
 *   queue setting the file leaves out is not managed.
 * - an object this project owns that the file no longer declares is deleted (a schedule or
 *   template whose body reappears under a new name is noted as renamed).
 * - objects no project owns are listed as unmanaged and never touched — except a queue the file
 *   declares: queues are made on first use, so the file adopts it (an update that records the
 *   owner). A hand-made schedule or template, or anything another project owns, under a name the
 *   file declares is a conflict: apply must refuse until one of them is renamed or removed.
 * - drift: an owned object whose current value differs from what was last applied, i.e. it was
 *   changed by hand; the next apply puts the file's value back.
 */
import { effectiveBackoff, formatBackoff, BACKOFF_STRATEGIES } from '../domain/backoff';
import { formatDuration } from '../domain/durations';
import { formatRate } from '../domain/rates';
import { isRecord } from '../domain/records';
import type { Backoff, Queue, Schedule } from '../protocol/types';
import { OBJECT_TYPES, type Declaration, type DeclaredSchedule, type DeclaredTemplate, type DeclaredWorkflow, type ObjectType, type OverlapPolicy, type QueueSettings } from './model';
import type { QueueState, TemplateState, ScheduleState, WorkflowState, LiveObject, LiveState, FieldChange, ChangeAction, Change, Drift, Conflict, Plan } from '../protocol/projects';

export type { QueueState, TemplateState, ScheduleState, WorkflowState, LiveObject, LiveState, FieldChange, ChangeAction, Change, Drift, Conflict, Plan };

/** The plan of `declared` against `live`: see the module comment. */
export function planChanges(declared: Declaration, live: LiveState): Plan {
  const plan: Plan = { project: declared.project, changes: [], unmanaged: [], drift: [], conflicts: [] };
  const byKey = new Map<string, LiveObject>();
  for (const object of live.objects) byKey.set(`${object.type}\u0000${object.name}`, object);
  const declaredKeys = new Set<string>();

  for (const type of OBJECT_TYPES) {
    const creates: Change[] = [];
    const deletes: Change[] = [];
    const bodies = new Map<Change, string>();
    for (const [name, want] of declaredOf(declared, type)) {
      const key = `${type}\u0000${name}`;
      declaredKeys.add(key);
      const have = byKey.get(key);
      if (have === undefined) {
        const change: Change = { action: 'create', type, name };
        creates.push(change);
        plan.changes.push(change);
        bodies.set(change, canonicalJson(want));
        continue;
      }
      const mine = have.owner === declared.project;
      const adopt = have.owner === undefined && type === 'queue';
      if (!mine && !adopt) {
        plan.conflicts.push(conflict(type, name, have.owner ?? null, declared.project));
        continue;
      }
      const current = liveView(have, 'current') ?? {};
      const fields = diff(want, current, type === 'queue', type === 'workflow');
      const change: Change = { action: fields.length > 0 || adopt ? 'update' : 'unchanged', type, name };
      if (fields.length > 0) change.fields = fields;
      const notes: string[] = [];
      if (adopt) {
        change.adopt = true;
        notes.push(`adopted: no project owned this queue (made on first use or by hand); apply records "${declared.project}" as its owner`);
      }
      const applied = liveView(have, 'applied');
      if (mine && applied !== null) {
        const drifted = diff(applied, current, type === 'queue', type === 'workflow');
        if (drifted.length > 0) {
          plan.drift.push({ type, name, fields: drifted.map((f) => ({ field: f.field, from: f.to, to: f.from })) });
          notes.push(`changed by hand since the last apply (${drifted.map((f) => f.field).join(', ')}); apply puts the file's value back`);
        }
      }
      if (notes.length > 0) change.note = notes.join('; ');
      plan.changes.push(change);
    }
    for (const object of live.objects) {
      if (object.type !== type || declaredKeys.has(`${type}\u0000${object.name}`)) continue;
      if (object.owner === undefined) plan.unmanaged.push({ type, name: object.name });
      if (object.owner !== declared.project) continue;
      const change: Change = { action: 'delete', type, name: object.name };
      if (object.type === 'queue' && (object.jobs ?? 0) > 0) {
        change.needsForce = true;
        change.note = `holds ${object.jobs} job${object.jobs === 1 ? '' : 's'}: apply deletes it only with --force`;
      }
      deletes.push(change);
      bodies.set(change, canonicalJson(liveView(object, 'applied') ?? liveView(object, 'current')));
    }
    deletes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (type !== 'queue') noteRenames(creates, deletes, bodies);
    plan.changes.push(...deletes);
  }
  return plan;
}

/** Whether apply would change anything (what `spool plan --exit-code` exits 2 for). */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'unchanged');
}

/** How many changes of each action the plan has ("Apply (3 changes)"). */
export function countChanges(plan: Plan): Record<ChangeAction, number> {
  const counts: Record<ChangeAction, number> = { create: 0, update: 0, delete: 0, unchanged: 0 };
  for (const c of plan.changes) counts[c.action]++;
  return counts;
}

/** A delete and a create of the same type and body: a rename, told on both. */
function noteRenames(creates: Change[], deletes: Change[], bodies: Map<Change, string>): void {
  const free = new Set(deletes);
  for (const create of creates) {
    const body = bodies.get(create);
    const match = [...free].find((d) => bodies.get(d) === body);
    if (match === undefined) continue;
    free.delete(match);
    create.renamedFrom = match.name;
    create.note = `renamed from "${match.name}" (a new ${create.type} with the same body; "${match.name}" is deleted)`;
    match.renamedTo = create.name;
    match.note = `renamed to "${create.name}"`;
  }
}

function conflict(type: ObjectType, name: string, owner: string | null, project: string): Conflict {
  const who = owner === null ? 'made by hand (no project owns it)' : `owned by project "${owner}"`;
  return {
    type,
    name,
    owner,
    message: `The ${type} "${name}" exists on the daemon, ${who}; project "${project}" does not own it and will not change it. Rename it in the file, or delete the existing ${type} first.`,
  };
}

/** The declared objects of one type, by name, as field views. */
function declaredOf(declared: Declaration, type: ObjectType): [string, Record<string, unknown>][] {
  if (type === 'queue') return declared.queues.map((q) => [q.name, queueView(q.settings)]);
  if (type === 'template') return declared.templates.map((t) => [t.name, defined(templateState(t))]);
  if (type === 'workflow') return (declared.workflows ?? []).map((w) => [w.name, workflowView(workflowState(w))]);
  return declared.schedules.map((s) => [s.name, defined(scheduleStateOfDeclared(s))]);
}

/** A queue's settings under the names the file uses; settings left out stay out (not managed). */
function queueView(q: QueueSettings): Record<string, unknown> {
  return defined({
    concurrency: q.concurrency,
    rateLimit: q.rateLimit,
    attempts: q.maxAttempts,
    backoff: q.backoff,
    timeout: q.timeoutMs,
    retention: q.retentionMs,
    paused: q.paused,
    groupConcurrency: q.groupConcurrency,
    groupRate: q.groupRate,
    groupWeights: q.groupWeights,
    retry: q.retry,
    expireAfter: q.expireAfterMs,
    ageing: q.ageing,
  });
}

/** The fields of a template or schedule, those absent left out. */
function defined(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out;
}

/** A live object's current or last-applied value as compared fields (null: none applied). */
function liveView(object: LiveObject, which: 'current' | 'applied'): Record<string, unknown> | null {
  if (object.type === 'queue') {
    const v = which === 'current' ? object.current : object.applied;
    return v === undefined ? null : queueView(v);
  }
  if (object.type === 'workflow') {
    const v = which === 'current' ? object.current : object.applied;
    return v === undefined ? null : workflowView(v);
  }
  const v = which === 'current' ? object.current : object.applied;
  return v === undefined ? null : defined(v);
}

/**
 * A workflow as compared fields: its description and parameters, and one field per step
 * (`steps.test`), so that an update names the steps it changes.
 */
function workflowView(w: WorkflowState): Record<string, unknown> {
  const out: Record<string, unknown> = defined({ description: w.description, params: w.params });
  for (const step of w.steps) {
    const { name, ...rest } = step;
    out[`steps.${name}`] = defined(rest);
  }
  // The order of the steps is the order a run creates their jobs in: a change of it is a change.
  out['order'] = w.steps.map((s) => s.name);
  return out;
}

/** A declared workflow as the daemon records it. */
export function workflowState(w: DeclaredWorkflow): WorkflowState {
  const { name: _name, ...state } = w;
  return state;
}

/** A declared template as the daemon records it. */
export function templateState(t: DeclaredTemplate): TemplateState {
  const { name: _name, ...state } = t;
  return state;
}

/** A declared schedule as the daemon records it: everything but its name. */
function scheduleStateOfDeclared(s: DeclaredSchedule): ScheduleState {
  const { name: _name, ...state } = s;
  return state;
}

/**
 * The fields of `want` that `have` does not match, `from` the daemon's value `to` the file's.
 * `partialBackoff`: a queue's backoff is declared in part, so only its given parts are compared.
 */
function diff(want: Record<string, unknown>, have: Record<string, unknown>, partialBackoff: boolean, whole = false): FieldChange[] {
  const out: FieldChange[] = [];
  // A workflow is managed whole: a step (or description) the file no longer has is a change too.
  if (whole) for (const [field, from] of Object.entries(have)) if (!(field in want)) out.push({ field, from, to: null });
  for (const [field, to] of Object.entries(want)) {
    let from = have[field];
    if (partialBackoff && field === 'backoff' && isRecord(to) && isRecord(from)) {
      const picked: Record<string, unknown> = {};
      for (const k of Object.keys(to)) picked[k] = from[k];
      if (canonicalJson(to) === canonicalJson(picked)) continue;
      // Shown whole, as it will be in effect: "fixed:10s" keeps the queue's cap and jitter.
      const whole = backoffOf(from);
      const given = backoffOf({ ...from, ...to });
      if (whole !== null && given !== null) {
        out.push({ field, from: whole, to: effectiveBackoff(given, whole) });
        continue;
      }
      from = picked;
    }
    // Where a schedule came from is compared only when the daemon recorded it.
    if ((field === 'template' || field === 'params') && from === undefined && !(field in have)) continue;
    if (canonicalJson(to) !== canonicalJson(from)) out.push({ field, from: from ?? null, to });
  }
  return out;
}

/**
 * JSON with object keys sorted at every level: two equal values give the same text, so it can be
 * compared or hashed (what a daemon stores as the last-applied value's fingerprint).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (value[key] !== undefined) out[key] = sortKeys(value[key]);
    }
    return out;
  }
  return value;
}

/** A protocol Queue's managed settings, for a daemon building its LiveObjects. */
export function queueState(q: Queue): QueueState {
  return {
    concurrency: q.concurrency,
    rateLimit: q.rateLimit,
    maxAttempts: q.defaultMaxAttempts,
    backoff: q.defaultBackoff,
    timeoutMs: q.defaultTimeoutMs,
    retentionMs: q.retentionMs,
    paused: q.paused,
    groupConcurrency: q.groupConcurrency,
    groupRate: q.groupRate,
    groupWeights: q.groupWeights,
    retry: q.retry ?? null,
    expireAfterMs: q.defaultExpireAfterMs ?? null,
    ageing: q.ageing ?? null,
  };
}

/** A protocol Schedule in the declaration's shape; what the schedule record alone does not hold comes from `extra`. */
export function scheduleState(s: Schedule, extra: { overlapPolicy?: OverlapPolicy; template?: string; params?: Record<string, string>; workflow?: string } = {}): ScheduleState {
  const state: ScheduleState = {
    cron: s.cron,
    timezone: s.timezone,
    enabled: s.enabled,
    missedPolicy: s.missedPolicy,
    overlapPolicy: extra.overlapPolicy ?? 'allow',
    queue: s.queue,
    job: s.job,
  };
  if (extra.template !== undefined) state.template = extra.template;
  if (extra.params !== undefined) state.params = extra.params;
  if (extra.workflow !== undefined) state.workflow = extra.workflow;
  return state;
}

/** A whole backoff as a plan's field holds it, or null when a part is missing. */
function backoffOf(value: Record<string, unknown>): Backoff | null {
  const strategy = BACKOFF_STRATEGIES.find((s) => s === value['strategy']);
  const { baseMs, capMs, jitter } = value;
  if (strategy === undefined || typeof baseMs !== 'number' || typeof capMs !== 'number' || typeof jitter !== 'number') return null;
  return { strategy, baseMs, capMs, jitter };
}

/** A field's value as the file writes it, for a plan printed to people ("30s", "10/s burst 20"). */
export function formatFieldValue(field: string, value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number' && (field === 'timeout' || field === 'retention' || field === 'expireAfter')) return formatDuration(value);
  if (field === 'groupWeights' && isRecord(value)) return Object.entries(value).map(([k, w]) => `${k}=${String(w)}`).join(',');
  if ((field === 'rateLimit' || field === 'groupRate') && isRecord(value) && typeof value['perSecond'] === 'number' && typeof value['burst'] === 'number') {
    return formatRate({ perSecond: value['perSecond'], burst: value['burst'] });
  }
  if (field === 'backoff' && isRecord(value)) {
    const whole = backoffOf(value);
    if (whole !== null) return formatBackoff(whole);
    const strategy = BACKOFF_STRATEGIES.find((s) => s === value['strategy']);
    const parts = [strategy ?? String(value['strategy'] ?? '?')];
    if (typeof value['baseMs'] === 'number') parts.push(formatDuration(value['baseMs']));
    if (typeof value['capMs'] === 'number') parts.push(formatDuration(value['capMs']));
    return parts.join(':');
  }
  return typeof value === 'string' ? value : canonicalJson(value);
}
