/**
 * Files another user controls are never trusted: a database, its -wal or -shm, the daemon log or
 * the TLS folder, certificate and key that belong to another user, or that other users may write,
 * are refused at start with a message naming the file and why, and left as they were; a --db
 * that names a folder or a file that is not a Spool database is refused before its mode is touched.
 *
 * "Another user" is `nobody` (uid 65534): the files are given to it with chown, which needs root;
 * without root these tests are skipped.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { DAEMON_SCRIPT, startDaemon, waitFor } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const needsRoot = asRoot ? {} : { skip: 'needs root, to give files to another user (chown)' };

function mode(file: string): number {
  return fs.statSync(file).mode & 0o7777;
}

/** A folder like /tmp (1777: everyone may create files, only a file's owner may remove them). */
function sharedFolder(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-sec-files-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.chmodSync(dir, 0o1777);
  return dir;
}

/** Runs the daemon program to its end (it is expected to refuse to start) and returns how it ended. */
function startRefused(dir: string, dbPath: string, args: string[] = []): { status: number | null; stderr: string } {
  const socketPath = path.join(dir, `refused-${process.hrtime.bigint()}.sock`);
  const run = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', dbPath, ...args], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
  assert.equal(fs.existsSync(socketPath), false, 'a refused start leaves no socket');
  return { status: run.status, stderr: run.stderr };
}

/** A database with a delayed shell job in it that would write `marker` when it runs, left by a stopped daemon. */
async function databaseWithJob(dir: string, dbPath: string, marker: string): Promise<void> {
  const daemon = await startDaemon({ dir, dbPath, socketPath: path.join(dir, 'first.sock') });
  try {
    const client = await daemon.client();
    await client.call('jobs.enqueue', { queue: 'q', kind: 'shell', payload: { command: `id > ${marker}` }, runAt: Date.now() + 1000 });
  } finally {
    await daemon.stop();
  }
}

test('a database in a shared folder that belongs to another user is refused, left as it is, and its jobs do not run', needsRoot, async (t) => {
  const dir = sharedFolder(t);
  const dbPath = path.join(dir, 't.db');
  const marker = path.join(dir, 'pwned');
  await databaseWithJob(dir, dbPath, marker);
  fs.chownSync(dbPath, NOBODY, NOBODY);
  fs.chmodSync(dbPath, 0o666);

  const run = startRefused(dir, dbPath);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database .*t\.db: it belongs to nobody \(uid 65534\), not to the daemon's user root \(uid 0\)/);
  assert.equal(mode(dbPath), 0o666, "the other user's file keeps its mode");
  assert.equal(fs.statSync(dbPath).uid, NOBODY);
  assert.equal(fs.existsSync(`${dbPath}-wal`), false, 'no -wal was made beside it');
  assert.equal(fs.existsSync(`${dbPath}-shm`), false, 'no -shm was made beside it');
  assert.equal(fs.existsSync(marker), false, "the other user's job did not run");
});

test('a database of ones own that other users may write is refused, naming its mode', needsRoot, async (t) => {
  const dir = sharedFolder(t);
  const dbPath = path.join(dir, 'own.db');
  await databaseWithJob(dir, dbPath, path.join(dir, 'marker'));
  fs.chmodSync(dbPath, 0o666);
  const run = startRefused(dir, dbPath);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database .*own\.db: other users may write it \(mode 0666\)/);
  assert.equal(mode(dbPath), 0o666);
});

test("a -wal or -shm another user left beside one's database is refused, naming it", needsRoot, async (t) => {
  const dir = sharedFolder(t);
  const dbPath = path.join(dir, 'side.db');
  const daemon = await startDaemon({ dir, dbPath, socketPath: path.join(dir, 'side.sock') });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  await client.call('jobs.enqueue', { queue: 'q', kind: 'k', payload: { token: 's3cret' } });
  await waitFor('the WAL files', () => fs.existsSync(`${dbPath}-wal`) && fs.existsSync(`${dbPath}-shm`));
  // SIGKILL leaves -wal and -shm behind, as a crash would; another user then takes them over.
  await daemon.kill();
  fs.chownSync(`${dbPath}-wal`, NOBODY, NOBODY);
  let run = startRefused(dir, dbPath);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database's write-ahead log .*side\.db-wal: it belongs to nobody \(uid 65534\)/);
  fs.chownSync(`${dbPath}-wal`, 0, 0);
  fs.chmodSync(`${dbPath}-shm`, 0o666);
  run = startRefused(dir, dbPath);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database's shared-memory index .*side\.db-shm: other users may write it \(mode 0666\)/);
  fs.chmodSync(`${dbPath}-shm`, 0o600);
  await daemon.restart();
  assert.equal((await (await daemon.client()).call('jobs.list', { queue: 'q' })).jobs.length, 1, 'once the files are the user\'s own again, nothing was lost');
});

test('a database folder others may write without the sticky bit is refused', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-sec-files-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const open = path.join(dir, 'open');
  fs.mkdirSync(open);
  fs.chmodSync(open, 0o777);
  const socketPath = path.join(dir, 'x.sock');
  const run = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', path.join(open, 'x.db')], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database .*x\.db: its folder .*open is writable by other users \(mode 0777\) without the sticky bit/);
  assert.equal(fs.existsSync(path.join(open, 'x.db')), false, 'nothing was created there');
});

test('--db naming a folder, a file that is not a database, or another program\'s SQLite database is refused, and its mode is left alone', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-sec-files-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const folder = path.join(dir, 'folder');
  fs.mkdirSync(folder);
  fs.chmodSync(folder, 0o755);
  let run = startRefused(dir, folder);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database .*folder: it is a folder, not a database file\. Name a database file in it instead, such as --db .*folder\/spool\.db/);
  assert.equal(mode(folder), 0o755, 'the folder keeps its mode');

  const notes = path.join(dir, 'notes.txt');
  fs.writeFileSync(notes, 'notes, not a database\n'.repeat(100));
  fs.chmodSync(notes, 0o644);
  run = startRefused(dir, notes);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /notes\.txt is not a SQLite database/);
  assert.equal(mode(notes), 0o644, 'the file keeps its mode');

  const other = path.join(dir, 'other.sqlite');
  const db = new Database(other);
  db.exec('CREATE TABLE contacts (name TEXT); CREATE TABLE notes (body TEXT)');
  db.close();
  fs.chmodSync(other, 0o644);
  run = startRefused(dir, other);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the database .*other\.sqlite: it is a SQLite database, but not a Spool one \(its tables: contacts, notes\)/);
  assert.equal(mode(other), 0o644, 'the file keeps its mode');
  const reopened = new Database(other, { readonly: true });
  assert.deepEqual(reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all(), ['contacts', 'notes'], 'no Spool table was added');
  reopened.close();
});

test('a daemon.log another user created beside the database is refused by `spool daemon --detach` and the daemon, and nothing is appended to it', needsRoot, async (t) => {
  const dir = sharedFolder(t);
  const dbPath = path.join(dir, 'spool.db');
  const logPath = path.join(dir, 'daemon.log');
  fs.writeFileSync(logPath, 'planted\n');
  fs.chownSync(logPath, NOBODY, NOBODY);
  fs.chmodSync(logPath, 0o644);
  const socketPath = path.join(dir, 'logged.sock');

  const cli = await runCli(['daemon', '--detach', '--db', dbPath], { socketPath });
  assert.notEqual(cli.code, 0);
  assert.match(cli.stderr, /Refusing the daemon log .*daemon\.log: it belongs to nobody \(uid 65534\)/);
  const run = startRefused(dir, dbPath);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the daemon log .*daemon\.log: it belongs to nobody \(uid 65534\)/);
  assert.equal(fs.readFileSync(logPath, 'utf8'), 'planted\n', 'nothing was written to it');
  assert.equal(mode(logPath), 0o644);
  assert.equal(fs.existsSync(socketPath), false);
});

test('a TLS certificate and key another user planted beside the database are not served', needsRoot, async (t) => {
  const dir = sharedFolder(t);
  const dbPath = path.join(dir, 'spool.db');
  const tlsDir = path.join(dir, 'tls');
  fs.mkdirSync(tlsDir);
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(tlsDir, 'key.pem'), '-out', path.join(tlsDir, 'cert.pem'), '-days', '1', '-subj', '/CN=planted'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  for (const file of [tlsDir, path.join(tlsDir, 'key.pem'), path.join(tlsDir, 'cert.pem')]) fs.chownSync(file, NOBODY, NOBODY);

  let run = startRefused(dir, dbPath, ['--listen', '127.0.0.1:0']);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the TLS folder .*tls: it belongs to nobody \(uid 65534\)/);

  // The folder taken back, the files still the other user's.
  fs.chownSync(tlsDir, 0, 0);
  fs.chmodSync(tlsDir, 0o700);
  run = startRefused(dir, dbPath, ['--listen', '127.0.0.1:0']);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the TLS certificate .*cert\.pem: it belongs to nobody/);

  // One's own files, but a key others may read.
  fs.chownSync(path.join(tlsDir, 'cert.pem'), 0, 0);
  fs.chownSync(path.join(tlsDir, 'key.pem'), 0, 0);
  fs.chmodSync(path.join(tlsDir, 'key.pem'), 0o644);
  run = startRefused(dir, dbPath, ['--listen', '127.0.0.1:0']);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the TLS key .*key\.pem: its mode 0644 lets other users read it/);

  // A folder others may write.
  fs.chmodSync(path.join(tlsDir, 'key.pem'), 0o600);
  fs.chmodSync(tlsDir, 0o777);
  run = startRefused(dir, dbPath, ['--listen', '127.0.0.1:0']);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing the TLS folder .*tls: its mode 0777 lets other users write it/);

  // Given with --tls-cert and --tls-key: the same rules.
  fs.chmodSync(tlsDir, 0o700);
  fs.chownSync(path.join(tlsDir, 'cert.pem'), NOBODY, NOBODY);
  run = startRefused(dir, dbPath, ['--listen', '127.0.0.1:0', '--tls-cert', path.join(tlsDir, 'cert.pem'), '--tls-key', path.join(tlsDir, 'key.pem')]);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Refusing --tls-cert .*cert\.pem: it belongs to nobody/);
});

test('two daemons on two databases in one folder each have their own log and TLS folder', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-sec-files-'));
  const sockets = ['a', 'b'].map((name) => path.join(dir, `${name}.sock`));
  // One hook, in this order: hooks run in the order they are added, and a folder removed first
  // takes the sockets `daemon stop` needs with it, leaving both daemons running.
  t.after(async () => {
    for (const socketPath of sockets) if (fs.existsSync(socketPath)) await runCli(['daemon', 'stop'], { socketPath });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  for (const [i, name] of ['a', 'b'].entries()) {
    const started = await runCli(['daemon', '--detach', '--db', path.join(dir, `${name}.db`), '--listen', '127.0.0.1:0'], { socketPath: sockets[i] ?? '' });
    assert.equal(started.code, 0, started.stderr);
    assert.ok(started.stdout.includes(`log:      ${path.join(dir, `${name}.db.log`)}`), started.stdout);
  }
  for (const name of ['a', 'b']) {
    assert.match(fs.readFileSync(path.join(dir, `${name}.db.log`), 'utf8'), new RegExp(`Spool daemon ready .*${name}\\.db`));
    assert.ok(fs.existsSync(path.join(dir, `${name}.db.tls`, 'cert.pem')), `${name}.db has its own certificate`);
  }
  assert.equal(fs.existsSync(path.join(dir, 'daemon.log')), false);
  assert.equal(fs.existsSync(path.join(dir, 'tls')), false);
});
