/**
 * `--metrics-token FILE`: on a shared machine the metrics (which name every queue and job kind)
 * are read only by scrapes that send the token; the file must be the daemon user's, 0600.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DAEMON_SCRIPT, startDaemon } from '../helpers/daemon';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function get(port: number, authorization?: string): Promise<{ status: number; body: string; authenticate?: string }> {
  return new Promise((resolve, reject) => {
    const headers = authorization === undefined ? {} : { authorization };
    http
      .get({ host: '127.0.0.1', port, path: '/metrics', headers, agent: false }, (response) => {
        let body = '';
        response.on('data', (d: Buffer) => (body += d.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, authenticate: response.headers['www-authenticate'] }));
      })
      .once('error', reject);
  });
}

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-metrics-token-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('with --metrics-token, a scrape without the token or with a wrong one gets 401; with it, the metrics', async (t) => {
  const dir = tempDir(t);
  const tokenFile = path.join(dir, 'metrics.token');
  const token = 'f'.repeat(8) + '0123456789abcdef0123456789abcdef';
  fs.writeFileSync(tokenFile, token + '\n', { mode: 0o600 });
  const port = await freePort();
  const daemon = await startDaemon({ dir, args: ['--metrics', `127.0.0.1:${port}`, '--metrics-token', tokenFile] });
  t.after(() => daemon.dispose());
  const none = await get(port);
  assert.equal(none.status, 401);
  assert.equal(none.authenticate, 'Bearer realm="spool metrics"');
  assert.match(none.body, /needs the token of --metrics-token, sent as "Authorization: Bearer <token>"/);
  assert.ok(!none.body.includes('spool_jobs'));
  assert.equal((await get(port, `Bearer ${token.slice(0, -1)}x`)).status, 401);
  assert.equal((await get(port, `Basic ${Buffer.from(`x:${token}`).toString('base64')}`)).status, 401);
  const right = await get(port, `Bearer ${token}`);
  assert.equal(right.status, 200, right.body);
  assert.match(right.body, /spool_connected_clients/);
  assert.ok(!daemon.log().includes(token), 'the token is never logged');
});

test('a token file others may read, one that is not a file, or --metrics-token without --metrics stops the start, saying why', async (t) => {
  const dir = tempDir(t);
  const port = await freePort();
  const tokenFile = path.join(dir, 'metrics.token');
  fs.writeFileSync(tokenFile, 'a-long-enough-metrics-token-0123', { mode: 0o644 });
  fs.chmodSync(tokenFile, 0o644);
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', path.join(dir, 'spool.sock'), '--db', path.join(dir, 'spool.db'), ...args], { encoding: 'utf8', timeout: 30_000 });
  const readable = run('--metrics', `127.0.0.1:${port}`, '--metrics-token', tokenFile);
  assert.equal(readable.status, 1, readable.stderr);
  assert.match(readable.stderr, new RegExp(`--metrics-token ${tokenFile}: its mode is 0644, so other users may read or change it; make it 0600`));
  const folder = run('--metrics', `127.0.0.1:${port}`, '--metrics-token', dir);
  assert.equal(folder.status, 1);
  assert.match(folder.stderr, /not a regular file/);
  fs.chmodSync(tokenFile, 0o600);
  fs.writeFileSync(tokenFile, 'short');
  const short = run('--metrics', `127.0.0.1:${port}`, '--metrics-token', tokenFile);
  assert.equal(short.status, 1);
  assert.match(short.stderr, /at least 16 characters/);
  const alone = run('--metrics-token', tokenFile);
  assert.equal(alone.status, 1);
  assert.match(alone.stderr, /--metrics-token goes with --metrics HOST:PORT/);
  assert.equal(fs.existsSync(path.join(dir, 'spool.db')), false, 'refused before the database was opened');
});
