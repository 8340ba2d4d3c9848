/**
 * The one validation library: checks of raw input (from the wire, the jobs file, a language
 * server's document), in one wording. Each function takes the value and the field's path as the
 * user wrote it ("jobs[2].backoff.strategy"), returns the value typed, or throws a SpoolError
 * with code InvalidParams (PayloadTooLarge for an oversized JSON value), `data.field` naming the
 * field and, where there is a short form of it, `data.allowed` saying what is allowed.
 *
 * The wording, everywhere: "<field> must be <what is allowed> (got <what was given>)", and
 * 'Unknown field "<field>". Allowed: <fields>.' for a key that has no meaning there.
 *
 * The rule texts (`integerRule`, `lengthRule`, `NAME_RULE`, `mustBe`) are exported so that
 * checks which do not throw (the jobs file's diagnostics, the CLI's and the editor's option
 * parsers) say the same words.
 *
 * Pure: no I/O, nothing from the programs. The daemon's RPC handlers and the rules of
 * shared/domain/rules/ both build on it.
 */
import { SpoolError, clipName, invalidParams, errorMessage } from '../protocol/errors';
import { ErrorCode, LIMITS, NAME_PATTERN } from '../protocol';
import { isRecord } from './records';

export type Fields = Readonly<Record<string, unknown>>;

/** A short rendering of the value that was given, for messages. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  let s: string;
  try {
    s = JSON.stringify(value) ?? typeof value;
  } catch (error) {
    s = `an unserializable ${typeof value} (${errorMessage(error)})`;
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** The one sentence of a refusal: "<field> must be <allowed> (got <given>)". */
export function mustBe(field: string, allowed: string, given: string): string {
  return `${field} must be ${allowed} (got ${given})`;
}

/** What an integer field allows, in words. */
export function integerRule(min: number, max: number): string {
  return `an integer from ${min} to ${max}`;
}

/** What a string field's length allows, in words. */
export function lengthRule(min: number, max: number): string {
  return `${min} to ${max} characters long`;
}

/** What a name (queue, kind, schedule, template, worker id) allows, in words. */
export const NAME_RULE = `1 to ${LIMITS.maxNameLength} characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit`;

/** The path of `key` inside `prefix` ("" for the params themselves). */
export function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

/**
 * An object with only the allowed keys. `where` names it in messages ("params" for the
 * method's own params). Absent params (undefined) count as an empty object; null is refused, as
 * null is for every field whose schema does not say what null means.
 */
export function object(value: unknown, where: string, allowed: readonly string[]): Fields {
  if (value === undefined) return {};
  if (!isRecord(value)) throw invalidParams(where, `${where} must be an object (got ${shown(value)})`);
  return onlyKeys(value, where, allowed);
}

/**
 * `value` unchanged if its keys are all `allowed`; else the first unknown one is refused, named
 * under `where` (the params' own keys are named alone: "colour", not "params.colour").
 */
export function onlyKeys(value: Fields, where: string, allowed: readonly string[]): Fields {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      const field = where === 'params' ? key : join(where, key);
      const allowedText = allowed.length > 0 ? allowed.join(', ') : 'none';
      throw invalidParams(field, `Unknown field "${clipName(field)}". Allowed: ${allowedText}.`, allowedText);
    }
  }
  return value;
}

/** Like `object`, but the value must be present. */
export function requiredObject(value: unknown, field: string, allowed: readonly string[]): Fields {
  if (value === undefined || value === null) throw invalidParams(field, `${field} is required`);
  return object(value, field, allowed);
}

export function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidParams(field, mustBe(field, integerRule(min, max), shown(value)), `${min}..${max}`);
  }
  return value;
}

export function optionalInteger(value: unknown, field: string, min: number, max: number): number | undefined {
  return value === undefined ? undefined : integer(value, field, min, max);
}

export function number(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalidParams(field, `${field} must be a number from ${min} to ${max} (got ${shown(value)})`, `${min}..${max}`);
  }
  return value;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalidParams(field, `${field} must be true or false (got ${shown(value)})`, 'true, false');
  return value;
}

export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  return value === undefined ? undefined : boolean(value, field);
}

/** Queue, kind, worker id and schedule names. */
export function name(value: unknown, field: string): string {
  if (typeof value !== 'string' || !NAME_PATTERN.test(value)) {
    const what = value === '' ? 'an empty string' : shown(value);
    throw invalidParams(field, mustBe(field, NAME_RULE, what), NAME_PATTERN.source);
  }
  return value;
}

export function optionalName(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : name(value, field);
}

export function string(value: unknown, field: string, maxLength: number, minLength = 0): string {
  if (typeof value !== 'string') throw invalidParams(field, `${field} must be a string (got ${shown(value)})`);
  if (value.length < minLength || value.length > maxLength) {
    throw invalidParams(field, mustBe(field, lengthRule(minLength, maxLength), String(value.length)), `${minLength}..${maxLength} characters`);
  }
  return value;
}

/** A string with at least one character and no limit of its own (ids and names checked further on). */
export function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalidParams(field, `${field} must be a non-empty string (got ${shown(value)})`, 'a non-empty string');
  return value;
}

export function optionalString(value: unknown, field: string, maxLength: number, minLength = 0): string | undefined {
  return value === undefined ? undefined : string(value, field, maxLength, minLength);
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw invalidParams(field, `${field} must be one of ${allowed.join(', ')} (got ${shown(value)})`, allowed.join(', '));
  return found;
}

export function array(value: unknown, field: string, maxItems: number, minItems = 0): unknown[] {
  if (!Array.isArray(value)) throw invalidParams(field, `${field} must be an array (got ${shown(value)})`);
  if (value.length < minItems || value.length > maxItems) {
    throw invalidParams(field, `${field} must have ${minItems} to ${maxItems} items (got ${value.length})`, `${minItems}..${maxItems} items`);
  }
  return value;
}

/**
 * A list of distinct choices at most as long as `allowed`, each one of `allowed`. The error
 * names the list as the field (the entry in the message), so that `data.allowed` is the list of
 * choices.
 */
export function choiceList<T extends string>(value: unknown, field: string, allowed: readonly T[]): T[] {
  return array(value, field, allowed.length).map((item, i) => {
    const found = allowed.find((a) => a === item);
    if (found === undefined) throw invalidParams(field, `${field}[${i}] must be one of ${allowed.join(', ')} (got ${shown(item)})`, allowed.join(', '));
    return found;
  });
}

export function optionalChoiceList<T extends string>(value: unknown, field: string, allowed: readonly T[]): T[] | undefined {
  return value === undefined ? undefined : choiceList(value, field, allowed);
}

export function nameList(value: unknown, field: string, maxItems: number): string[] {
  return array(value, field, maxItems).map((item, i) => name(item, `${field}[${i}]`));
}

/**
 * Any JSON value, serialized, within `limit` bytes. What JSON.stringify cannot serialize
 * (BigInt, cycles, undefined at the top) is refused. Input from the wire is parsed JSON, so it
 * always round-trips; in-process callers get the same rules JSON.stringify applies.
 */
export function jsonText(value: unknown, field: string, limit: number = LIMITS.maxPayloadBytes): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw invalidParams(field, `${field} must be JSON-serializable: ${errorMessage(error)}`);
  }
  if (text === undefined) throw invalidParams(field, `${field} must be a JSON value (got ${typeof value})`);
  // Buffer.byteLength counts without encoding a copy: this runs on every enqueue's payload.
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limit) {
    throw new SpoolError(ErrorCode.PayloadTooLarge, `${field} is ${bytes} bytes as JSON; the limit is ${limit} bytes. Store large data elsewhere and pass a reference.`, {
      field,
      limit,
    });
  }
  return text;
}

/** A job id: the UUID text form. Anything else cannot name a job. */
export function jobId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw invalidParams(field, `${field} must be a job id (a UUID such as 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b; got ${shown(value)})`, 'UUID');
  }
  return value.toLowerCase();
}
