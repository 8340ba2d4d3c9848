/**
 * What a template and a workflow's inline step share: a job written with the template's fields
 * (kind, command, url, payload…). Reading a kind's group, taking its payload from the read
 * values, and the checks on its strings (`{{name}}` placeholders, the folder and the URL) are
 * here once, for `parse.ts` (templates) and `workflows.ts` (steps).
 */
import { findNodeAtLocation, type Node } from 'jsonc-parser';
import { isRecord } from '../domain/records';
import { CWD_RULE, HTTP_URL_RULE } from '../domain/rules/limits';
import { mustBe, shown } from '../domain/validate';
import { isUniqueKeyPart, uniqueRuleParams } from '../domain/rules/unique';
import { SpoolError } from '../protocol/errors';
import { NAME_PATTERN } from '../protocol';
import { UNIQUE_WHILE, type Backoff, type UniqueKeyPart, type UniqueParams } from '../protocol/types';
import { members, pathText, type Checker, type JsonPath } from './check';
import type { JobOptions } from './model';
import { placeholders } from './params';
import type { KindGroup } from './spec';
import { closest } from './suggest';

/** The fields whose strings may hold `{{name}}` placeholders. */
export const PAYLOAD_FIELDS = ['command', 'cwd', 'env', 'url', 'headers', 'body', 'payload'] as const;

/** A string value of a node, when it is one. */
export function stringOf(node: Node | undefined): string | undefined {
  const v: unknown = node?.value;
  return node?.type === 'string' && typeof v === 'string' ? v : undefined;
}

/** A kind's group: shell and http are built in, any other kind is custom. */
export function groupOf(kind: string | undefined): KindGroup | undefined {
  // An invalid kind is reported as such; guessing a group would add errors about its fields.
  if (kind === undefined || !NAME_PATTERN.test(kind)) return undefined;
  return kind === 'shell' || kind === 'http' ? kind : 'custom';
}

/** The kind's payload from read values: only the kind's own fields, as written. */
export function payloadOf(group: KindGroup, v: Record<string, unknown>): unknown {
  const pick = (fields: readonly string[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const f of fields) if (f in v) out[f] = v[f];
    return out;
  };
  if (group === 'shell') return pick(['command', 'cwd', 'env']);
  if (group === 'http') return pick(['url', 'method', 'headers', 'body']);
  return v['payload'] ?? null;
}

/** The job options among read values (priority, attempts, backoff, timeout, tags). */
export function optionsOf(v: Record<string, unknown>): JobOptions {
  const options: JobOptions = {};
  if (typeof v['priority'] === 'number') options.priority = v['priority'];
  if (typeof v['attempts'] === 'number') options.maxAttempts = v['attempts'];
  if (isBackoff(v['backoff'])) options.backoff = v['backoff'];
  if (typeof v['timeout'] === 'number') options.timeoutMs = v['timeout'];
  if (Array.isArray(v['tags'])) options.tags = v['tags'].filter((t): t is string => typeof t === 'string');
  if (typeof v['group'] === 'string') options.group = v['group'];
  if (typeof v['expireAfter'] === 'number') options.expireAfterMs = v['expireAfter'];
  if (typeof v['deadline'] === 'number') options.deadlineMs = v['deadline'];
  return options;
}

/** The fields of unique jobs, debounce and throttle: a template's, never a workflow step's. */
const UNIQUE_OPTIONS = ['unique', 'debounce', 'throttle'] as const;

/** Options without unique, debounce and throttle (a workflow step's job made from a template). */
export function withoutUnique(options: JobOptions): JobOptions {
  const { unique: _unique, debounce: _debounce, throttle: _throttle, retry: _retry, expireAfterMs: _expire, deadlineMs: _deadline, ...rest } = options;
  return rest;
}

/**
 * A template's unique, debounce and throttle among read values, checked by the daemon's own
 * rule (shared/domain/rules/unique.ts) so that the file says what apply would refuse: a part of
 * "by" that is not one, "for" missing, two rules at once. Nothing is checked when one of those
 * values could not be read: its problem is reported already.
 */
export function uniqueOptionsOf(checker: Checker, nodes: Readonly<Record<string, Node>>, v: Record<string, unknown>, path: JsonPath): Pick<JobOptions, 'unique' | 'debounce' | 'throttle'> {
  const unreadable = UNIQUE_OPTIONS.some((key) => {
    const node = nodes[key];
    if (node === undefined) return false;
    if (!(key in v)) return true;
    const value = v[key];
    return key === 'unique' && (node.type !== 'object' || !isRecord(value) || members(node).some((m) => !(m.key in value)));
  });
  if (unreadable || UNIQUE_OPTIONS.every((key) => nodes[key] === undefined)) return {};
  try {
    uniqueRuleParams(v, pathText(path));
  } catch (error) {
    if (!(error instanceof SpoolError)) throw error;
    const field = typeof error.data['field'] === 'string' ? error.data['field'] : '';
    // The field as a path below the template: "templates.t.unique.by[1]" → ["unique", "by", 1].
    const below = [...field.slice(pathText(path).length).matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : (m[1] ?? '')));
    const top = nodes[String(below[0])] ?? UNIQUE_OPTIONS.map((key) => nodes[key]).find((n) => n !== undefined);
    const node = (top === undefined ? undefined : findNodeAtLocation(top, below.slice(1))) ?? top;
    const allowed = typeof error.data['allowed'] === 'string' ? error.data['allowed'] : undefined;
    if (node !== undefined) checker.report(node, 'not-allowed', error.message, [...path, ...below], allowed !== undefined ? { allowed } : {});
    return {};
  }
  const options: Pick<JobOptions, 'unique' | 'debounce' | 'throttle'> = {};
  const unique = v['unique'];
  if (isRecord(unique)) {
    const u: UniqueParams = {};
    if (typeof unique['for'] === 'number') u.for = unique['for'];
    if (Array.isArray(unique['by'])) u.by = unique['by'].filter((p): p is UniqueKeyPart => typeof p === 'string' && isUniqueKeyPart(p));
    const when = UNIQUE_WHILE.find((w) => w === unique['while']);
    if (when !== undefined) u.while = when;
    options.unique = u;
  }
  if (typeof v['debounce'] === 'number') options.debounce = v['debounce'];
  if (typeof v['throttle'] === 'number') options.throttle = v['throttle'];
  return options;
}

/** A backoff as the checker reads one. */
export function isBackoff(v: unknown): v is Partial<Backoff> {
  return isRecord(v) && typeof v['strategy'] === 'string';
}

/** Calls `each` for every string node under `node` (values only, not keys), with its path. */
export function eachString(node: Node, path: JsonPath, each: (node: Node, path: JsonPath) => void): void {
  if (node.type === 'string') each(node, path);
  else if (node.type === 'array') (node.children ?? []).forEach((child, i) => eachString(child, [...path, i], each));
  else if (node.type === 'object') for (const m of members(node)) if (m.value !== undefined) eachString(m.value, [...path, m.key], each);
}

/**
 * Every `{{name}}` in the payload fields' strings must be one of `declared`. `owner` ends the
 * sentence "… uses {{x}}, which <owner>"; `fix` says what to do.
 */
export function checkPlaceholders(checker: Checker, nodes: Readonly<Record<string, Node>>, declared: readonly string[], path: JsonPath, owner: string, fix: string): void {
  for (const field of PAYLOAD_FIELDS) {
    const node = nodes[field];
    if (node === undefined) continue;
    checkStrings(checker, node, [...path, field], declared, owner, fix);
  }
}

/** Every `{{name}}` in the strings under `node` must be one of `declared` (see checkPlaceholders). */
export function checkStrings(checker: Checker, node: Node, path: JsonPath, declared: readonly string[], owner: string, fix: string): void {
  eachString(node, path, (stringNode, at) => {
    const text = stringOf(stringNode) ?? '';
    for (const p of placeholders(text)) {
      if (declared.includes(p.name)) continue;
      const near = closest(p.name, declared);
      checker.reportInString(stringNode, p.start, p.end, 'undeclared-param', `${pathText(at)} uses {{${p.name}}}, which ${owner}.${near !== undefined ? ` Did you mean "${near}"?` : ''} ${fix}`, at, {
        allowed: declared.length > 0 ? declared.join(', ') : 'no parameters are declared',
        ...(near !== undefined ? { suggestion: near } : {}),
      });
    }
  });
}

/**
 * What the daemon would refuse when the job is enqueued, said now in the daemon's words: a
 * shell job's folder must be an absolute path, an http job's URL absolute http or https. A
 * value that starts with a placeholder is only known once substituted, so it is left to the
 * daemon.
 */
export function checkTargets(checker: Checker, nodes: Readonly<Record<string, Node>>, path: JsonPath): void {
  const startsWithPlaceholder = (text: string): boolean => placeholders(text)[0]?.start === 0;
  const cwdNode = nodes['cwd'];
  const cwd = stringOf(cwdNode);
  if (cwdNode !== undefined && cwd !== undefined && cwd.length > 0 && !cwd.startsWith('/') && !startsWithPlaceholder(cwd)) {
    checker.report(cwdNode, 'invalid-path', mustBe(pathText([...path, 'cwd']), CWD_RULE, shown(cwd)), [...path, 'cwd'], { allowed: CWD_RULE });
  }
  const urlNode = nodes['url'];
  const url = stringOf(urlNode);
  if (urlNode === undefined || url === undefined || url.length === 0 || startsWithPlaceholder(url)) return;
  // Placeholders later in the URL stand for some text: check the rest around a sample.
  const sample = url.replace(/\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/g, 'x');
  const protocol = URL.canParse(sample) ? new URL(sample).protocol : null;
  if (protocol !== 'http:' && protocol !== 'https:') {
    checker.report(urlNode, 'invalid-url', mustBe(pathText([...path, 'url']), HTTP_URL_RULE, shown(url)), [...path, 'url'], { allowed: HTTP_URL_RULE });
  }
}
