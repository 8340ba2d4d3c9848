/**
 * Template parameters: finding `{{name}}` in a template's strings, and turning a template and
 * the values given for it into the job to enqueue. Placeholders are `{{name}}` (spaces inside
 * the braces allowed) where the name starts with a letter or "_"; anything else in double braces
 * (`{{.Names}}` in a docker command) is left as written.
 */
import { parsed, refused, type Parsed } from '../domain/parsed';
import type { EnqueueParams } from '../protocol';
import type { JobTemplate } from '../protocol/types';
import type { DeclaredTemplate } from './model';
import { closest } from './suggest';

/** One `{{name}}` in a string: the name, and where the braces start and end (end exclusive). */
export interface Placeholder {
  name: string;
  start: number;
  end: number;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The placeholders of `text`, in order. */
export function placeholders(text: string): Placeholder[] {
  const out: Placeholder[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    out.push({ name: m[1] ?? '', start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Every placeholder name used anywhere in `value` (strings of objects and arrays, not keys). */
export function placeholderNames(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const p of placeholders(value)) into.add(p.name);
  else if (Array.isArray(value)) for (const item of value) placeholderNames(item, into);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) placeholderNames(item, into);
  return into;
}

/**
 * `value` with every placeholder replaced by its value; a placeholder without one is left as
 * written (the checks report it before this runs). Object keys are never substituted.
 */
export function substitute(value: unknown, values: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (whole: string, name: string) => (Object.hasOwn(values, name) ? (values[name] ?? whole) : whole));
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, values));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    // defineProperty: a "__proto__" key of a payload stays an entry rather than a prototype.
    for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: substitute(item, values), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/**
 * The values a use of `template` runs with: the template's defaults overridden by `given`.
 * Refused when `given` names a parameter the template does not declare, or when a parameter
 * without a default gets no value.
 */
export function resolveParams(template: DeclaredTemplate, given: Readonly<Record<string, string>>): Parsed<Record<string, string>> {
  const declared = Object.keys(template.params);
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(template.params, name)) {
      const near = closest(name, declared);
      const hint = near !== undefined ? ` Did you mean "${near}"?` : '';
      return refused(`template "${template.name}" has no parameter "${name}" (its parameters: ${declared.join(', ') || 'none'}).${hint}`);
    }
  }
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, param] of Object.entries(template.params)) {
    const value = Object.hasOwn(given, name) ? given[name] : param.default;
    if (value === undefined) missing.push(name);
    else values[name] = value;
  }
  if (missing.length > 0) {
    return refused(`template "${template.name}" needs a value for ${missing.map((m) => `"${m}"`).join(', ')}: it has no default (give it with --param ${missing[0]}=…)`);
  }
  return parsed(values);
}

/** The job a schedule stores for `template` with resolved `values` (no queue: a schedule has its own). */
export function jobTemplateOf(template: DeclaredTemplate, values: Readonly<Record<string, string>>): JobTemplate {
  const job: JobTemplate = { kind: template.kind, payload: substitute(template.payload, values) };
  const o = template.options;
  if (o.priority !== undefined) job.priority = o.priority;
  if (o.maxAttempts !== undefined) job.maxAttempts = o.maxAttempts;
  if (o.backoff !== undefined) job.backoff = { ...o.backoff };
  if (o.timeoutMs !== undefined) job.timeoutMs = o.timeoutMs;
  if (o.tags !== undefined) job.tags = [...o.tags];
  if (o.group !== undefined) job.group = String(substitute(o.group, values));
  if (o.unique !== undefined) job.unique = { ...o.unique, ...(o.unique.by === undefined ? {} : { by: [...o.unique.by] }) };
  if (o.debounce !== undefined) job.debounce = o.debounce;
  if (o.throttle !== undefined) job.throttle = o.throttle;
  if (o.retry !== undefined) job.retry = o.retry;
  if (o.expireAfterMs !== undefined) job.expireAfterMs = o.expireAfterMs;
  if (o.deadlineMs !== undefined) job.deadlineMs = o.deadlineMs;
  return job;
}

/**
 * The protocol's enqueue params for running `template` with `params` (`spool run`, the
 * language server's "Enqueue" lens): defaults filled in, placeholders substituted.
 */
export function templateToJob(template: DeclaredTemplate, params: Readonly<Record<string, string>> = {}): Parsed<EnqueueParams> {
  const values = resolveParams(template, params);
  if (!values.ok) return values;
  return parsed({ queue: template.queue, ...jobTemplateOf(template, values.value) });
}
