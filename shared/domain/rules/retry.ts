/**
 * Retry rules: which failures of a job are retried, checked once here for the protocol, the jobs
 * file and the CLI, and applied by the engine where a failure is decided.
 *
 * Precedence: a job's own rule replaces its template's, which replaces its queue's (whole
 * rules, never merged field by field: a rule is read as one sentence). Within a rule, `never`
 * beats `on`; when `on` is given, a failure it does not name is final.
 */
import { invalidParams } from '../../protocol/errors';
import type { RetryMatch, RetryRule } from '../../protocol/types';
import { array, integer, join, object, string } from '../validate';

/** Most entries in one list of a rule. */
export const MAX_RETRY_RULE_ITEMS = 64;
/** Longest error pattern. */
const MAX_PATTERN = 256;

function match(value: unknown, field: string): RetryMatch {
  const o = object(value, field, ['exitCodes', 'httpStatus', 'errors']);
  const out: RetryMatch = {};
  if (o['exitCodes'] !== undefined) {
    out.exitCodes = array(o['exitCodes'], join(field, 'exitCodes'), MAX_RETRY_RULE_ITEMS).map((v, i) => integer(v, `${join(field, 'exitCodes')}[${i}]`, 0, 255));
  }
  if (o['httpStatus'] !== undefined) {
    out.httpStatus = array(o['httpStatus'], join(field, 'httpStatus'), MAX_RETRY_RULE_ITEMS).map((v, i) => integer(v, `${join(field, 'httpStatus')}[${i}]`, 100, 999));
  }
  if (o['errors'] !== undefined) {
    out.errors = array(o['errors'], join(field, 'errors'), MAX_RETRY_RULE_ITEMS).map((v, i) => string(v, `${join(field, 'errors')}[${i}]`, MAX_PATTERN, 1));
  }
  return out;
}

/** A retry rule (`{ on?, never? }`), checked; errors name the field ("retry.on.exitCodes[0]"). */
export function retryRule(value: unknown, field = 'retry'): RetryRule {
  const o = object(value, field, ['on', 'never']);
  const rule: RetryRule = {};
  if (o['on'] !== undefined) rule.on = match(o['on'], join(field, 'on'));
  if (o['never'] !== undefined) rule.never = match(o['never'], join(field, 'never'));
  if (rule.on === undefined && rule.never === undefined) {
    throw invalidParams(field, `${field} must give "on", "never" or both (e.g. { "never": { "exitCodes": [2] } }), or be left out`, '{ on?, never? }');
  }
  return rule;
}

/** `retry` as a job, template or queue field: undefined when absent, null to clear. */
export function optionalRetryRule(value: unknown, field = 'retry'): RetryRule | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  return retryRule(value, field);
}

/** What the rule looks at in a failure. */
export interface FailureFacts {
  error: string;
  exitCode: number | null;
  httpStatus: number | null;
}

/** `pattern` as a glob over the whole text: `*` any run of characters, `?` one; case-sensitive. */
export function globMatches(pattern: string, text: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(text);
}

function matches(m: RetryMatch, f: FailureFacts): string | null {
  if (f.exitCode !== null && m.exitCodes?.includes(f.exitCode)) return `exit code ${f.exitCode}`;
  if (f.httpStatus !== null && m.httpStatus?.includes(f.httpStatus)) return `HTTP status ${f.httpStatus}`;
  const firstLine = f.error.split('\n', 1)[0] ?? '';
  const pattern = m.errors?.find((p) => globMatches(p, firstLine));
  return pattern === undefined ? null : `error matching "${pattern}"`;
}

/**
 * Why the rule makes this failure final, or null when it may be retried: `never` names it, or
 * `on` is given and does not.
 */
export function finalByRule(rule: RetryRule | null | undefined, f: FailureFacts): string | null {
  if (!rule) return null;
  if (rule.never) {
    const why = matches(rule.never, f);
    if (why !== null) return `not retried: the retry rule never retries ${why}`;
  }
  if (rule.on && matches(rule.on, f) === null) return 'not retried: the retry rule retries only the failures its "on" names, and this is not one of them';
  return null;
}

function listed(m: RetryMatch): string {
  const parts: string[] = [];
  if (m.exitCodes?.length) parts.push(`exit code${m.exitCodes.length === 1 ? '' : 's'} ${m.exitCodes.join(', ')}`);
  if (m.httpStatus?.length) parts.push(`HTTP status ${m.httpStatus.join(', ')}`);
  if (m.errors?.length) parts.push(`errors matching ${m.errors.map((e) => `"${e}"`).join(', ')}`);
  return parts.join('; ');
}

/** A rule in words, for `spool job`, `spool queue` and the editor: "retries only exit code 75; never exit code 2". */
export function describeRetryRule(rule: RetryRule): string {
  const parts: string[] = [];
  if (rule.on) parts.push(`retries only ${listed(rule.on)}`);
  if (rule.never) parts.push(`never retries ${listed(rule.never)}`);
  return parts.join('; ');
}
