/**
 * What another local user can reach: the database folder and files are owner-only whatever the
 * umask, files an older version left readable are tightened at start-up (and the log says so).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { startDaemon, waitFor } from '../helpers/daemon';

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
