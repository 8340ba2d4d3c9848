/**
 * A bad database file, a read-only one and a full disk, as a user meets them: start-up refuses
 * with the path and what to do (and leaves no socket behind), and a write the disk has no room
 * for is answered with StorageFull, not an internal error, while reads go on working.
 *
 * Read-only and full file systems are small tmpfs mounts (the tests run as root in their
 * sandbox); where mounting is not allowed those tests are skipped, saying so.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import { DAEMON_SCRIPT, startDaemon } from '../helpers/daemon';

/**
 * A temporary folder, and the clean-ups of what is made in it, run last made first (a daemon
 * stopped before its file system is unmounted, that before the folder is removed). Node runs
 * a test's `after` hooks first registered first, hence one hook.
 */
function scratch(t: TestContext): { dir: string; later: (cleanup: () => unknown) => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-storage-'));
  const cleanups: (() => unknown)[] = [() => fs.rmSync(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return { dir, later: (cleanup) => cleanups.push(cleanup) };
}

/** A tmpfs of `size` at `dir`, unmounted after the test; false when this machine does not allow it. */
function mountTmpfs(t: TestContext, later: (cleanup: () => unknown) => void, dir: string, size: string): boolean {
  fs.mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    t.skip(`cannot mount a tmpfs here: ${mounted.stderr.trim()}`);
    return false;
  }
  later(() => spawnSync('umount', ['-l', dir]));
  return true;
}

function startOnce(socketPath: string, dbPath: string): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', dbPath], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stderr: result.stderr };
}

test('a file that is not a database: start-up names it and what to do, and leaves no socket', (t) => {
  const { dir } = scratch(t);
  const dbPath = path.join(dir, 'spool.db');
  fs.writeFileSync(dbPath, 'notes, not a database\n'.repeat(100));
  const socketPath = path.join(dir, 'spool.sock');
  const { status, stderr } = startOnce(socketPath, dbPath);
  assert.equal(status, 1);
  assert.match(stderr, new RegExp(`${dbPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a SQLite database \\(SQLite: "file is not a database"\\)`));
  assert.match(stderr, /Point --db at the right file, or move this one aside/);
  assert.equal(fs.existsSync(socketPath), false);
});

test('a database on a read-only file system: start-up says it cannot write it and why, and leaves no socket', (t) => {
  const { dir, later } = scratch(t);
  const mount = path.join(dir, 'ro');
  if (!mountTmpfs(t, later, mount, '4m')) return;
  const dbPath = path.join(mount, 'spool.db');
  const db = new Database(dbPath);
  // A Spool database in the making (another program's SQLite file is refused before this check).
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  db.close();
  assert.equal(spawnSync('mount', ['-o', 'remount,ro', mount]).status, 0);
  const socketPath = path.join(dir, 'spool.sock');
  const { status, stderr } = startOnce(socketPath, dbPath);
  assert.equal(status, 1);
  assert.match(stderr, /Cannot write the Spool database .*spool\.db .*read-only file system.*Give your user write access/);
  assert.doesNotMatch(stderr, /attempt to write a readonly database/);
  assert.equal(fs.existsSync(socketPath), false);
});

test('a full disk answers writes with StorageFull and its own message; reads keep working', async (t) => {
  const { dir, later } = scratch(t);
  const mount = path.join(dir, 'small');
  if (!mountTmpfs(t, later, mount, '2m')) return;
  const daemon = await startDaemon({ dir, dbPath: path.join(mount, 'spool.db') });
  later(() => daemon.dispose());
  const client = await daemon.client();
  const first = await client.call('jobs.enqueue', { queue: 'fill', kind: 'k', payload: { n: 0 } });
  const blob = 'x'.repeat(200_000);
  let failure: unknown = null;
  for (let i = 1; i <= 40 && failure === null; i++) {
    try {
      await client.call('jobs.enqueue', { queue: 'fill', kind: 'k', payload: { i, blob } });
    } catch (error) {
      failure = error;
    }
  }
  assert.ok(failure instanceof SpoolError, `a write failed once 2 MiB were full (${String(failure)})`);
  assert.equal(failure.code, ErrorCode.StorageFull, failure.message);
  assert.match(failure.message, /The disk holding the Spool database .*spool\.db is full: nothing of this request was stored\. Free some space/);
  // The daemon is fine otherwise: reads answer.
  assert.equal((await client.call('jobs.get', { id: first.job.id })).job.id, first.job.id);
  assert.equal((await client.call('daemon.status')).pid, daemon.pid);
});
