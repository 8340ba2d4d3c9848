/**
 * What each step of Enqueue Job and Create Schedule accepts, checked as the user types: each
 * rule returns the problem in words (naming the field and what it takes) or null. Pure of
 * `vscode`, so the rules are unit-tested; durations, backoff and cron come from shared/domain,
 * the one parser of each syntax, and the options' ranges and refusals from the domain's rules
 * (shared/domain/rules/), so a value the editor takes is one the CLI, the jobs file and the
 * daemon take, and one they refuse is refused here in the same words.
 */
import { parseBackoff } from '../../../shared/domain/backoff';
import { cronProblem, describeCron, nextFireTimes, timezoneProblem } from '../../../shared/domain/cron';
import { suggestTimezone } from '../../../shared/jobsfile';
import type { Parsed } from '../../../shared/domain/parsed';
import { fireTimesText } from '../../../shared/domain/present';
import { HEADER_NAME, HEADER_NAME_RULE, HTTP_METHODS as DOMAIN_HTTP_METHODS, HTTP_URL_RULE } from '../../../shared/domain/rules/limits';
import { attemptsText, delayText, priorityText, timeoutText } from '../../../shared/domain/rules/options';
import { NAME_RULE } from '../../../shared/domain/validate';
import { LIMITS, NAME_PATTERN } from '../../../shared/protocol';
import type { Backoff } from '../../../shared/protocol/types';
import { errorMessage } from '../../../shared/protocol/errors';

/** A queue, kind or schedule name (`what` names which), or what is wrong with it. */
export function nameProblem(what: string, text: string): string | null {
  const name = text.trim();
  if (name === '') return `Type a ${what} name.`;
  return NAME_PATTERN.test(name) ? null : `"${name}" is not a valid ${what} name: a name is ${NAME_RULE}.`;
}

/** An http job's URL: absolute, http or https, as the daemon's http executor takes it. */
export function urlProblem(text: string): string | null {
  const url = text.trim();
  if (url === '') return 'Type the URL to call, e.g. https://example.com/hook.';
  if (!URL.canParse(url)) return `"${url}" is not a URL: type ${HTTP_URL_RULE}.`;
  const protocol = new URL(url).protocol;
  return protocol === 'http:' || protocol === 'https:' ? null : `The URL must use http or https (got ${protocol}).`;
}

/** The methods the daemon's http executor sends (the domain's list), in the order the pick offers them. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const satisfies readonly (typeof DOMAIN_HTTP_METHODS)[number][];

/** Methods whose request carries no body (fetch refuses one), so the body step is skipped. */
export function takesBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

/**
 * Request headers as typed on one line: `Name: value` entries separated by `|` (a character no
 * header name holds and few values do), or a JSON object of strings. Empty: no headers.
 */
export function parseHeaders(text: string): Parsed<Record<string, string>> {
  const s = text.trim();
  if (s === '') return { ok: true, value: {} };
  if (s.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(s);
    } catch (error) {
      return { ok: false, message: `Headers: not valid JSON (${errorMessage(error)}).` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'Headers: a JSON object of names to string values.' };
    const headers: Record<string, string> = {};
    for (const [name, v] of Object.entries(value)) {
      if (typeof v !== 'string') return { ok: false, message: `Header "${name}": its value must be a string.` };
      if (!HEADER_NAME.test(name)) return { ok: false, message: `"${name}" is not a header name: ${HEADER_NAME_RULE}.` };
      headers[name] = v;
    }
    return { ok: true, value: headers };
  }
  const headers: Record<string, string> = {};
  for (const entry of s.split('|')) {
    const colon = entry.indexOf(':');
    if (colon <= 0) return { ok: false, message: `Header "${entry.trim()}": use Name: value, several separated by |.` };
    const name = entry.slice(0, colon).trim();
    if (!HEADER_NAME.test(name)) return { ok: false, message: `"${name}" is not a header name: ${HEADER_NAME_RULE}.` };
    headers[name] = entry.slice(colon + 1).trim();
  }
  return { ok: true, value: headers };
}

/** A JSON payload for a custom kind: valid JSON within the daemon's size limit. */
export function jsonProblem(text: string): string | null {
  try {
    JSON.parse(text);
  } catch (error) {
    return `Not valid JSON: ${errorMessage(error)}`;
  }
  return Buffer.byteLength(text) > LIMITS.maxPayloadBytes ? `The payload is over ${LIMITS.maxPayloadBytes} bytes.` : null;
}

/** A job's options, as the last step takes them. */
export interface EnqueueOptions {
  priority?: number;
  delayMs?: number;
  maxAttempts?: number;
  backoff?: Partial<Backoff>;
  timeoutMs?: number;
}

/** The option names a step takes: a schedule's job has no delay (the schedule says when). */
export type OptionName = 'priority' | 'delay' | 'attempts' | 'backoff' | 'timeout';

export const ENQUEUE_OPTIONS: readonly OptionName[] = ['priority', 'delay', 'attempts', 'backoff', 'timeout'];
export const TEMPLATE_OPTIONS: readonly OptionName[] = ['priority', 'attempts', 'backoff', 'timeout'];

/**
 * Parses `priority=5 delay=30s attempts=3 backoff=exponential:1s:5m timeout=10m` (any subset, any
 * order, the names in `allowed`), in the CLI's syntax: a duration needs its unit, as everywhere.
 */
export function parseOptions(text: string, allowed: readonly OptionName[] = ENQUEUE_OPTIONS): Parsed<EnqueueOptions> {
  const options: EnqueueOptions = {};
  for (const part of text.trim().split(/\s+/).filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    const known = allowed.find((name) => name === key);
    if (known === undefined) return { ok: false, message: `Unknown option "${key}": use ${allowed.map((a) => `${a}=`).join(', ')}` };
    if (known === 'priority') {
      const n = priorityText(value, 'priority');
      if (!n.ok) return n;
      options.priority = n.value;
    } else if (known === 'attempts') {
      const n = attemptsText(value, 'attempts');
      if (!n.ok) return n;
      options.maxAttempts = n.value;
    } else if (known === 'delay') {
      const delay = delayText(value, 'delay');
      if (!delay.ok) return delay;
      options.delayMs = delay.value;
    } else if (known === 'timeout') {
      const timeout = timeoutText(value, 'timeout');
      if (!timeout.ok) return timeout;
      options.timeoutMs = timeout.value;
    } else {
      const backoff = parseBackoff(value);
      if (!backoff.ok) return { ok: false, message: `backoff "${value}": ${backoff.message}` };
      options.backoff = backoff.value;
    }
  }
  return { ok: true, value: options };
}

/** What the cron step shows under the input: the problem, or the expression in words and when it fires. */
export type CronPreview = { ok: false; message: string } | { ok: true; message: string };

/**
 * The cron step's message for `cron` read in `timezone`, from the instant `now`: the domain's
 * problem (field and what it takes), or the expression in words with the next three fire times
 * in the schedule's zone and, when it differs, in `localZone` (the editor's own), written as the
 * language server's cron hover and the CLI write them (shared/domain/present).
 */
export function cronPreview(cron: string, timezone: string, now: number, localZone: string): CronPreview {
  if (cron.trim() === '') return { ok: false, message: 'Type a cron expression: 5 fields (minute hour day month weekday), or 6 with seconds first, e.g. 0 3 * * *.' };
  const problem = cronProblem({ cron, timezone });
  if (problem !== null) return { ok: false, message: problem.message };
  const times = nextFireTimes({ cron, timezone }, now, 3);
  const seconds = cron.trim().split(/\s+/).length === 6;
  return { ok: true, message: `${capitalized(describeCron(cron))}. Next: ${fireTimesText(times, timezone, localZone, seconds)}.` };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The editor's own time zone, as the local times of the cron preview use it. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Why a typed zone is refused, with the zone most likely meant ("paris": Europe/Paris); null when it is known. */
export function zoneProblem(typed: string): string | null {
  const problem = timezoneProblem(typed.trim());
  if (problem === null) return null;
  const meant = suggestTimezone(typed);
  return meant === undefined ? problem.message : `Unknown time zone "${typed.trim()}": did you mean ${meant}? Pick it from the list, or type an IANA name such as "Europe/Paris".`;
}
