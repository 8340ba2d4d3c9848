/**
 * The payloads of the kinds the daemon runs itself: `shell` and `http`. There is one checker per
 * kind, and it is used twice: when a job enters the queue (jobs.enqueue, jobs.update, a
 * schedule's job template), so that a payload that can never run is refused to the caller
 * instead of becoming a dead job later; and by the executor when the job runs, which turns the
 * checked payload into what it needs (a job stored before these checks existed still fails
 * with the same message).
 *
 * Errors are InvalidParams naming the field under the caller's prefix ("payload.command",
 * "jobs[2].payload.url", "job.payload.env.HOME") and what is allowed there.
 */
import { clipName, invalidParams } from '../../protocol/errors';
import { join, object, onlyKeys, shown, type Fields } from '../validate';
import { isRecord } from '../records';
import type { ResourceLimits } from '../../protocol/types';
import { RESOURCE_LIMIT_RANGES } from '../../protocol';
import { CWD_RULE, HEADER_NAME, HEADER_NAME_RULE, HTTP_METHODS, HTTP_URL_RULE } from './limits';

export interface ShellPayload {
  command: string;
  cwd: string | undefined;
  env: Record<string, string>;
  permanentExitCodes: number[];
  /** The job's own limits; the queue's fill in the fields it does not give. */
  limits: ResourceLimits;
}

export interface HttpPayload {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const SHELL_FIELDS = ['command', 'cwd', 'env', 'permanentExitCodes', 'limits'] as const;
const LIMIT_FIELDS = ['memoryBytes', 'cpuSeconds', 'openFiles', 'processes'] as const;

/** What each limit's message says is allowed (the bounds are RESOURCE_LIMIT_RANGES). */
const LIMIT_ALLOWED: Record<(typeof LIMIT_FIELDS)[number], string> = {
  memoryBytes: 'bytes, from 16 MiB (16777216) up',
  cpuSeconds: 'whole seconds, from 1 to a year',
  openFiles: `from ${RESOURCE_LIMIT_RANGES.openFiles.min} to ${RESOURCE_LIMIT_RANGES.openFiles.max}`,
  processes: `from ${RESOURCE_LIMIT_RANGES.processes.min} to ${RESOURCE_LIMIT_RANGES.processes.max}`,
};

/**
 * Resource limits, `{memoryBytes?, cpuSeconds?, openFiles?, processes?}`: a shell payload's
 * `limits` and a queue's. Each given field is an integer within its bounds.
 */
export function resourceLimits(value: unknown, field: string): ResourceLimits {
  const o = object(value, field, LIMIT_FIELDS);
  const limits: ResourceLimits = {};
  for (const key of LIMIT_FIELDS) {
    if (o[key] === undefined) continue;
    const { min, max } = RESOURCE_LIMIT_RANGES[key];
    const allowed = LIMIT_ALLOWED[key];
    const n = o[key];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      throw invalidParams(join(field, key), `${join(field, key)} must be an integer ${allowed} (got ${shown(n)})`, allowed);
    }
    limits[key] = n;
  }
  return limits;
}
const HTTP_FIELDS = ['url', 'method', 'headers', 'body'] as const;

/** The payload as an object of only `allowed` keys; `shape` describes the whole form for messages. */
function payloadObject(value: unknown, field: string, allowed: readonly string[], shape: string): Fields {
  if (!isRecord(value)) throw invalidParams(field, `${field} must be ${shape} (got ${shown(value)})`, shape);
  return onlyKeys(value, field, allowed);
}

/** An object whose every value is a string (env, headers). */
function stringMap(value: unknown, field: string): Record<string, string> {
  if (!isRecord(value)) throw invalidParams(field, `${field} must be an object of strings (got ${shown(value)})`, 'object of strings');
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw invalidParams(join(field, key), `${clipName(join(field, key))} must be a string (got ${shown(item)})`, 'string');
    out[key] = item;
  }
  return out;
}

const SHELL_SHAPE = 'a command string, or {command, cwd?, env?, permanentExitCodes?, limits?}';

/** A string handed to the operating system (a command, a path, an environment entry) cannot hold a NUL byte. */
function withoutNul(text: string, field: string, allowed: string): string {
  if (text.includes('\u0000')) throw invalidParams(field, `${field} must not contain a NUL character (\\u0000)`, allowed);
  return text;
}

/** Environment variables: names without "=" or NUL, values without NUL. */
function environment(value: unknown, field: string): Record<string, string> {
  const env = stringMap(value, field);
  for (const [name, text] of Object.entries(env)) {
    if (name.length === 0 || name.includes('=') || name.includes('\u0000')) {
      throw invalidParams(join(field, name), `${field} has an invalid variable name ${shown(name)}: a name is non-empty and holds no "=" or NUL`, 'names without "=" or NUL');
    }
    withoutNul(text, clipName(join(field, name)), 'a string without NUL');
  }
  return env;
}

/** A header value fetch can send: no CR, LF or NUL, and only characters up to U+00FF. */
const HEADER_VALUE = /^[^\r\n\u0000\u0100-\uffff]*$/;

function httpHeaders(value: unknown, field: string): Record<string, string> {
  const headers = stringMap(value, field);
  for (const [name, text] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      throw invalidParams(join(field, name), `${field} has an invalid header name ${shown(name)}: ${HEADER_NAME_RULE}`, 'header names of letters, digits and !#$%&\'*+-.^_`|~');
    }
    if (!HEADER_VALUE.test(text)) {
      throw invalidParams(join(field, name), `${clipName(join(field, name))} must not contain a line break, a NUL or characters above U+00FF (got ${shown(text)})`, 'a header value on one line, Latin-1 characters');
    }
  }
  return headers;
}

/**
 * A shell job's payload: `{command, cwd?, env?, permanentExitCodes?, limits?}`, or the command
 * alone as a string. A missing payload is a missing command.
 */
export function shellPayload(value: unknown, field: string): ShellPayload {
  if (typeof value === 'string' && value.trim().length > 0) return { command: withoutNul(value, field, 'a command without NUL'), cwd: undefined, env: {}, permanentExitCodes: [], limits: {} };
  if (value === undefined || value === null) value = {};
  const o = payloadObject(value, field, SHELL_FIELDS, SHELL_SHAPE);
  const command = o['command'];
  if (typeof command !== 'string' || command.trim().length === 0) {
    throw invalidParams(join(field, 'command'), `${join(field, 'command')} must be a non-empty string: the command /bin/sh runs (got ${shown(command)})`, 'a non-empty string');
  }
  withoutNul(command, join(field, 'command'), 'a non-empty string without NUL');
  const cwd = o['cwd'];
  if (cwd !== undefined && (typeof cwd !== 'string' || !cwd.startsWith('/'))) {
    throw invalidParams(join(field, 'cwd'), `${join(field, 'cwd')} must be ${CWD_RULE} (got ${shown(cwd)})`, CWD_RULE);
  }
  if (typeof cwd === 'string') withoutNul(cwd, join(field, 'cwd'), 'an absolute path without NUL');
  const env = o['env'] === undefined ? {} : environment(o['env'], join(field, 'env'));
  const codes: number[] = [];
  if (o['permanentExitCodes'] !== undefined) {
    const list = o['permanentExitCodes'];
    const listField = join(field, 'permanentExitCodes');
    if (!Array.isArray(list)) throw invalidParams(listField, `${listField} must be a list of integers (got ${shown(list)})`, 'a list of integers');
    list.forEach((code: unknown, i) => {
      if (typeof code !== 'number' || !Number.isInteger(code)) throw invalidParams(`${listField}[${i}]`, `${listField}[${i}] must be an integer (got ${shown(code)})`, 'an integer');
      codes.push(code);
    });
  }
  const limits = o['limits'] === undefined ? {} : resourceLimits(o['limits'], join(field, 'limits'));
  return { command, cwd: typeof cwd === 'string' ? cwd : undefined, env, permanentExitCodes: codes, limits };
}

const HTTP_SHAPE = 'a URL string, or {url, method?, headers?, body?}';

/**
 * An http job's payload: `{url, method?, headers?, body?}`, or the URL alone as a string. A body
 * that is not a string is sent as JSON, with a JSON content-type unless one is given.
 */
export function httpPayload(value: unknown, field: string): HttpPayload {
  if (typeof value === 'string') value = { url: value };
  if (value === undefined || value === null) value = {};
  const o = payloadObject(value, field, HTTP_FIELDS, HTTP_SHAPE);
  const urlField = join(field, 'url');
  const urlText = o['url'];
  const allowedUrl = HTTP_URL_RULE;
  if (typeof urlText !== 'string' || !URL.canParse(urlText)) throw invalidParams(urlField, `${urlField} must be ${allowedUrl} (got ${shown(urlText)})`, allowedUrl);
  const url = new URL(urlText);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidParams(urlField, `${urlField} must use http or https (got ${url.protocol})`, allowedUrl);
  const method = o['method'] === undefined ? 'GET' : o['method'];
  if (typeof method !== 'string' || !HTTP_METHODS.some((m) => m === method.toUpperCase())) {
    throw invalidParams(join(field, 'method'), `${join(field, 'method')} must be one of ${HTTP_METHODS.join(', ')} (got ${shown(method)})`, HTTP_METHODS.join(', '));
  }
  const headers = o['headers'] === undefined ? {} : httpHeaders(o['headers'], join(field, 'headers'));
  let body: string | undefined;
  const rawBody = o['body'];
  if (rawBody !== undefined && rawBody !== null) {
    if (typeof rawBody === 'string') body = rawBody;
    else {
      body = JSON.stringify(rawBody);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
  }
  return { url, method: method.toUpperCase(), headers, body };
}

/** Checks `payload` with its kind's checker when the kind is built in; other kinds take any JSON. */
export function builtinPayload(kind: string, payload: unknown, field: string): void {
  if (kind === 'shell') shellPayload(payload, field);
  else if (kind === 'http') httpPayload(payload, field);
}

/** The fields of a shell or HTTP job's payload that `jobs.update` takes on their own. */
export const SHELL_EDIT_FIELDS = ['command', 'env', 'cwd'] as const;
export const HTTP_EDIT_FIELDS = ['url', 'method', 'headers', 'body'] as const;

/** Payload fields given to `jobs.update` by name; null removes the field (env, cwd, headers, body). */
export type PayloadEdits = Partial<Record<(typeof SHELL_EDIT_FIELDS)[number] | (typeof HTTP_EDIT_FIELDS)[number], unknown>>;

/**
 * A built-in job's stored payload with `edits` merged in, checked as at enqueue, with errors
 * naming the field as the caller gave it ("command", "env.HOME"). A field of the other kind (a
 * command for an HTTP job), or any such field for a job of another kind, is refused by name.
 */
export function editedPayload(kind: string, stored: unknown, edits: PayloadEdits): unknown {
  const given = Object.keys(edits).filter((key) => edits[key as keyof PayloadEdits] !== undefined);
  if (given.length === 0) return stored;
  const fields: readonly string[] = kind === 'shell' ? SHELL_EDIT_FIELDS : kind === 'http' ? HTTP_EDIT_FIELDS : [];
  for (const key of given) {
    if (!fields.includes(key)) {
      const owner = (SHELL_EDIT_FIELDS as readonly string[]).includes(key) ? 'shell' : 'http';
      throw invalidParams(key, `${key} applies to ${owner} jobs only, and this job is of kind "${kind}"${fields.length > 0 ? `: it takes ${fields.join(', ')}` : '; change its payload instead'}`, fields.length > 0 ? fields.join(', ') : 'payload');
    }
  }
  // A payload stored as the command or URL alone becomes the object form.
  const base: Record<string, unknown> = typeof stored === 'string' ? { [kind === 'shell' ? 'command' : 'url']: stored } : isRecord(stored) ? { ...stored } : {};
  for (const key of given) {
    const value = edits[key as keyof PayloadEdits];
    if (value === null) delete base[key];
    else base[key] = value;
  }
  if (kind === 'shell') shellPayload(base, '');
  else httpPayload(base, '');
  return base;
}
