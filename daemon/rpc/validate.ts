/**
 * Validation of the params the daemon handles itself (daemon.*, events.*, the long-poll part of
 * jobs.claim, the id of single-job methods). Everything else is validated by the engine. Each
 * failure is an InvalidParams error naming the field and what is allowed.
 */
import { clipName, invalidParams } from '../../shared/errors';
import { isRecord } from './envelope';

export type Params = Record<string, unknown>;

/** The params as an object with only `allowed` keys; absent params are an empty object. */
export function paramsObject(params: unknown, method: string, allowed: readonly string[]): Params {
  if (params === undefined || params === null) return {};
  if (!isRecord(params)) throw invalidParams('params', `${method} takes named params (a JSON object).`);
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) {
      const allowedText = allowed.length > 0 ? allowed.join(', ') : 'none';
      throw invalidParams(key, `Unknown field "${clipName(key)}" in ${method} params. Allowed: ${allowedText}.`, allowedText);
    }
  }
  return params;
}

export function requiredString(params: Params, field: string, method: string): string {
  const value = params[field];
  if (typeof value !== 'string' || value.length === 0) throw invalidParams(field, `${method} needs "${field}" as a non-empty string.`, 'a non-empty string');
  return value;
}

export function optionalInteger(params: Params, field: string, min: number, max: number): number | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParams(field, `"${field}" must be an integer from ${min} to ${max}.`, `${min}..${max}`);
  }
  return value;
}

export function optionalStringList(params: Params, field: string, maxItems: number): string[] | undefined {
  const value = params[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > maxItems) throw invalidParams(field, `"${field}" must be a list of at most ${maxItems} strings.`);
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') throw invalidParams(field, `"${field}" must contain only strings.`);
    out.push(item);
  }
  return out;
}

/** A list whose items must each be one of `allowed`. */
export function optionalChoiceList<T extends string>(params: Params, field: string, allowed: readonly T[]): T[] | undefined {
  const list = optionalStringList(params, field, allowed.length);
  if (list === undefined) return undefined;
  return list.map((item) => {
    const match = allowed.find((a) => a === item);
    if (match === undefined) throw invalidParams(field, `"${clip(item)}" is not allowed in "${field}". Allowed: ${allowed.join(', ')}.`, allowed.join(', '));
    return match;
  });
}

/** Echoing a hostile 16 MiB field name back in an error helps nobody. */
function clip(text: string): string {
  return text.length > 64 ? text.slice(0, 64) + '…' : text;
}
