/**
 * The JSON Schema shipped for spool.jsonc agrees with the parser: it is generated from the same
 * field table, the committed copy is not stale, every field has a description, and the package
 * registers it for spool.jsonc and spool.json.
 *
 * After changing shared/jobsfile/spec.ts, rewrite the committed copy with:
 *   SPOOL_UPDATE_SCHEMA=1 node --import tsx --test test/unit/jobsfile-schema.test.ts
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { FILE_SPEC, jobsFileSchema, parseJobsFile, QUEUE_SPEC, SCHEDULE_SPEC, TEMPLATE_SPEC, type JsonSchema, type ObjectSpec } from '../../shared/jobsfile';

const ROOT = path.resolve(__dirname, '..', '..');
const SCHEMA_FILE = path.join(ROOT, 'schema', 'spool.schema.json');

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The schema of the object at `names` (property names, `*` for a map's values). */
function at(schema: JsonSchema, ...names: string[]): JsonSchema {
  let s = schema;
  for (const name of names) {
    const next = name === '*' ? s['additionalProperties'] : isSchema(s['properties']) ? s['properties'][name] : undefined;
    assert.ok(isSchema(next), `no schema at ${names.join('.')}`);
    s = next;
  }
  return s;
}

test('the committed schema is the one generated from the field table', () => {
  const generated = `${JSON.stringify(jobsFileSchema(), null, 2)}\n`;
  if (process.env['SPOOL_UPDATE_SCHEMA'] === '1') fs.writeFileSync(SCHEMA_FILE, generated);
  const committed = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : '';
  // A boolean, not the two texts: a stale schema is one fix, and a 30 kB diff hides the hint.
  assert.ok(committed === generated, 'schema/spool.schema.json is stale: run SPOOL_UPDATE_SCHEMA=1 node --import tsx --test test/unit/jobsfile-schema.test.ts');
});

test('the schema knows exactly the fields the parser knows, at every level', () => {
  const schema = jobsFileSchema();
  const cases: [JsonSchema, ObjectSpec][] = [
    [schema, FILE_SPEC],
    [at(schema, 'queues', '*'), QUEUE_SPEC],
    [at(schema, 'templates', '*'), TEMPLATE_SPEC],
    [at(schema, 'schedules', '*'), SCHEDULE_SPEC],
  ];
  for (const [s, spec] of cases) {
    assert.ok(isSchema(s['properties']));
    assert.deepEqual(Object.keys(s['properties']).sort(), Object.keys(spec.fields).sort());
    assert.equal(s['additionalProperties'], false);
    assert.deepEqual(s['required'] ?? [], [...(spec.required ?? [])]);
  }
  // And the parser refuses, as unknown, a field the schema does not list.
  const problems = parseJobsFile('{"project":"p","queues":{"q":{"colour":"red"}}}').problems;
  assert.deepEqual(problems.map((p) => p.code), ['unknown-field']);
});

test('every field of the schema has a description', () => {
  const missing: string[] = [];
  const walk = (s: JsonSchema, where: string): void => {
    if (typeof s['description'] !== 'string' || s['description'].length < 10) missing.push(where);
    if (isSchema(s['properties'])) for (const [k, v] of Object.entries(s['properties'])) if (isSchema(v)) walk(v, `${where}.${k}`);
    if (isSchema(s['additionalProperties'])) walk(s['additionalProperties'], `${where}.*`);
  };
  walk(jobsFileSchema(), '(root)');
  assert.deepEqual(missing, []);
});

test('in VS Code the jobs file has one source of help: its own language, served by the language server alone', () => {
  const pkg: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.ok(isSchema(pkg) && isSchema(pkg['contributes']));
  // Registered as JSON with a schema, the file had VS Code's JSON service beside the language
  // server: every completion twice, and a schema warning beside each Spool error.
  assert.equal(pkg['contributes']['jsonValidation'], undefined);
  const languages = pkg['contributes']['languages'];
  assert.ok(Array.isArray(languages));
  const language: unknown = languages.find((l: unknown) => isSchema(l) && l['id'] === 'spool-jobs');
  assert.ok(isSchema(language), 'a language spool-jobs');
  assert.deepEqual(language['filenames'], ['spool.jsonc', 'spool.json']);
  assert.ok(!languages.some((l: unknown) => isSchema(l) && (l['id'] === 'json' || l['id'] === 'jsonc')), 'the file is not given to the JSON language');
  const grammars = pkg['contributes']['grammars'];
  assert.ok(Array.isArray(grammars));
  const grammar: unknown = grammars.find((g: unknown) => isSchema(g) && g['language'] === 'spool-jobs');
  assert.ok(isSchema(grammar) && typeof grammar['path'] === 'string');
  // The grammar is JSON with Comments' own, so the file is coloured as before.
  assert.match(fs.readFileSync(path.join(ROOT, grammar['path']), 'utf8'), /"include": "source\.json\.comments"/);
  const ignore = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8');
  assert.match(ignore, /^!syntaxes\/\*\*$/m, '.vscodeignore keeps the grammar and language configuration in the package');
});

test('docs/jobs-as-code.md documents every field and carries the example file as it is', () => {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'jobs-as-code.md'), 'utf8');
  const undocumented: string[] = [];
  const walk = (spec: ObjectSpec, where: string): void => {
    for (const [name, field] of Object.entries(spec.fields)) {
      if (!docs.includes(`| \`${name}\` |`)) undocumented.push(`${where}.${name}`);
      if (field.kind === 'map' && field.values.kind === 'object') walk(field.values, `${where}.${name}.*`);
    }
  };
  for (const spec of [FILE_SPEC, QUEUE_SPEC, TEMPLATE_SPEC, SCHEDULE_SPEC]) walk(spec, spec === FILE_SPEC ? '(file)' : spec.description.slice(0, 12));
  assert.deepEqual(undocumented, [], 'every field has a row in a table of docs/jobs-as-code.md');
  const example = fs.readFileSync(path.join(ROOT, 'examples', 'spool.jsonc'), 'utf8');
  assert.ok(docs.includes(`\`\`\`jsonc\n${example}\`\`\``), 'the docs show examples/spool.jsonc unchanged');
  assert.deepEqual(parseJobsFile(example).problems, []);
});
