/**
 * `spool token …` and the CLI over TLS, as processes against a real daemon listening on
 * 127.0.0.1 (`--listen`): tokens made, listed and revoked over the Unix socket only; the token
 * printed once, or written to a 0600 file; `spool --endpoint … --tls-fingerprint …
 * --token-file …` reading the queues; `spool daemon status --json` showing the fingerprint; and
 * the refusals, each saying what to do.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { DaemonStatus, TokensListResult } from '../../shared/protocol';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { parseJson, runCli } from './cli-run';

let daemon: TestDaemon;
let local: SpoolClient;
let endpoint: string;
let fingerprint: string;

before(async () => {
  daemon = await startDaemon({ args: ['--listen', '127.0.0.1:0'] });
  local = await daemon.client();
  const status = await local.call('daemon.status');
  endpoint = `tls://${status.listen ?? ''}`;
  fingerprint = status.tlsFingerprint ?? '';
  await local.call('queues.configure', { name: 'visible-remotely' });
});
after(async () => {
  await daemon.dispose();
});

const spool = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { socketPath: daemon.socketPath, env });

test('spool daemon status --json shows the TCP address and the certificate fingerprint', async () => {
  const result = await spool(['daemon', 'status', '--json']);
  assert.equal(result.code, 0, result.stderr);
  const status = parseJson<DaemonStatus>(result.stdout);
  assert.equal(`tls://${status.listen ?? ''}`, endpoint);
  assert.match(status.tlsFingerprint ?? '', /^sha256:[0-9a-f]{64}$/);
  const text = await spool(['daemon', 'status']);
  assert.match(text.stdout, new RegExp(`tls: +${status.listen ?? ''}, certificate ${status.tlsFingerprint ?? ''}`));
});

test('token create prints the token once (or {"token"} with --json, or a 0600 file with --out); list shows names and scopes; revoke removes it', async () => {
  const plain = await spool(['token', 'create', 'cli-read', '--scope', 'read']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout.trim(), /^spool_[A-Za-z0-9_-]{43}$/);
  assert.match(plain.stderr, /shown only now/);

  const json = await spool(['token', 'create', 'cli-worker', '--scope', 'worker', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const { token } = parseJson<{ token: string }>(json.stdout);
  assert.deepEqual(Object.keys(parseJson<object>(json.stdout)), ['token']);

  const file = path.join(daemon.dir, 'admin.token');
  const out = await spool(['token', 'create', 'cli-admin', '--scope', 'admin', '--out', file]);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, '', 'the token goes to the file only');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const overwrite = await spool(['token', 'create', 'cli-admin-2', '--scope', 'admin', '--out', file]);
  assert.notEqual(overwrite.code, 0);
  assert.match(overwrite.stderr, /exists already/);

  const list = await spool(['token', 'list', '--json']);
  const tokens = parseJson<TokensListResult>(list.stdout).tokens;
  assert.deepEqual(tokens.map((t) => [t.name, t.scope]), [['cli-admin', 'admin'], ['cli-read', 'read'], ['cli-worker', 'worker']]);
  assert.ok(!list.stdout.includes(token) && !list.stdout.includes(plain.stdout.trim()), 'never the tokens');
  const table = await spool(['token', 'list']);
  assert.match(table.stdout, /NAME +SCOPE +CREATED\ncli-admin +admin/);

  const dup = await spool(['token', 'create', 'cli-read', '--scope', 'read']);
  assert.notEqual(dup.code, 0);
  assert.match(dup.stderr, /exists already/);
  const badScope = await spool(['token', 'create', 'x', '--scope', 'root']);
  assert.match(badScope.stderr, /Unknown --scope "root": use read, worker, admin/);

  const revoked = await spool(['token', 'revoke', 'cli-read']);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepEqual(parseJson<TokensListResult>((await spool(['token', 'list', '--json'])).stdout).tokens.map((t) => t.name), ['cli-admin', 'cli-worker']);
});

test('the CLI over TLS: --endpoint, --tls-fingerprint and --token-file (or their variables) read the remote queues; a revoked token is refused', async () => {
  const file = path.join(daemon.dir, 'reader.token');
  assert.equal((await spool(['token', 'create', 'remote-reader', '--scope', 'read', '--out', file])).code, 0);
  // The socket variable points nowhere: the answer can only come over TLS.
  const away = { SPOOL_SOCKET: path.join(daemon.dir, 'nothing.sock') };
  const byFlags = await spool(['--endpoint', endpoint, '--tls-fingerprint', fingerprint, '--token-file', file, 'queues', '--json'], away);
  assert.equal(byFlags.code, 0, byFlags.stderr);
  assert.match(byFlags.stdout, /visible-remotely/);
  const byEnv = await spool(['queues'], { ...away, SPOOL_ENDPOINT: endpoint, SPOOL_TLS_FINGERPRINT: fingerprint, SPOOL_TOKEN: fs.readFileSync(file, 'utf8').trim() });
  assert.equal(byEnv.code, 0, byEnv.stderr);
  assert.match(byEnv.stdout, /visible-remotely/);

  const forbidden = await spool(['--endpoint', endpoint, '--tls-fingerprint', fingerprint, '--token-file', file, 'queue', 'visible-remotely', 'pause'], away);
  assert.notEqual(forbidden.code, 0);
  assert.match(forbidden.stderr, /scope read, which may not call queues\.pause/);

  const tokensRemotely = await spool(['--endpoint', endpoint, '--tls-fingerprint', fingerprint, '--token-file', file, 'token', 'list'], away);
  assert.notEqual(tokensRemotely.code, 0);
  assert.match(tokensRemotely.stderr, /on the daemon's machine, over its Unix socket/);

  // The endpoint leads the message as it was given: a URL is not capitalised like a sentence.
  const tokenless = await spool(['--endpoint', endpoint, '--tls-fingerprint', fingerprint, 'queues'], { ...away, SPOOL_TOKEN: '' });
  assert.notEqual(tokenless.code, 0);
  assert.match(tokenless.stderr, new RegExp(`^spool: ${endpoint.replace(/[.]/g, '\\.')} needs a token: pass --token-file FILE or set SPOOL_TOKEN`));

  const unverified = await spool(['--endpoint', endpoint, '--token-file', file, 'queues'], away);
  assert.notEqual(unverified.code, 0);
  assert.match(unverified.stderr, /Refusing to connect .*--tls-fingerprint/);

  const wrong = await spool(['--endpoint', endpoint, '--tls-fingerprint', `sha256:${'1'.repeat(64)}`, '--token-file', file, 'queues'], away);
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /presented a certificate with fingerprint/);

  assert.equal((await spool(['token', 'revoke', 'remote-reader'])).code, 0);
  const refused = await spool(['--endpoint', endpoint, '--tls-fingerprint', fingerprint, '--token-file', file, 'queues'], away);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /Unauthorized: the token is not known/);
});

test("a --shell job sent over --endpoint runs in the daemon's working folder unless --cwd names one, and the CLI says so", async () => {
  const file = path.join(daemon.dir, 'remote-shell-admin.token');
  const made = await spool(['token', 'create', 'remote-shell-admin', '--scope', 'admin', '--out', file]);
  assert.equal(made.code, 0, made.stderr);
  const away = { SPOOL_SOCKET: path.join(daemon.dir, 'nothing.sock') };
  const remote = ['--endpoint', endpoint, '--tls-fingerprint', fingerprint, '--token-file', file];
  const sent = await spool([...remote, 'enqueue', 'remote-shell', '--shell', 'pwd', '--delay', '1h'], away);
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stderr, /The job runs in the daemon's working folder on its machine \(this folder may not exist there\); give --cwd DIR to choose one\./);
  const { job } = await local.call('jobs.get', { id: sent.stdout.trim() });
  assert.deepEqual(job.payload, { command: 'pwd' }, 'no folder of the client sent along');
  const chosen = await spool([...remote, 'enqueue', 'remote-shell', '--shell', 'pwd', '--cwd', '/tmp', '--delay', '1h'], away);
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.doesNotMatch(chosen.stderr, /working folder/);
  assert.deepEqual((await local.call('jobs.get', { id: chosen.stdout.trim() })).job.payload, { command: 'pwd', cwd: '/tmp' });
});
