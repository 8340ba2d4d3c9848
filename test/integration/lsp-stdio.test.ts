/**
 * The language server as an editor sees it: dist/lsp.js over stdio, driven by an LSP client,
 * against a real daemon on a temporary socket — and once with no daemon at all, where nothing is
 * said about the daemon. Bad input (broken JSON, a 5 MB file) must leave it answering.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CodeLens, CompletionItem, Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { fireTimes } from '../../lsp/service';
import { shortId } from '../../shared/domain/present';
import { marked, positionOf } from '../helpers/cursor';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { startLsp, type LspClient } from '../helpers/lsp';

const FILE = `{
  "project": "lsp-test",
  "queues": {
    "emails": { "concurrency": 2 }
  },
  "templates": {
    "thumbs": { "queue": "emails", "kind": "thumbnail", "payload": { "size": 64 } },
    "legacy": { "queue": "daemon-only", "kind": "thumbnail", "payload": null }
  },
  "schedules": {
    "nightly": { "cron": "0 3 * * *", "template": "thumbs" },
    "broken": { "cron": "[[61]] 3 * * *", "template": "thumbs" }
  }
}
`;

const uri = (name: string) => `file:///tmp/lsp-test/${name}/spool.jsonc`;

function hoverText(h: Hover | null): string {
  assert.ok(h !== null, 'a hover');
  const c = h.contents;
  return typeof c === 'object' && 'value' in c ? c.value : JSON.stringify(c);
}

function lensTitles(lenses: CodeLens[] | null): string[] {
  return (lenses ?? []).map((l) => l.command?.title ?? '');
}

describe('language server over stdio, with a daemon', () => {
  let daemon: TestDaemon;
  let lsp: LspClient;
  const file = marked(FILE);

  before(async () => {
    daemon = await startDaemon();
    const client = await daemon.client();
    // Jobs no worker claims, so they stay queued: three on the file's queue, one on a queue only the daemon has.
    for (let i = 0; i < 3; i++) await client.call('jobs.enqueue', { queue: 'emails', kind: 'thumbnail', payload: i });
    await client.call('jobs.enqueue', { queue: 'daemon-only', kind: 'thumbnail', payload: null });
    lsp = await startLsp({ env: { SPOOL_SOCKET: daemon.socketPath } });
    await lsp.open(uri('live'), file.text);
  });

  after(async () => {
    await lsp?.close();
    await daemon?.dispose();
  });

  test('diagnostics at the exact range, and what the daemon knows about a queue the file does not declare', async () => {
    const diagnostics = await lsp.diagnosticsOf(uri('live'), (d) => d.some((x) => x.code === 'queue-on-daemon-only'));
    const cron = diagnostics.find((d) => d.code === 'invalid-cron');
    assert.ok(cron, JSON.stringify(diagnostics));
    assert.deepEqual(cron.range, file.ranges[0]);
    assert.equal(cron.severity, 1);
    const onDaemon = diagnostics.find((d) => d.code === 'queue-on-daemon-only');
    assert.ok(onDaemon);
    assert.equal(onDaemon.severity, 3, 'information, not a warning: the daemon has the queue');
    assert.match(String(onDaemon.message), /"daemon-only" exists only on the daemon \(1 job\)/);
    // The file's own warning about that queue is replaced, not repeated.
    assert.equal(diagnostics.filter((d) => d.code === 'unknown-queue').length, 0);
  });

  test('hover on a cron: words and the next five runs', async () => {
    const at = FILE.indexOf('0 3 * * *') + 2;
    const startedAt = Date.now();
    const h = await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('live') }, position: positionOf(file.text, at) });
    const text = hoverText(h);
    assert.match(text, /every day at 03:00/);
    assert.match(text, /Next 5 runs/);
    // The server read its own clock in between: the runs are those after one of these instants.
    const expected = [fireTimes('0 3 * * *', 'UTC', startedAt, 5), fireTimes('0 3 * * *', 'UTC', Date.now(), 5)].map((times) => times.map((t) => `- ${t.text}`).join('\n'));
    assert.ok(expected.some((e) => text.includes(e)), `${text}\nexpected one of:\n${expected.join('\n--\n')}`);
  });

  test('time-zone completion in a string is filtered on the quoted text typed: "Europe/Par offers Europe/Paris once, not Pacific/Rarotonga', async () => {
    const m = marked(FILE.replace('"cron": "0 3 * * *", "template": "thumbs"', '"cron": "0 3 * * *", "timezone": "Europe/Par|", "template": "thumbs"'));
    await lsp.open(uri('zones'), m.text);
    const items = await lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uri('zones') }, position: m.position });
    // What an editor filters with: the text from the edit's start to the cursor, quote included.
    const typed = (i: CompletionItem): string => {
      const range = i.textEdit !== undefined && 'range' in i.textEdit ? i.textEdit.range : undefined;
      assert.ok(range, `${i.label} replaces the string`);
      return m.text.slice(m.offset - (m.position.character - range.start.character), m.offset);
    };
    const matching = items.filter((i) => (i.filterText ?? i.label).startsWith(typed(i))).map((i) => i.label);
    assert.deepEqual(matching, ['Europe/Paris']);
    assert.equal(items.filter((i) => i.label === 'Europe/Paris').length, 1);
  });

  test('completion of a template\'s queue offers the file\'s queues and the daemon\'s', async () => {
    const m = marked(FILE.replace('"queue": "emails", "kind": "thumbnail", "payload": { "size": 64 }', '"queue": |, "kind": "thumbnail", "payload": { "size": 64 }'));
    await lsp.open(uri('complete'), m.text);
    const items = await lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uri('complete') }, position: m.position });
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes('emails'), labels.join());
    const live = items.find((i) => i.label === 'daemon-only');
    assert.ok(live, labels.join());
    assert.equal(live.detail, 'on the daemon: 1 queued');
    assert.equal(live.insertText, '"daemon-only"');
  });

  test('code lenses: live counts on a queue, Run now and Enqueue; Run now enqueues, and the counts follow', async () => {
    const lenses = await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('live') } });
    const titles = lensTitles(lenses);
    assert.ok(titles.includes('3 queued'), titles.join(' | '));
    assert.equal(titles.filter((t) => t === 'Run now').length, 1, `only the schedule without errors can run: ${titles.join(' | ')}`);
    assert.equal(titles.filter((t) => t === 'Enqueue').length, 2);
    const runNow = lenses?.find((l) => l.command?.title === 'Run now');
    assert.ok(runNow?.command);
    const refreshesBefore = lsp.lensRefreshes();
    const result = await lsp.connection.sendRequest<{ job: { id: string; queue: string; state: string } }>('workspace/executeCommand', { command: runNow.command.command, arguments: runNow.command.arguments });
    assert.equal(result.job.queue, 'emails');
    const client = await daemon.client();
    const job = await client.call('jobs.get', { id: result.job.id });
    assert.equal(job.job.kind, 'thumbnail');
    assert.deepEqual(job.job.payload, { size: 64 });
    // The daemon's event makes the server ask the editor to refresh its lenses, which then count 4.
    await waitFor('a code lens refresh', () => lsp.lensRefreshes() > refreshesBefore);
    await waitFor('the lens to count 4 queued', async () => lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('live') } })).includes('4 queued'));
  });

  test('a daemon that goes away: the server keeps answering, and says nothing more about the daemon', async () => {
    await daemon.stop();
    await lsp.change(uri('live'), 2, `${file.text} `);
    const diagnostics = await lsp.diagnosticsOf(uri('live'), () => true, 2);
    assert.equal(diagnostics.filter((d) => d.code === 'queue-on-daemon-only').length, 0);
    assert.equal(diagnostics.filter((d) => d.code === 'unknown-queue').length, 1, 'the file\'s own warning is back');
    const titles = lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('live') } }));
    assert.ok(!titles.some((t) => /queued/.test(t)), titles.join(' | '));
    const h = await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('live') }, position: positionOf(file.text, FILE.indexOf('0 3 * * *')) });
    assert.match(hoverText(h), /Next 5 runs/);
  });
});

describe('language server over stdio, without a daemon', () => {
  let lsp: LspClient;
  let dir: string;
  const file = marked(FILE);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-lsp-'));
    lsp = await startLsp({ env: { SPOOL_SOCKET: path.join(dir, 'nobody.sock') } });
  });

  after(async () => {
    await lsp?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the file\'s own diagnostics only: no live check turns into a warning', async () => {
    await lsp.open(uri('offline'), file.text);
    const diagnostics = await lsp.diagnosticsOf(uri('offline'));
    assert.deepEqual(diagnostics.map((d) => d.code).sort(), ['invalid-cron', 'unknown-queue']);
    const titles = lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('offline') } }));
    assert.deepEqual(titles.sort(), ['Enqueue', 'Enqueue', 'Run now'], 'no counts, no Apply without a daemon');
  });

  test('Run now without a daemon fails with what to do, and the server goes on', async () => {
    await assert.rejects(
      lsp.connection.sendRequest('workspace/executeCommand', { command: 'spool.runSchedule', arguments: [uri('offline'), 'nightly'] }),
      (error: Error) => /No Spool daemon answers at .*nobody\.sock: start one with `spool daemon --detach`/.test(error.message),
    );
    const symbols = await lsp.connection.sendRequest<{ name: string }[]>('textDocument/documentSymbol', { textDocument: { uri: uri('offline') } });
    assert.deepEqual(symbols.map((s) => s.name), ['queues', 'templates', 'schedules']);
  });

  test('broken JSON and a 5 MB file give diagnostics, and the server keeps answering', async () => {
    const broken = '{ "project": "x", "queues": { "a": { "concurrency": ';
    await lsp.open(uri('broken'), broken);
    const d = await lsp.diagnosticsOf(uri('broken'));
    assert.ok(d.some((x: Diagnostic) => x.code === 'syntax'), JSON.stringify(d));
    const items = await lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uri('broken') }, position: positionOf(broken, broken.length) });
    assert.ok(Array.isArray(items));

    const entry = (i: number) => `    "s${i}": { "cron": "*/5 * * * *", "template": "t", "params": { "note": "${'x'.repeat(40)}" } }`;
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 5_000_000; i++) {
      const line = entry(i);
      lines.push(line);
      size += line.length + 2;
    }
    const big = `{\n  "project": "big",\n  "templates": { "t": { "queue": "q", "kind": "k", "payload": null, "params": { "note": {} } } },\n  "schedules": {\n${lines.join(',\n')}\n  }\n}\n`;
    await lsp.open(uri('big'), big);
    await lsp.diagnosticsOf(uri('big'), () => true);
    const h = await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('offline') }, position: positionOf(file.text, FILE.indexOf('0 3 * * *')) });
    assert.match(hoverText(h), /every day at 03:00/);
  });
});

describe('language server over stdio, following a daemon on another machine (SPOOL_ENDPOINT)', () => {
  let local: TestDaemon;
  let remote: TestDaemon;
  let endpoint: string;
  let env: NodeJS.ProcessEnv;
  const text = '{ "project": "lsp-remote", "queues": { "emails": { "concurrency": 2 } }, "templates": { "t": { "queue": "emails", "kind": "thumbnail", "payload": 1 } } }';

  before(async () => {
    local = await startDaemon();
    remote = await startDaemon({ args: ['--listen', '127.0.0.1:0'] });
    const admin = await remote.client();
    const status = await admin.call('daemon.status');
    assert.ok(status.listen !== undefined && status.tlsFingerprint !== undefined);
    endpoint = `tls://${status.listen}`;
    const { token } = await admin.call('tokens.create', { name: 'editor', scope: 'admin' });
    // Two jobs on the remote daemon's queue, none on the local one's.
    for (let i = 0; i < 2; i++) await admin.call('jobs.enqueue', { queue: 'emails', kind: 'thumbnail', payload: i });
    // The local daemon is at SPOOL_SOCKET too: the endpoint must win over it, as it does for the views.
    env = { SPOOL_SOCKET: local.socketPath, SPOOL_ENDPOINT: endpoint, SPOOL_TOKEN: token, SPOOL_TLS_FINGERPRINT: status.tlsFingerprint };
  });

  after(async () => {
    await local?.dispose();
    await remote?.dispose();
  });

  test('the lenses count the remote daemon\'s jobs, and Apply names it and changes it, not the daemon at the socket', async (t) => {
    try {
      await (await remote.client()).callUnchecked('project.state', { project: 'lsp-remote' });
    } catch {
      return t.skip('this daemon has no project.state / project.apply');
    }
    const lsp = await startLsp({ env });
    try {
      await lsp.open(uri('remote'), text);
      const lenses = async () => lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('remote') } }));
      const titles = await waitFor('the lenses with the remote counts', async () => ((await lenses()).some((l) => l.startsWith('Apply')) ? lenses() : undefined));
      assert.deepEqual(titles, [`Apply to ${endpoint} (2 changes)`, '2 queued', 'Enqueue']);
      await lsp.connection.sendRequest('workspace/executeCommand', { command: 'spool.apply', arguments: [uri('remote')] });
      assert.equal((await (await remote.client()).call('queues.get', { name: 'emails' })).queue.concurrency, 2);
      await assert.rejects((await local.client()).call('queues.get', { name: 'emails' }), /emails/);
      assert.ok(lsp.messages().includes(`Applied project lsp-remote to ${endpoint}: 2 changes.`), JSON.stringify(lsp.messages()));
      const run = await lsp.connection.sendRequest<{ job: { id: string } }>('workspace/executeCommand', { command: 'spool.enqueueTemplate', arguments: [uri('remote'), 't'] });
      assert.equal((await (await remote.client()).call('jobs.get', { id: run.job.id })).job.queue, 'emails');
      assert.ok(lsp.messages().includes(`Enqueued thumbnail job ${shortId(run.job.id)} on queue emails at ${endpoint}.`), JSON.stringify(lsp.messages()));
    } finally {
      await lsp.close();
    }
  });

  test('a remote daemon named without its token: no live data, and a command says what is missing', async () => {
    const { SPOOL_TOKEN: _token, ...withoutToken } = env;
    const lsp = await startLsp({ env: { ...withoutToken, SPOOL_TOKEN: '' } });
    try {
      await lsp.open(uri('no-token'), text);
      await lsp.diagnosticsOf(uri('no-token'));
      assert.deepEqual(lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('no-token') } })), ['Enqueue']);
      await assert.rejects(lsp.connection.sendRequest('workspace/executeCommand', { command: 'spool.enqueueTemplate', arguments: [uri('no-token'), 't'] }), /needs a token/);
    } finally {
      await lsp.close();
    }
  });
});

test('in an untrusted workspace the file is checked, but no shell job runs and nothing is applied', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-lsp-'));
  const lsp = await startLsp({ env: { SPOOL_SOCKET: path.join(dir, 'nobody.sock') }, initializationOptions: { trusted: false } });
  try {
    const text = '{ "project": "p", "templates": { "rm": { "queue": "q", "kind": "shell", "command": "rm -rf ~" } } }';
    await lsp.open(uri('untrusted'), text);
    await lsp.diagnosticsOf(uri('untrusted'));
    for (const [command, args] of [['spool.enqueueTemplate', [uri('untrusted'), 'rm']], ['spool.apply', [uri('untrusted')]]] as const) {
      await assert.rejects(lsp.connection.sendRequest('workspace/executeCommand', { command, arguments: args }), /This workspace is not trusted/);
    }
  } finally {
    await lsp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a daemon that hangs up in the middle of every request gives no live data, and the server goes on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-lsp-'));
  const socketPath = path.join(dir, 'rude.sock');
  let requests = 0;
  // Accepts, reads the request, and closes the socket without an answer.
  const rude = net.createServer((socket) => {
    socket.on('data', () => {
      requests++;
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => rude.listen(socketPath, resolve));
  const lsp = await startLsp({ env: { SPOOL_SOCKET: socketPath } });
  try {
    const file = marked(FILE);
    await lsp.open(uri('rude'), file.text);
    const diagnostics = await lsp.diagnosticsOf(uri('rude'));
    assert.deepEqual(diagnostics.map((d) => d.code).sort(), ['invalid-cron', 'unknown-queue']);
    assert.ok(requests > 0, 'the server did ask');
    const h = await lsp.connection.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('rude') }, position: positionOf(file.text, FILE.indexOf('0 3 * * *')) });
    assert.match(hoverText(h), /Next 5 runs/);
    const titles = lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('rude') } }));
    assert.deepEqual(titles.sort(), ['Enqueue', 'Enqueue', 'Run now']);
    await assert.rejects(lsp.connection.sendRequest('workspace/executeCommand', { command: 'spool.runSchedule', arguments: [uri('rude'), 'nightly'] }));
    assert.equal(lsp.process.exitCode, null, 'still running');
  } finally {
    await lsp.close();
    await new Promise<void>((resolve) => rude.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('language server over stdio, with a daemon that applies jobs files', () => {
  let daemon: TestDaemon;
  let lsp: LspClient;
  let supported = true;
  const text = '{ "project": "lsp-apply", "queues": { "q": { "concurrency": 2 } }, "templates": { "t": { "queue": "q", "kind": "thumbnail", "payload": 1 } }, "schedules": { "s": { "cron": "0 3 * * *", "template": "t" } } }';

  before(async () => {
    daemon = await startDaemon();
    const client = await daemon.client();
    try {
      await client.callUnchecked('project.state', { project: 'lsp-apply' });
    } catch {
      // A daemon without project.state: the server shows no Apply lens (tested above).
      supported = false;
      return;
    }
    lsp = await startLsp({ env: { SPOOL_SOCKET: daemon.socketPath } });
    await lsp.open(uri('apply'), text);
  });

  after(async () => {
    await lsp?.close();
    await daemon?.dispose();
  });

  const lenses = async () => lensTitles(await lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri: uri('apply') } }));

  test('the Apply lens counts the changes, applies them, and then says there are none; Run now enqueues the applied template; a hand change is drift', async (t) => {
    if (!supported) return t.skip('this daemon has no project.state / project.apply');
    assert.deepEqual(await waitFor('the Apply lens', async () => ((await lenses())[0]?.startsWith('Apply') === true ? lenses() : undefined)), ['Apply (3 changes)', 'not on the daemon yet', 'Enqueue', 'Run now']);
    const plan = await lsp.connection.sendRequest<{ changes: number; text: string }>('workspace/executeCommand', { command: 'spool.plan', arguments: [uri('apply')] });
    assert.equal(plan.changes, 3);
    assert.match(plan.text, /\+ create +schedule s\n/);
    await lsp.connection.sendRequest('workspace/executeCommand', { command: 'spool.apply', arguments: [uri('apply')] });
    await waitFor('the lens to say it is applied', async () => (await lenses())[0] === 'Applied: no changes');
    const run = await lsp.connection.sendRequest<{ job: { id: string; context?: { origin?: string } } }>('workspace/executeCommand', { command: 'spool.runSchedule', arguments: [uri('apply'), 's'] });
    assert.equal(run.job.context?.origin, 'template:t');
    const client = await daemon.client();
    await client.call('queues.configure', { name: 'q', concurrency: 7 });
    await lsp.change(uri('apply'), 2, `${text} `);
    const drift = await lsp.diagnosticsOf(uri('apply'), (d) => d.some((x) => x.code === 'drift'), 2);
    assert.match(String(drift[0]?.message), /The queue "q" was changed on the daemon since the last apply \(concurrency: 2 → 7\)/);
  });
});
