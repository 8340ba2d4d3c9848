/**
 * Workflows in the language server, as an editor sees them: dist/lsp.js over stdio (no daemon:
 * the workflow checks are the file's own). Diagnostics at the exact range of an unknown step, a
 * cycle (named), an empty matrix and an undeclared placeholder; completion of step names in
 * `needs`; hover on a step with what it waits for and what waits for it; go to definition from a
 * need to its step; the outline's workflows and steps; the "Run workflow" lens, which (with a
 * daemon) starts a run of the workflow as the file says it, and the last run's counts beside it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CodeAction, CodeLens, CompletionItem, DocumentSymbol, Hover, Location, Range } from 'vscode-languageserver-protocol';
import type { WorkflowRunStarted } from '../../shared/protocol/workflows';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { marked, positionOf } from '../helpers/cursor';
import { startLsp, type LspClient } from '../helpers/lsp';

const RELEASE = `{
  "project": "lsp-workflows",
  "queues": { "builds": {}, "deploys": {} },
  "workflows": {
    "release": {
      "params": { "version": { "type": "string" } },
      "steps": {
        "build":   { "queue": "builds", "shell": "make build VERSION={{version}}" },
        "test":    { "queue": "builds", "shell": "make test TARGET={{target}}", "needs": ["build"], "matrix": { "target": ["linux", "mac", "win"] } },
        "package": { "queue": "builds", "shell": "make package", "needs": ["test"] },
        "deploy":  { "queue": "deploys", "http": { "url": "https://deploy.example.test/{{version}}" }, "needs": ["package"] },
        "cleanup": { "queue": "builds", "shell": "make clean", "needs": [{ "step": "deploy", "on": "finished" }] }
      }
    }
  }
}
`;

/** Four mistakes, each marked where its diagnostic must be (the empty matrix is found by its text). */
const BROKEN = `{
  "project": "lsp-workflows",
  "queues": { "q": {} },
  "workflows": {
    "w": {
      "steps": {
        "build": { "queue": "q", "shell": "make [[{{version}}]]", "needs": ["test"] },
        "test":  { "queue": "q", "shell": "test {{os}}", "needs": [ [["build"]], [["biuld"]] ], "matrix": { "os": [] } }
      }
    }
  }
}
`;

const uri = (name: string) => `file:///tmp/lsp-workflows/${name}/spool.jsonc`;

function hoverText(h: Hover | null): string {
  assert.ok(h !== null, 'a hover');
  const c = h.contents;
  return typeof c === 'object' && 'value' in c ? c.value : JSON.stringify(c);
}

describe('language server over stdio: workflows', () => {
  let lsp: LspClient;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-lsp-wf-'));
    lsp = await startLsp({ env: { SPOOL_SOCKET: path.join(dir, 'nobody.sock') } });
  });

  after(async () => {
    await lsp?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the release example has no diagnostics', async () => {
    await lsp.open(uri('release'), RELEASE);
    const diagnostics = await lsp.diagnosticsOf(uri('release'));
    assert.deepEqual(diagnostics, []);
  });

  test('an undeclared placeholder, a cycle (named), an unknown step and an empty matrix, each at its range', async () => {
    const file = marked(BROKEN);
    await lsp.open(uri('broken'), file.text);
    const diagnostics = await lsp.diagnosticsOf(uri('broken'), (d) => d.length >= 4);
    assert.deepEqual(
      diagnostics.map((d) => ({ code: d.code, range: d.range })),
      [
        { code: 'undeclared-param', range: file.ranges[0] },
        { code: 'workflow-cycle', range: file.ranges[1] },
        { code: 'unknown-step', range: file.ranges[2] },
        { code: 'empty-matrix', range: { start: positionOf(file.text, file.text.indexOf('[]')), end: positionOf(file.text, file.text.indexOf('[]') + 2) } },
      ],
    );
    const cycle = diagnostics.find((d) => d.code === 'workflow-cycle');
    assert.match(String(cycle?.message), /has a cycle: build → test → build\./);
    const unknown = diagnostics.find((d) => d.code === 'unknown-step');
    assert.match(String(unknown?.message), /Did you mean "build"\?/);
    // The quick fix puts the closest step's name in place of the unknown one.
    const actions = await lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: uri('broken') }, range: unknown?.range, context: { diagnostics: [unknown] } });
    const fix = actions.find((a) => a.title === 'Change to "build"');
    assert.ok(fix, actions.map((a) => a.title).join(' | '));
    assert.deepEqual(fix.edit?.changes?.[uri('broken')], [{ range: file.ranges[2], newText: '"build"' }]);
  });

  test('completion in needs offers the other steps of the workflow, bare and as { "step" }', async () => {
    const bare = marked(RELEASE.replace('"needs": ["package"]', '"needs": [|]'));
    await lsp.open(uri('complete-bare'), bare.text);
    const items = await lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uri('complete-bare') }, position: bare.position });
    assert.deepEqual(items.map((i) => i.label).sort(), ['build', 'cleanup', 'package', 'test']);
    assert.equal(items.find((i) => i.label === 'package')?.insertText, '"package"');

    const inObject = marked(RELEASE.replace('{ "step": "deploy", "on": "finished" }', '{ "step": "de|", "on": "finished" }'));
    await lsp.open(uri('complete-object'), inObject.text);
    const more = await lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uri('complete-object') }, position: inObject.position });
    const deploy = more.find((i) => i.label === 'deploy');
    assert.ok(deploy, more.map((i) => i.label).join());
    assert.equal(more.some((i) => i.label === 'cleanup'), false, 'a step is not offered to itself');
    assert.ok(deploy.textEdit !== undefined && 'range' in deploy.textEdit, 'the string under the cursor is replaced whole');
    assert.equal(deploy.textEdit.newText, '"deploy"');

    const on = marked(RELEASE.replace('"on": "finished"', '"on": |'));
    await lsp.open(uri('complete-on'), on.text);
    const conditions = await lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uri('complete-on') }, position: on.position });
    assert.deepEqual(conditions.map((i) => i.label), ['succeeded', 'failed', 'finished']);
  });

  test('hover on a step shows what it waits for and what waits for it; on a need, the step it names', async () => {
    const at = RELEASE.indexOf('"test":') + 2;
    const h = hoverText(await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('release') }, position: positionOf(RELEASE, at) }));
    assert.match(h, /\*\*Step test\*\* of workflow release — shell job on queue `builds`/);
    assert.match(h, /3 jobs, one per target \(linux, mac, win\)/);
    assert.match(h, /Waits for: build\n/);
    assert.match(h, /Waited for by: package$/);

    const need = RELEASE.indexOf('"step": "deploy"') + '"step": "de'.length;
    const d = hoverText(await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('release') }, position: positionOf(RELEASE, need) }));
    assert.match(d, /\*\*Step deploy\*\* of workflow release — http job on queue `deploys`/);
    assert.match(d, /Waited for by: cleanup \(finished\)/);

    const first = RELEASE.indexOf('"build":') + 2;
    const b = hoverText(await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('release') }, position: positionOf(RELEASE, first) }));
    assert.match(b, /Waits for: nothing — it starts with the run/);
  });

  test('go to definition from a need lands on the step it names; the outline lists workflows and their steps', async () => {
    const need = RELEASE.indexOf('"needs": ["package"]') + '"needs": ["pa'.length;
    const found = await lsp.connection.sendRequest<Location | Location[] | Range | null>('textDocument/definition', { textDocument: { uri: uri('release') }, position: positionOf(RELEASE, need) });
    const target = Array.isArray(found) ? found[0] : found;
    assert.ok(target !== null && target !== undefined);
    const range = 'range' in target ? target.range : target;
    const key = RELEASE.indexOf('"package": {');
    assert.deepEqual(range, { start: positionOf(RELEASE, key), end: positionOf(RELEASE, key + '"package"'.length) });

    const symbols = await lsp.connection.sendRequest<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: uri('release') } });
    const workflows = symbols.find((s) => s.name === 'workflows');
    assert.ok(workflows, symbols.map((s) => s.name).join());
    const release = workflows.children?.find((w) => w.name === 'release');
    assert.equal(release?.detail, '5 steps');
    assert.deepEqual(
      release?.children?.map((c) => [c.name, c.detail]),
      [['build', ''], ['test', 'after build'], ['package', 'after test'], ['deploy', 'after package'], ['cleanup', 'after deploy']],
    );
  });
});

describe('language server over stdio: the Run workflow lens', () => {
  let lsp: LspClient;
  let daemon: TestDaemon;
  const file = RELEASE.replace(/"shell": "make [^"]*"/g, '"shell": "true"').replace('"http": { "url": "https://deploy.example.test/{{version}}" }', '"shell": "echo {{version}}"');
  const lenses = async (): Promise<CodeLens[]> => (await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('run') } })) ?? [];

  before(async () => {
    daemon = await startDaemon();
    lsp = await startLsp({ env: { SPOOL_SOCKET: daemon.socketPath } });
  });

  after(async () => {
    await lsp?.close();
    await daemon?.dispose();
  });

  test('each workflow has a Run workflow lens; it starts a run of the file\'s workflow, and the last run\'s counts follow', async () => {
    await lsp.open(uri('run'), file);
    const run = (await lenses()).find((l) => l.command?.title === 'Run workflow');
    assert.ok(run?.command, (await lenses()).map((l) => l.command?.title).join(' | '));
    assert.deepEqual(run.command.arguments, [uri('run'), 'release']);
    assert.equal(run.range.start.line, file.split('\n').findIndex((l) => l.includes('"release": {')));

    // Without the required parameter, refused in the shared words; nothing runs.
    await assert.rejects(lsp.connection.sendRequest('workspace/executeCommand', { command: 'spool.runWorkflow', arguments: [uri('run'), 'release'] }), /Cannot start a run: workflow "release" needs a value for "version"/);
    const params = await lsp.connection.sendRequest<{ params: Record<string, { type: string }> }>('workspace/executeCommand', { command: 'spool.workflowParams', arguments: [uri('run'), 'release'] });
    assert.deepEqual(Object.keys(params.params), ['version']);

    const started = await lsp.connection.sendRequest<WorkflowRunStarted>('workspace/executeCommand', { command: 'spool.runWorkflow', arguments: [uri('run'), 'release', { version: '1.2' }] });
    assert.equal(started.run.workflow, 'release');
    assert.equal(started.jobs.length, 7);
    const client = await daemon.client();
    await waitFor('the run to end', async () => (await client.call('workflows.get', { id: started.run.id })).state !== 'running', 60_000);
    const title = await waitFor('the lens to count the finished run', async () => (await lenses()).map((l) => l.command?.title ?? '').find((t) => /^last run .* succeeded: 7 succeeded$/.test(t)), 30_000);
    assert.match(title, /^last run (just now|\d+s ago) succeeded: 7 succeeded$/);
  });
});
