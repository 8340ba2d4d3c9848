/**
 * What another local user can reach: the database folder and files are owner-only whatever the
 * umask, files an older version left readable are tightened at start-up (and the log says so);
 * a socket another user owns, or one in a folder others can write, is not trusted.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { SpoolClient } from '../../shared/client/client';
import { ErrorCode } from '../../shared/protocol';
import { DAEMON_SCRIPT, startDaemon, waitFor } from '../helpers/daemon';
import { rejectsWith } from '../helpers/errors';
import { runCli } from './cli-run';

function mode(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8).padStart(4, '0');
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-security-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('with a umask of 000 the data folder is made 0700 and the database, its -wal and -shm 0600', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'data', 'nested', 'spool.db');
  // The child inherits the umask it is spawned with; spawn happens before startDaemon's first await.
  const previous = process.umask(0);
  const started = startDaemon({ dir, dbPath });
  process.umask(previous);
  const daemon = await started;
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  await client.call('jobs.enqueue', { queue: 'secrets', kind: 'deploy', payload: { token: 's3cret' } });
  await waitFor('the WAL files', () => fs.existsSync(`${dbPath}-wal`) && fs.existsSync(`${dbPath}-shm`));
  assert.equal(mode(path.join(dir, 'data')), '0700');
  assert.equal(mode(path.join(dir, 'data', 'nested')), '0700');
  assert.equal(mode(dbPath), '0600');
  assert.equal(mode(`${dbPath}-wal`), '0600');
  assert.equal(mode(`${dbPath}-shm`), '0600');
});

test('files and the data folder an older version left readable by others are made owner-only at start-up, with a log line', async (t) => {
  const dir = tempDir(t);
  const dataHome = path.join(dir, 'xdg');
  const folder = path.join(dataHome, 'spool');
  const dbPath = path.join(folder, 'spool.db');
  const env = { XDG_DATA_HOME: dataHome, SPOOL_DB: undefined };
  const daemon = await startDaemon({ dir, dbPath, env });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  await client.call('jobs.enqueue', { queue: 'secrets', kind: 'deploy', payload: { token: 's3cret' } });
  await waitFor('the WAL files', () => fs.existsSync(`${dbPath}-wal`) && fs.existsSync(`${dbPath}-shm`));
  // SIGKILL leaves -wal and -shm behind, as a crash would.
  await daemon.kill();
  const logPath = path.join(folder, 'daemon.log');
  fs.writeFileSync(logPath, 'an old log\n');
  for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, logPath]) fs.chmodSync(file, 0o644);
  fs.chmodSync(folder, 0o755);

  await daemon.restart();
  assert.equal(mode(folder), '0700');
  for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, logPath]) assert.equal(mode(file), '0600', file);
  assert.match(daemon.log(), /Made the database owner-only; it was readable by other users .*spool\.db 0644 → 0600/);
  assert.match(daemon.log(), /spool\.db-wal 0644 → 0600/);
  assert.match(daemon.log(), new RegExp(`${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} 0755 → 0700`));
  assert.match(daemon.log(), /Made the daemon log owner-only.*daemon\.log 0644 → 0600/);
  const after = await daemon.client();
  assert.equal((await after.call('jobs.list', { queue: 'secrets' })).jobs.length, 1, 'nothing was lost');
});

test('a folder named with --db that exists is left as it is; the files in it are owner-only', async (t) => {
  const dir = tempDir(t);
  const folder = path.join(dir, 'shared');
  fs.mkdirSync(folder);
  fs.chmodSync(folder, 0o755);
  const daemon = await startDaemon({ dir, dbPath: path.join(folder, 'spool.db') });
  t.after(() => daemon.dispose());
  assert.equal(mode(folder), '0755');
  assert.equal(mode(path.join(folder, 'spool.db')), '0600');
});

/** A listener at `socketPath` in a process of the user `nobody` (uid 65534), as an impersonator would run it. */
async function foreignListener(t: { after(fn: () => void): void }, socketPath: string): Promise<void> {
  const script = `require('net').createServer((s) => s.on('data', () => s.write('{"jsonrpc":"2.0","id":1,"result":{"pid":1}}\\n'))).listen(${JSON.stringify(socketPath)}, () => console.log('listening'))`;
  const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor('the foreign listener', () => out.includes('listening'));
}

test('a socket another user listens on is refused by clients, the CLI and a daemon starting there, naming its owner', async (t) => {
  const dir = tempDir(t);
  // Like /tmp: everyone may create files, only a file's owner may remove them.
  fs.chmodSync(dir, 0o1777);
  const socketPath = path.join(dir, 'spool.sock');
  await foreignListener(t, socketPath);
  assert.equal(fs.statSync(socketPath).uid, 65534);

  assert.match((await rejectsWith(SpoolClient.connect({ socketPath }), ErrorCode.Forbidden, 'socket')).message, /Refusing to talk to the socket .*spool\.sock: it belongs to nobody \(uid 65534\), not to you/);
  const cli = await runCli(['queues'], { socketPath });
  assert.notEqual(cli.code, 0);
  assert.match(cli.stderr, /it belongs to nobody \(uid 65534\)/);
  assert.match(cli.stderr, /use a socket in a folder only you can write/);

  const daemon = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', path.join(dir, 'spool.db')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(daemon.status, 1);
  assert.match(daemon.stderr, /it belongs to nobody \(uid 65534\)/);
  assert.doesNotMatch(daemon.stderr, /already listening/);
  assert.equal(fs.statSync(socketPath).uid, 65534, 'the other user\'s socket is left alone');
});

test('a socket whose owner was changed to another user is refused', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  fs.chownSync(daemon.socketPath, 65534, 65534);
  assert.match((await rejectsWith(SpoolClient.connect({ socketPath: daemon.socketPath }), ErrorCode.Forbidden, 'socket')).message, /belongs to nobody \(uid 65534\)/);
});

test('a socket in a folder others can write without the sticky bit is refused, and a daemon will not listen there', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  fs.chmodSync(daemon.dir, 0o777);
  assert.match((await rejectsWith(SpoolClient.connect({ socketPath: daemon.socketPath }), ErrorCode.Forbidden, 'socket')).message, /its folder .* is writable by other users \(mode 0777\) without the sticky bit.*chmod 700/);
  const other = path.join(daemon.dir, 'other.sock');
  const second = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', other, '--db', path.join(daemon.dir, 'other.db')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(second.status, 1);
  assert.match(second.stderr, /Cannot listen on .*other\.sock: its folder .* is writable by other users/);
});

test('a socket of ones own in a sticky folder others can write (like /tmp) is trusted', async (t) => {
  const dir = tempDir(t);
  fs.chmodSync(dir, 0o1777);
  const daemon = await startDaemon({ dir });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  assert.equal((await client.call('daemon.status')).pid, daemon.pid);
});
