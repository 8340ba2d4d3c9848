/**
 * The JSON Schema of the jobs file, generated from the field table (`spec.ts`) that the parser
 * checks against, so the two cannot disagree. The committed copy, schema/spool.schema.json, is
 * for editors without Spool's language server (a `$schema` reference in the file); VS Code does
 * not register it, since its language server gives the same help and a second source showed
 * everything twice. test/unit/jobsfile-schema.test.ts fails when it is stale and rewrites it with
 * SPOOL_UPDATE_SCHEMA=1.
 *
 * The schema is the editor's first help (completion, hover, simple checks); the parser remains
 * the judge: a cron, a time zone or a reference between objects is beyond what a schema says.
 */
import { NAME_PATTERN } from '../protocol';
import { FILE_SPEC, NEED_SPEC, TEMPLATE_SPEC, type FieldSpec, type ObjectSpec } from './spec';

/** A JSON Schema (draft-07) object, as far as this file uses it. */
export type JsonSchema = { [key: string]: unknown };

/** Durations as `parseDuration` reads them: `0`, or number-unit pairs. */
const DURATION_PATTERN = '^\\s*(0|(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+)\\s*$';
/** Rates as `parseRate` reads them, or `off`/`none`. */
const RATE_PATTERN = '^\\s*(off|none|\\d+(\\.\\d+)?\\s*/\\s*(s|m|h)((\\s+burst\\s+|:)\\d+)?)\\s*$';
/** Priority ageing as `parseAgeing` reads it (`1 per 10m`), or `off`/`none`. */
const AGEING_PATTERN = '^\\s*(off|none|\\d+\\s+per\\s+(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+)\\s*$';
/** Backoffs as `parseBackoff` reads them: a strategy and up to three more parts. */
const BACKOFF_PATTERN = '^\\s*(exponential|linear|fixed)(:[^:]*){0,3}$';

/** The whole schema. */
export function jobsFileSchema(): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Spool jobs file (spool.jsonc)',
    ...fieldSchema(FILE_SPEC),
    // VS Code's JSON language service reads these two: the file is JSON with comments, and a
    // trailing comma is accepted (the parser allows both).
    allowComments: true,
    allowTrailingCommas: true,
  };
}

/** One field's schema. */
function fieldSchema(spec: FieldSpec): JsonSchema {
  const base: JsonSchema = { description: spec.description };
  switch (spec.kind) {
    case 'object':
      return objectSchema(spec);
    case 'map':
      return {
        ...base,
        type: 'object',
        propertyNames: { pattern: spec.keys.pattern.source, description: `A key: ${spec.keys.allowed}.` },
        additionalProperties: fieldSchema(spec.values),
      };
    case 'string':
      return {
        ...base,
        type: 'string',
        ...(spec.enum !== undefined ? { enum: [...spec.enum] } : {}),
        ...(spec.enumDescriptions !== undefined ? { enumDescriptions: [...spec.enumDescriptions] } : {}),
        ...(spec.minLength !== undefined ? { minLength: spec.minLength } : {}),
        ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
        ...(spec.examples !== undefined ? { examples: [...spec.examples] } : {}),
      };
    case 'name':
      return { ...base, type: 'string', pattern: NAME_PATTERN.source, ...(spec.examples !== undefined ? { examples: [...spec.examples] } : {}) };
    case 'duration':
      return { ...base, type: spec.nullable === true ? ['string', 'null'] : 'string', pattern: DURATION_PATTERN, examples: [...spec.examples] };
    case 'rate':
      return { ...base, type: ['string', 'null'], pattern: RATE_PATTERN, examples: [...spec.examples] };
    case 'ageing':
      return { ...base, type: ['string', 'null'], pattern: AGEING_PATTERN, examples: [...spec.examples] };
    case 'backoff':
      return { ...base, type: 'string', pattern: BACKOFF_PATTERN, examples: [...spec.examples] };
    case 'cron':
    case 'timezone':
      return { ...base, type: 'string', examples: [...spec.examples] };
    case 'integer':
      return {
        ...base,
        type: spec.nullable === true ? ['integer', 'null'] : 'integer',
        minimum: spec.min,
        maximum: spec.max,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'boolean':
      return { ...base, type: 'boolean', ...(spec.default !== undefined ? { default: spec.default } : {}) };
    case 'json':
      return base;
    case 'stringList':
      return { ...base, type: 'array', maxItems: spec.maxItems, items: { type: 'string', minLength: 1, maxLength: spec.maxLength } };
    case 'needs':
      return { ...base, type: 'array', items: { anyOf: [{ type: 'string', pattern: NAME_PATTERN.source, description: 'A step that must succeed first.' }, objectSchema(NEED_SPEC)] } };
  }
}

function objectSchema(spec: ObjectSpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(spec.fields)) properties[name] = fieldSchema(field);
  const schema: JsonSchema = {
    description: spec.description,
    type: 'object',
    properties,
    additionalProperties: false,
    ...(spec.required !== undefined ? { required: [...spec.required] } : {}),
  };
  if (spec === TEMPLATE_SPEC) schema['allOf'] = kindRules(spec);
  return schema;
}

/** A template's kind decides which payload fields it takes and which one it needs. */
function kindRules(spec: ObjectSpec): JsonSchema[] {
  const kindFields = Object.entries(spec.fields).filter(([, f]) => f.kinds !== undefined);
  const rule = (condition: JsonSchema, group: 'shell' | 'http' | 'custom', needs: string): JsonSchema => ({
    if: { properties: { kind: condition }, required: ['kind'] },
    then: {
      required: [needs],
      // Fields of the other kinds are refused, as the parser refuses them.
      properties: Object.fromEntries(kindFields.filter(([, f]) => !(f.kinds ?? []).includes(group)).map(([name]) => [name, false])),
    },
  });
  return [rule({ const: 'shell' }, 'shell', 'command'), rule({ const: 'http' }, 'http', 'url'), rule({ not: { enum: ['shell', 'http'] } }, 'custom', 'payload')];
}
