/**
 * docs/openrpc.json is what `npm run openrpc` makes of the protocol's tables today, and it is a
 * document a client generator can use: every method and notification present, every `$ref`
 * resolvable, every error a method names declared.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { ErrorCode, METHOD_NAMES, METHODS, NOTIFICATION_NAMES } from '../../shared/protocol';
import { jobStatesDoc } from '../../shared/domain/states';
import { OPENRPC_PATH, TYPES_PATH, buildOpenRpcDocument, renderOpenRpcDocument, renderTypesFile, type OpenRpcDocument, type Schema } from '../../scripts/openrpc';

const document: OpenRpcDocument = buildOpenRpcDocument();

test('docs/openrpc.json is up to date with the protocol table', () => {
  const committed = fs.readFileSync(OPENRPC_PATH, 'utf8');
  // Not deepEqual on the parsed JSON: its diff of a 100 KB document says less than this does.
  assert.ok(committed === renderOpenRpcDocument(), 'docs/openrpc.json is stale: run npm run openrpc');
});

test("JobState's comment in shared/protocol/types.ts and its description in the document are written from the transitions table", () => {
  const committed = fs.readFileSync(TYPES_PATH, 'utf8');
  assert.ok(committed === renderTypesFile(committed), "JobState's comment in shared/protocol/types.ts is stale: run npm run openrpc");
  assert.equal(document.components.schemas['JobState']?.description, jobStatesDoc());
  // Every action that moves a job out of running is named, release among them.
  for (const action of ['complete', 'fail', 'release', 'reap', 'recover', 'markCancelled']) assert.match(jobStatesDoc(), new RegExp(`\\b${action} \\(`), action);
  assert.doesNotMatch(committed, /recoverTo/);
});

test('every method of METHOD_NAMES is in the document, in order, with the table\'s caller and group commit', () => {
  assert.deepEqual(
    document.methods.map((m) => m.name),
    [...METHOD_NAMES],
  );
  for (const method of document.methods) {
    const info = METHODS[METHOD_NAMES.find((name) => name === method.name)!];
    assert.equal(method.summary, info.summary, method.name);
    assert.equal(method['x-caller'], info.caller, method.name);
    assert.equal(method['x-grouped'], info.grouped, method.name);
    assert.equal(method.paramStructure, 'by-name', method.name);
    assert.ok(method.result, `${method.name} has a result`);
  }
  assert.deepEqual(
    document['x-notifications'].map((n) => n.name),
    [...NOTIFICATION_NAMES],
  );
});

test('the params are the members of the params type, with the optional ones marked', () => {
  const enqueue = document.methods.find((m) => m.name === 'jobs.enqueue')!;
  const required = enqueue.params.filter((p) => p.required).map((p) => p.name);
  assert.deepEqual(required, ['queue', 'kind']);
  assert.deepEqual(enqueue['x-params'], { $ref: '#/components/schemas/EnqueueParams' });
  const status = document.methods.find((m) => m.name === 'daemon.status')!;
  assert.deepEqual(status.params, [], 'daemon.status takes no params');
  const changed = document['x-notifications'].find((n) => n.name === 'jobs.changed')!;
  assert.ok(changed.params.some((p) => p.name === 'subscriptionId' && p.required), 'jobs.changed carries its subscription id');
  assert.ok(changed.params.some((p) => p.name === 'state' && p.schema.$ref === '#/components/schemas/JobState'));
});

test('every $ref in the document resolves, and every error a method names is declared', () => {
  const refs: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === '$ref' && typeof child === 'string') refs.push(child);
        else visit(child);
      }
    }
  };
  visit(document);
  assert.ok(refs.length > 100, `the document should refer to its components (found ${refs.length} references)`);
  const unresolved = refs.filter((ref) => resolve(document, ref) === undefined);
  assert.deepEqual([...new Set(unresolved)], [], 'unresolvable $ref');
  for (const [name, error] of Object.entries(document.components.errors)) {
    assert.equal(error.code, Object.entries(ErrorCode).find(([key]) => key === name)?.[1], `the code of ${name}`);
    assert.ok(error.message.length > 0, `${name} has a message`);
  }
});

test('every schema uses only the keywords the generator means to write', () => {
  const allowed = new Set(['$ref', 'type', 'const', 'enum', 'description', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'pattern']);
  const check = (schema: Schema, where: string): void => {
    for (const key of Object.keys(schema)) assert.ok(allowed.has(key), `${where}: unexpected keyword ${key}`);
    if (schema.$ref !== undefined) assert.equal(Object.keys(schema).length, 1, `${where}: a $ref stands alone`);
    for (const [name, child] of Object.entries(schema.properties ?? {})) check(child, `${where}.${name}`);
    for (const name of schema.required ?? []) assert.ok(schema.properties?.[name], `${where}: required ${name} is not a property`);
    if (schema.items) check(schema.items, `${where}[]`);
    if (typeof schema.additionalProperties === 'object') check(schema.additionalProperties, `${where}{}`);
    schema.anyOf?.forEach((child, i) => check(child, `${where}|${i}`));
  };
  for (const [name, schema] of Object.entries(document.components.schemas)) check(schema, name);
  for (const method of [...document.methods, ...document['x-notifications']]) {
    for (const param of method.params) check(param.schema, `${method.name}(${param.name})`);
    if (method.result) check(method.result.schema, `${method.name} result`);
  }
});

/** The value a local `$ref` (`#/components/schemas/Job`) points at, or undefined. */
function resolve(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined;
    node = Object.getOwnPropertyDescriptor(node, part)?.value;
  }
  return node;
}
