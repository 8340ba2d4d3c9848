/**
 * Validation of an enqueue's `unique`, `debounce` and `throttle`, for the protocol, the jobs
 * file's templates and schedules alike: the three rules that make a job "the same" as another
 * one (equal by `unique.by`) and say what happens then. At most one rule per job: `unique` with
 * its window, or `debounce`, or `throttle` (with those two, `unique` gives only `by`).
 */
import { invalidParams } from '../../protocol/errors';
import { LIMITS } from '../../protocol';
import { UNIQUE_KEY_PARTS, UNIQUE_WHILE, type JobOptions, type JobUniqueness, type UniqueParams, type UniqueKeyPart, type UniqueRuleKind, type UniqueWhile } from '../../protocol/types';
import { array, integer, join, mustBe, oneOf, requiredObject, shown, type Fields } from '../validate';
import { durationRule, durationText } from './options';

/** A rule as the engine applies it: every default filled in. */
export interface UniqueRule {
  rule: UniqueRuleKind;
  forMs: number;
  by: UniqueKeyPart[];
  /** `any` for debounce and throttle (they do not use it). */
  while: UniqueWhile;
}

/** What `unique.by` is when left out: equal queue, kind and payload. */
export const UNIQUE_BY_DEFAULT: readonly UniqueKeyPart[] = ['queue', 'kind', 'payload'];

/** What `unique.by` is with debounce or throttle when left out: the payload is what a debounce replaces. */
export const SUCH_JOBS_BY_DEFAULT: readonly UniqueKeyPart[] = ['queue', 'kind'];

/** The shortest and longest window, quiet time or spacing. */
export const UNIQUE_DURATION = { minMs: 1, maxMs: LIMITS.maxDurationMs } as const;

/** Most parts in `unique.by`. */
export const MAX_UNIQUE_BY = 8;

/** `payload.` and then dot-separated keys or positions, none empty. */
const PAYLOAD_PATH = /^payload(\.[^.]+)+$/;

/** What `unique.by` allows, in words. */
export const UNIQUE_BY_RULE = `${UNIQUE_KEY_PARTS.join(', ')}, or payload.<path> (keys and array positions separated by dots, e.g. payload.user.id)`;

/** The fields of `unique`. */
export const UNIQUE_FIELDS = ['for', 'by', 'while'] as const;

/** A duration on the wire: text in the duration syntax, or whole milliseconds. */
export function durationValue(value: unknown, field: string, minMs: number, maxMs: number): number {
  if (typeof value === 'number') return integer(value, field, minMs, maxMs);
  if (typeof value === 'string') {
    const ms = durationText(value, field, minMs, maxMs);
    if (!ms.ok) throw invalidParams(field, ms.message, durationRule(minMs, maxMs));
    return ms.value;
  }
  throw invalidParams(field, mustBe(field, `${durationRule(minMs, maxMs)}, as text such as "10m" or as whole milliseconds`, shown(value)), durationRule(minMs, maxMs));
}

/** Whether `text` is one of the parts `unique.by` allows. */
export function isUniqueKeyPart(text: string): text is UniqueKeyPart {
  return text.length <= LIMITS.maxNameLength && (UNIQUE_KEY_PARTS.some((p) => p === text) || PAYLOAD_PATH.test(text));
}

/** One entry of `unique.by`. */
export function uniqueKeyPart(value: unknown, field: string): UniqueKeyPart {
  if (typeof value === 'string' && isUniqueKeyPart(value)) return value;
  throw invalidParams(field, mustBe(field, `one of ${UNIQUE_BY_RULE}`, shown(value)), UNIQUE_BY_RULE);
}

/** `unique.by`: at least one part, each once. */
export function uniqueBy(value: unknown, field: string): UniqueKeyPart[] {
  const parts = array(value, field, MAX_UNIQUE_BY, 1).map((p, i) => uniqueKeyPart(p, `${field}[${i}]`));
  return [...new Set(parts)];
}

/**
 * The rule among an enqueue's fields (`o`: the params, or a template), or undefined when it has
 * none. `prefix` names the object in errors ("" for the params, "jobs[2]").
 */
export function uniqueRuleParams(o: Fields, prefix: string): UniqueRule | undefined {
  const f = (key: string): string => join(prefix, key);
  const debounce = o['debounce'];
  const throttle = o['throttle'];
  if (debounce !== undefined && throttle !== undefined) {
    throw invalidParams(f('throttle'), `Give either ${f('debounce')} or ${f('throttle')}, not both`, 'debounce or throttle');
  }
  const unique = o['unique'] === undefined ? undefined : requiredObject(o['unique'], f('unique'), UNIQUE_FIELDS);
  const by = unique?.['by'] === undefined ? undefined : uniqueBy(unique['by'], join(f('unique'), 'by'));
  const such: ['debounce' | 'throttle', unknown] | undefined = debounce !== undefined ? ['debounce', debounce] : throttle !== undefined ? ['throttle', throttle] : undefined;
  if (such !== undefined) {
    const [rule, value] = such;
    for (const key of ['for', 'while'] as const) {
      if (unique?.[key] !== undefined) {
        const field = join(f('unique'), key);
        throw invalidParams(field, `${field} cannot be given with ${f(rule)}: ${f(rule)} is the window; give ${join(f('unique'), 'by')} alone to say which jobs are equal`, 'unique.by');
      }
    }
    return { rule, forMs: durationValue(value, f(rule), UNIQUE_DURATION.minMs, UNIQUE_DURATION.maxMs), by: by ?? [...SUCH_JOBS_BY_DEFAULT], while: 'any' };
  }
  if (unique === undefined) return undefined;
  const forField = join(f('unique'), 'for');
  if (unique['for'] === undefined) {
    throw invalidParams(forField, `${forField} is required: how long an equal job is refused, e.g. "10m" (or give ${f('debounce')} or ${f('throttle')})`, durationRule(UNIQUE_DURATION.minMs, UNIQUE_DURATION.maxMs));
  }
  return {
    rule: 'unique',
    forMs: durationValue(unique['for'], forField, UNIQUE_DURATION.minMs, UNIQUE_DURATION.maxMs),
    by: by ?? [...UNIQUE_BY_DEFAULT],
    while: unique['while'] === undefined ? 'any' : oneOf(unique['while'], join(f('unique'), 'while'), UNIQUE_WHILE),
  };
}

/**
 * `unique`, `debounce` and `throttle` of a template (a jobs file's, a schedule's job) checked as
 * an enqueue checks them, kept as given (durations in milliseconds, defaults not filled in: a
 * stored template reads back as the file wrote it).
 */
export function uniqueOptions(o: Fields, prefix: string): Pick<JobOptions, 'unique' | 'debounce' | 'throttle'> {
  const rule = uniqueRuleParams(o, prefix);
  if (rule === undefined) return {};
  const given = o['unique'] === undefined ? undefined : requiredObject(o['unique'], join(prefix, 'unique'), UNIQUE_FIELDS);
  const unique: UniqueParams = {};
  if (given?.['by'] !== undefined) unique.by = rule.by;
  if (rule.rule !== 'unique') return { [rule.rule]: rule.forMs, ...(unique.by === undefined ? {} : { unique }) };
  unique.for = rule.forMs;
  if (given?.['while'] !== undefined) unique.while = rule.while;
  return { unique };
}

/** The rule as stored with the job and shown on its page. */
export function jobUniqueness(rule: UniqueRule): JobUniqueness {
  return rule.rule === 'unique' ? { rule: rule.rule, forMs: rule.forMs, by: rule.by, while: rule.while } : { rule: rule.rule, forMs: rule.forMs, by: rule.by };
}
