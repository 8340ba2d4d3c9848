/**
 * The method table is what the daemon's handlers are checked against: with the real table edited
 * in memory and the handlers compiled against it, removing a method or adding one without a
 * handler is a compile error in the handlers. (test/unit/protocol-table.types.ts shows the same
 * on the types alone, within `npm run typecheck`.)
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const TABLE = path.join(ROOT, 'shared', 'protocol', 'methods.ts');
const HANDLERS = path.join(ROOT, 'daemon', 'rpc', 'handlers');
const tableText = fs.readFileSync(TABLE, 'utf8');
const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
});
assert.ok(config, 'tsconfig.json is readable');
const { options } = config;

let previous: ts.Program | undefined;

/** The compile errors in daemon/rpc/handlers/ with shared/protocol/methods.ts replaced by `table`. */
function handlerErrors(table: string): string[] {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, shouldCreate) =>
    path.resolve(fileName) === TABLE ? ts.createSourceFile(fileName, table, language) : read(fileName, language, onError, shouldCreate);
  const program = ts.createProgram([path.join(HANDLERS, 'index.ts')], options, host, previous);
  previous = program;
  return program
    .getSourceFiles()
    .filter((file) => path.resolve(file.fileName).startsWith(HANDLERS + path.sep))
    .flatMap((file) => program.getSemanticDiagnostics(file))
    .map((d) => `${path.relative(ROOT, d.file?.fileName ?? '')}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

/** The table's text without the entry of `method`. */
function without(method: string): string {
  const entry = new RegExp(`\\n  '${method.replace('.', '\\.')}': method<[^]*?\\n  \\}\\),`);
  assert.match(tableText, entry, `shared/protocol/methods.ts has an entry for ${method}`);
  return tableText.replace(entry, '');
}

test('the handlers compile against the table as it is', () => {
  assert.deepEqual(handlerErrors(tableText), []);
});

test('removing a method from the table is a compile error where its handler is', () => {
  const errors = handlerErrors(without('jobs.release'));
  assert.ok(
    errors.some((e) => e.startsWith(path.join('daemon', 'rpc', 'handlers', 'workers.ts')) && e.includes('jobs.release')),
    `expected an error about jobs.release in workers.ts, got:\n${errors.join('\n')}`,
  );
});

test('adding a method to the table without a handler is a compile error in the handler table', () => {
  const added = tableText.replace(
    '\n} as const satisfies',
    `\n  'jobs.explode': method<JobIdParams, Ok>()({ caller: 'client', grouped: false, summary: 'Not a method.', errors: [] }),\n} as const satisfies`,
  );
  assert.notEqual(added, tableText);
  const errors = handlerErrors(added);
  assert.ok(
    errors.some((e) => e.startsWith(path.join('daemon', 'rpc', 'handlers', 'index.ts')) && e.includes('jobs.explode')),
    `expected an error about jobs.explode in index.ts, got:\n${errors.join('\n')}`,
  );
});
