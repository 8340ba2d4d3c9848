/**
 * The schema and value checks, driven by the field table of `spec.ts`: each value of the tree is
 * read against its field's spec and converted (a duration to milliseconds, a rate to a
 * RateLimit) or reported at its exact range — wrong type, unknown field (with the closest known
 * name), missing required field, duplicate key, a value outside its limits, a duration, rate,
 * backoff, cron or time zone that the domain's one parser refuses. Reading goes on after a
 * problem, so one pass reports them all. A value out of its limits is refused in the daemon's
 * words (shared/domain/validate.ts's rule texts), so the file and `project.apply` say the same.
 */
import type { Node } from 'jsonc-parser';
import { parseBackoff } from '../domain/backoff';
import { cronProblem, parseCron, timezoneProblem } from '../domain/cron';
import { parseDuration } from '../domain/durations';
import { parseRate } from '../domain/rates';
import { AGEING_FORM, formatAgeing, parseAgeing } from '../domain/ageing';
import { durationRule } from '../domain/rules/options';
import { integerRule, lengthRule, mustBe, NAME_RULE, shown } from '../domain/validate';
import { NAME_PATTERN } from '../protocol';
import type { Layer, Problem, ProblemCode, Severity } from './model';
import { offsetInString, type LineIndex } from './positions';
import type { FieldSpec, KindGroup, ObjectSpec } from './spec';
import { closest, knownTimezones } from './suggest';

/** A value that failed its check: left out of the declaration. */
export const INVALID: unique symbol = Symbol('invalid');
export type Read<T> = T | typeof INVALID;

/** The JSON path of a field, e.g. ["templates", "backup", "queue"]. */
export type JsonPath = (string | number)[];

/** A path as messages write it: `templates.backup.queue`, names with odd characters quoted. */
export function pathText(path: JsonPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? 'the file' : out;
}

/** What kind of JSON a node holds, as messages say it. */
function typeWords(node: Node): string {
  switch (node.type) {
    case 'object': return 'an object';
    case 'array': return 'an array';
    case 'string': return `the string ${shown(node.value)}`;
    case 'number': return `the number ${String(node.value)}`;
    case 'boolean': return String(node.value);
    case 'null': return 'null';
    default: return node.type;
  }
}

/** An object's members: each key's property node, in the order of the text, duplicates included. */
export function members(node: Node): { key: string; keyNode: Node; value: Node | undefined; property: Node }[] {
  const out: { key: string; keyNode: Node; value: Node | undefined; property: Node }[] = [];
  for (const property of node.children ?? []) {
    const keyNode = property.children?.[0];
    if (keyNode === undefined || typeof keyNode.value !== 'string') continue;
    out.push({ key: keyNode.value, keyNode, value: property.children?.[1], property });
  }
  return out;
}

/** Reads values against the spec and collects problems, for one parse. */
export class Checker {
  readonly problems: Problem[] = [];

  constructor(
    readonly text: string,
    readonly lines: LineIndex,
  ) {}

  /** Records a problem over `length` code units from `offset`. */
  report(at: { offset: number; length: number }, code: ProblemCode, message: string, path: JsonPath, extra: { severity?: Severity; layer?: Layer; allowed?: string; suggestion?: string } = {}): void {
    const problem: Problem = {
      severity: extra.severity ?? 'error',
      layer: extra.layer ?? layerOf(code),
      code,
      message,
      range: this.lines.span(at.offset, at.length),
      path,
    };
    if (extra.allowed !== undefined) problem.allowed = extra.allowed;
    if (extra.suggestion !== undefined) problem.suggestion = extra.suggestion;
    this.problems.push(problem);
  }

  /** Reports `code` over the characters `start`..`end` of a string node's value. */
  reportInString(node: Node, start: number, end: number, code: ProblemCode, message: string, path: JsonPath, extra: { allowed?: string; suggestion?: string; severity?: Severity } = {}): void {
    const from = offsetInString(this.text, node.offset, start);
    const to = offsetInString(this.text, node.offset, end);
    this.report({ offset: from, length: to - from }, code, message, path, extra);
  }

  /**
   * An object's known fields read against `spec`: their converted values (invalid ones left
   * out) and value nodes. Null when `node` is not an object. `group` is a template's kind group,
   * to refuse a field of another kind; `nameNode` is the key naming the object, where a missing
   * required field is reported. Fields in `manual` are checked for presence only: the caller
   * reads them itself (the file's maps of objects, whose entries need their own nodes).
   */
  object(node: Node, spec: ObjectSpec, path: JsonPath, options: { nameNode?: Node; group?: KindGroup; manual?: readonly string[] } = {}): { values: Record<string, unknown>; nodes: Record<string, Node> } | null {
    const { nameNode, group, manual = [] } = options;
    if (node.type !== 'object') {
      this.report(node, 'wrong-type', `${pathText(path)} must be an object (got ${typeWords(node)})`, path, { allowed: 'an object' });
      return null;
    }
    const values: Record<string, unknown> = {};
    const nodes: Record<string, Node> = {};
    const known = Object.keys(spec.fields);
    const seen = new Map<string, Node>();
    for (const { key, keyNode, value } of members(node)) {
      const fieldPath = [...path, key];
      if (!this.unique(key, keyNode, seen, fieldPath, path)) continue;
      const field = spec.fields[key];
      if (field === undefined || !Object.hasOwn(spec.fields, key)) {
        const near = closest(key, known);
        const hint = near !== undefined ? ` Did you mean "${near}"?` : '';
        this.report(keyNode, 'unknown-field', `Unknown field "${key}" in ${pathText(path)}.${hint} Allowed: ${known.join(', ')}.`, fieldPath, {
          allowed: known.join(', '),
          ...(near !== undefined ? { suggestion: near } : {}),
        });
        continue;
      }
      if (group !== undefined && field.kinds !== undefined && !field.kinds.includes(group)) {
        const forKind = known.filter((k) => spec.fields[k]?.kinds?.includes(group));
        this.report(keyNode, 'field-not-for-kind', `"${key}" is a field of ${field.kinds.join(' or ')} templates; ${pathText(path)} is ${group === 'http' ? 'an' : 'a'} ${group} template (its own fields: ${forKind.join(', ')}).`, fieldPath, {
          allowed: forKind.join(', '),
        });
        continue;
      }
      if (value === undefined) continue;
      nodes[key] = value;
      if (manual.includes(key)) continue;
      const read = this.value(value, field, fieldPath);
      if (read !== INVALID) values[key] = read;
    }
    for (const name of spec.required ?? []) {
      if (!seen.has(name)) this.missing(node, nameNode, name, spec.fields[name]?.description ?? '', path);
    }
    return { values, nodes };
  }

  /** Reports a required field that is absent: at the object's name, or its opening brace. */
  missing(objectNode: Node, nameNode: Node | undefined, field: string, description: string, path: JsonPath): void {
    const at = nameNode ?? { offset: objectNode.offset, length: 1 };
    this.report(at, 'missing-required', `${pathText(path)} needs "${field}": ${description}`, [...path, field], { layer: 'schema' });
  }

  /** False (and a problem) when `key` was seen before in the same object. */
  unique(key: string, keyNode: Node, seen: Map<string, Node>, fieldPath: JsonPath, path: JsonPath): boolean {
    const first = seen.get(key);
    if (first !== undefined) {
      const line = this.lines.position(first.offset).line + 1;
      this.report(keyNode, 'duplicate-key', `"${key}" appears twice in ${pathText(path)} (first on line ${line}); each key may appear once.`, fieldPath);
      return false;
    }
    seen.set(key, keyNode);
    return true;
  }

  /** A map's entries: keys checked against its rule and for duplicates, values read. */
  map(node: Node, spec: Extract<FieldSpec, { kind: 'map' }>, path: JsonPath): Record<string, unknown> | typeof INVALID {
    if (node.type !== 'object') {
      this.report(node, 'wrong-type', `${pathText(path)} must be an object (got ${typeWords(node)})`, path, { allowed: 'an object' });
      return INVALID;
    }
    const out: Record<string, unknown> = {};
    const seen = new Map<string, Node>();
    for (const { key, keyNode, value } of members(node)) {
      const fieldPath = [...path, key];
      if (!this.unique(key, keyNode, seen, fieldPath, path)) continue;
      if (!spec.keys.pattern.test(key)) {
        this.report(keyNode, 'invalid-name', `${pathText(path)} has the key ${shown(key)}: a key there must be ${spec.keys.allowed}.`, fieldPath, { allowed: spec.keys.allowed });
        continue;
      }
      if (value === undefined) continue;
      const read = this.value(value, spec.values, fieldPath);
      if (read !== INVALID) out[key] = read;
    }
    return out;
  }

  /** One value read against its spec: converted, or INVALID after reporting why. */
  value(node: Node, spec: FieldSpec, path: JsonPath): unknown {
    const field = pathText(path);
    const wrongType = (want: string): typeof INVALID => {
      this.report(node, 'wrong-type', `${field} must be ${want} (got ${typeWords(node)})`, path, { allowed: want });
      return INVALID;
    };
    switch (spec.kind) {
      case 'object': {
        const read = this.object(node, spec, path);
        return read === null ? INVALID : read.values;
      }
      case 'map':
        return this.map(node, spec, path);
      case 'json':
        return plainValue(node);
      case 'boolean':
        return node.type === 'boolean' ? node.value === true : wrongType('true or false');
      case 'integer': {
        if (spec.nullable === true && node.type === 'null') return null;
        const want = `${integerRule(spec.min, spec.max)}${spec.nullable === true ? ', or null' : ''}`;
        if (node.type !== 'number') return wrongType(want);
        const n: unknown = node.value;
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < spec.min || n > spec.max) {
          this.report(node, 'out-of-range', mustBe(field, want, shown(n)), path, { allowed: want });
          return INVALID;
        }
        return n;
      }
      case 'stringList': {
        const want = `a list of up to ${spec.maxItems} strings`;
        if (node.type !== 'array') return wrongType(want);
        const items = node.children ?? [];
        if (items.length > spec.maxItems) {
          this.report(node, 'out-of-range', `${field} must be ${want} (got ${items.length})`, path, { allowed: want });
          return INVALID;
        }
        const out: string[] = [];
        let ok = true;
        items.forEach((item, i) => {
          const v: unknown = item.value;
          if (item.type !== 'string' || typeof v !== 'string' || v.length === 0 || v.length > spec.maxLength) {
            this.report(item, 'wrong-type', `${field}[${i}] must be a string of 1 to ${spec.maxLength} characters (got ${typeWords(item)})`, [...path, i]);
            ok = false;
          } else out.push(v);
        });
        return ok ? out : INVALID;
      }
      default:
        break;
    }
    // The rest are strings (a rate or a duration may also be null).
    const nullable = (spec.kind === 'duration' && spec.nullable === true) || spec.kind === 'rate' || spec.kind === 'ageing';
    if (nullable && node.type === 'null') return null;
    if (node.type !== 'string' || typeof node.value !== 'string') return wrongType(stringWords(spec) + (nullable ? ', or null' : ''));
    return this.text_(node, node.value, spec, path);
  }

  /** A string value read against its spec. */
  private text_(node: Node, text: string, spec: FieldSpec, path: JsonPath): unknown {
    const field = pathText(path);
    switch (spec.kind) {
      case 'string': {
        if (spec.enum !== undefined && !spec.enum.includes(text)) {
          const near = closest(text, spec.enum);
          const allowed = spec.enum.join(', ');
          this.report(node, 'not-allowed', `${field} must be one of ${allowed} (got ${shown(text)})${near !== undefined ? `. Did you mean "${near}"?` : ''}`, path, {
            allowed,
            ...(near !== undefined ? { suggestion: near } : {}),
          });
          return INVALID;
        }
        const min = spec.minLength ?? 0;
        const max = spec.maxLength ?? Number.MAX_SAFE_INTEGER;
        if (text.length < min || text.length > max) {
          const want = lengthRule(min, max);
          this.report(node, 'out-of-range', mustBe(field, want, String(text.length)), path, { allowed: want });
          return INVALID;
        }
        return text;
      }
      case 'name':
        if (!NAME_PATTERN.test(text)) {
          this.report(node, 'invalid-name', mustBe(field, NAME_RULE, shown(text)), path, { allowed: NAME_RULE });
          return INVALID;
        }
        return text;
      case 'duration': {
        const ms = parseDuration(text);
        const allowed = `${durationRule(spec.minMs ?? 0, spec.maxMs)}${spec.nullable === true ? ', or null' : ''}`;
        if (!ms.ok) {
          this.report(node, 'invalid-duration', `${field} is not a duration: ${ms.message} (got ${shown(text)})`, path, { allowed, layer: 'meaning' });
          return INVALID;
        }
        if (ms.value < (spec.minMs ?? 0) || ms.value > spec.maxMs) {
          this.report(node, 'out-of-range', mustBe(field, allowed, shown(text)), path, { allowed, layer: 'meaning' });
          return INVALID;
        }
        return ms.value;
      }
      case 'rate': {
        const rate = parseRate(text);
        if (!rate.ok) {
          this.report(node, 'invalid-rate', `${field} is not a rate: ${rate.message} (got ${shown(text)})`, path, { allowed: 'jobs per s, m or h, like 10/s or 10/s burst 20; off' });
          return INVALID;
        }
        return rate.value;
      }
      case 'ageing': {
        const ageing = parseAgeing(text);
        if (!ageing.ok) {
          this.report(node, 'invalid-ageing', `${field} is not a priority ageing: ${ageing.message} (got ${shown(text)})`, path, { allowed: AGEING_FORM });
          return INVALID;
        }
        return ageing.value === null ? null : formatAgeing(ageing.value);
      }
      case 'backoff': {
        const backoff = parseBackoff(text);
        if (!backoff.ok) {
          this.report(node, 'invalid-backoff', `${field} is not a backoff: ${backoff.message} (got ${shown(text)})`, path, { allowed: 'strategy[:base[:cap[:jitter]]]' });
          return INVALID;
        }
        return backoff.value;
      }
      case 'cron': {
        // The expression alone: the zone is the timezone field's business (reported there).
        // The domain's ranges are offsets in the text as given, so they map straight back.
        const cron = parseCron(text);
        if (!cron.ok) {
          this.reportInString(node, cron.problem.start, cron.problem.end, 'invalid-cron', `${field}: ${cron.problem.message}`, path, { allowed: cron.problem.allowed });
          return INVALID;
        }
        const never = cronProblem({ cron: text });
        if (never !== null) {
          this.reportInString(node, never.start, never.end, 'cron-never-fires', `${field}: ${never.message}`, path, { allowed: never.allowed });
          return INVALID;
        }
        return text.trim();
      }
      case 'timezone': {
        const problem = timezoneProblem(text);
        if (problem !== null) {
          const near = closest(text, knownTimezones());
          this.report(node, 'unknown-timezone', `${field}: ${problem.message}${near !== undefined ? ` Did you mean "${near}"?` : ''}`, path, {
            allowed: problem.allowed,
            ...(near !== undefined ? { suggestion: near } : {}),
          });
          return INVALID;
        }
        return text;
      }
      default:
        return INVALID;
    }
  }
}

/** Adds `key` as an own entry, even "__proto__" (which plain assignment would take as the prototype). */
export function setEntry(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A node's JSON value with plain objects (jsonc-parser's getNodeValue makes objects without a
 * prototype, which compare unequal to plain ones and surprise whoever receives them).
 */
export function plainValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const m of members(node)) if (m.value !== undefined) setEntry(out, m.key, plainValue(m.value));
      return out;
    }
    case 'array':
      return (node.children ?? []).map(plainValue);
    default: {
      const value: unknown = node.value;
      return value ?? null;
    }
  }
}

/** What a string field takes, in words, for a wrong-type message. */
function stringWords(spec: FieldSpec): string {
  switch (spec.kind) {
    case 'duration': return 'a duration string such as "30s" or "5m"';
    case 'rate': return 'a rate string such as "10/s" or "off"';
    case 'ageing': return 'an ageing string such as "1 per 10m" or "off"';
    case 'backoff': return 'a backoff string such as "exponential:1s:5m"';
    case 'cron': return 'a cron expression string such as "0 3 * * *"';
    case 'timezone': return 'an IANA time zone name such as "Europe/Paris"';
    case 'name': return 'a name (a string)';
    case 'string': return spec.enum !== undefined ? `one of ${spec.enum.join(', ')}` : 'a string';
    default: return 'a string';
  }
}

/** The layer a problem code belongs to. */
function layerOf(code: ProblemCode): Layer {
  switch (code) {
    case 'syntax':
    case 'too-deep':
      return 'syntax';
    case 'unknown-field':
    case 'wrong-type':
    case 'missing-required':
    case 'not-allowed':
    case 'out-of-range':
    case 'invalid-name':
    case 'field-not-for-kind':
      return 'schema';
    default:
      return 'meaning';
  }
}
