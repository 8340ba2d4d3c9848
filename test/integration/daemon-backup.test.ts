/**
 * Online backup and restore: `spool backup` copies the database while jobs are being enqueued
 * (the copy is whole and consistent, with a checksum `sha256sum -c` accepts), `--dir --keep`
 * prunes older copies, and `spool restore` checks the checksum and refuses a damaged copy or a
 * running daemon before replacing a stopped daemon's database; the daemon takes them on a
 * schedule too.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { DAEMON_SCRIPT, startDaemon, waitFor } from '../helpers/daemon';
import { runCli } from './cli-run';

function countJobs(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    const row: unknown = db.prepare('SELECT count(*) AS n FROM jobs').get();
    assert.ok(typeof row === 'object' && row !== null && 'n' in row && typeof row.n === 'number');
    return row.n;
  } finally {
    db.close();
  }
}

test('a backup taken while jobs are being enqueued is whole, consistent and checksummed, 0600', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  let enqueued = 0;
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: 50 }, (_, i) => ({ queue: 'busy', kind: 'k', payload: { i, pad: 'x'.repeat(500) } })) });
      enqueued += 50;
    }
  })();
  while (enqueued < 2000) await client.call('daemon.status');
  const file = path.join(daemon.dir, 'backups', 'copy.db');
  fs.mkdirSync(path.dirname(file));
  const cli = await runCli(['backup', file], { socketPath: daemon.socketPath });
  const atEnd = enqueued;
  stop = true;
  await writer;
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /Wrote a backup of the database to .*copy\.db \(\d+ bytes in \d+ ms\); its SHA-256 is in .*copy\.db\.sha256/);

  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(`${file}.sha256`).mode & 0o777, 0o600);
  const check = spawnSync('sha256sum', ['-c', 'copy.db.sha256'], { cwd: path.dirname(file), encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  assert.match(check.stdout, /copy\.db: OK/);
  assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['copy.db', 'copy.db.sha256'], 'no temporary file is left');
  const copied = countJobs(file);
  assert.ok(copied >= 2000 && copied <= atEnd + 50, `the copy holds ${copied} jobs, between 2000 and ${atEnd + 50}`);
  assert.equal(copied % 50, 0, 'whole batches only: each batch is one transaction');
});

test('spool backup --dir --keep N keeps the newest N timestamped copies', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const dir = path.join(daemon.dir, 'rolling');
  const names: string[] = [];
  for (let i = 0; i < 3; i++) {
    const cli = await runCli(['backup', '--dir', dir, '--keep', '2', '--json'], { socketPath: daemon.socketPath });
    assert.equal(cli.code, 0, cli.stderr);
    const result: unknown = JSON.parse(cli.stdout);
    assert.ok(typeof result === 'object' && result !== null && 'path' in result && typeof result.path === 'string');
    names.push(path.basename(result.path));
  }
  assert.match(names[0] ?? '', /^spool-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/);
  const kept = names.slice(1).flatMap((n) => [n, `${n}.sha256`]).sort();
  assert.deepEqual(fs.readdirSync(dir).sort(), kept);
  const refused = await runCli(['backup', '--keep', '2', path.join(dir, 'x.db')], { socketPath: daemon.socketPath });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /--keep prunes timestamped backups in a folder: use it with --dir/);
  const ontoItself = await runCli(['backup', daemon.dbPath], { socketPath: daemon.socketPath });
  assert.equal(ontoItself.code, 1);
  assert.match(ontoItself.stderr, /is the daemon's own database: a backup must go to another file/);
  assert.equal((await (await daemon.client()).call('daemon.status')).pid, daemon.pid);
});

test('spool restore refuses a running daemon and a damaged copy, and restores into a stopped one', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  await client.call('jobs.enqueue', { queue: 'before', kind: 'k' });
  const file = path.join(daemon.dir, 'good.db');
  assert.equal((await runCli(['backup', file], { socketPath: daemon.socketPath })).code, 0);
  await client.call('jobs.enqueue', { queue: 'after', kind: 'k' });

  const running = await runCli(['restore', file, '--db', daemon.dbPath], { socketPath: daemon.socketPath });
  assert.equal(running.code, 1);
  assert.match(running.stderr, new RegExp(`A Spool daemon \\(pid ${daemon.pid}\\) is running on .* Stop it first \\(spool daemon stop\\)`));

  await daemon.stop();
  const damaged = path.join(daemon.dir, 'damaged.db');
  fs.copyFileSync(file, damaged);
  fs.copyFileSync(`${file}.sha256`, `${damaged}.sha256`);
  const bytes = fs.readFileSync(damaged);
  bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0xff;
  fs.writeFileSync(damaged, bytes);
  const before = fs.readFileSync(daemon.dbPath);
  const refused = await runCli(['restore', damaged, '--db', daemon.dbPath], { socketPath: daemon.socketPath });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot restore: .*damaged\.db does not match its checksum .*Nothing was changed/);
  assert.ok(fs.readFileSync(daemon.dbPath).equals(before), 'the database is untouched');

  // A stale -wal of the replaced database must not be applied to the restored one.
  fs.writeFileSync(`${daemon.dbPath}-wal`, 'stale');
  const restored = await runCli(['restore', file, '--db', daemon.dbPath], { socketPath: daemon.socketPath });
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /Restored .*good\.db into .*spool\.db; the database it replaced is kept as .*spool\.db\.before-restore/);
  assert.equal(fs.existsSync(`${daemon.dbPath}-wal`), false);
  assert.equal(fs.statSync(daemon.dbPath).mode & 0o777, 0o600);
  await daemon.restart();
  const after = await daemon.client();
  const queues = (await after.call('queues.list')).queues.map((q) => q.name);
  assert.ok(queues.includes('before'));
  assert.ok(!queues.includes('after'), 'the job enqueued after the backup is not there');
});

test('the daemon takes backups on a schedule (--backup-every), keeping the newest --backup-keep', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-backups-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backups = path.join(dir, 'scheduled');
  const daemon = await startDaemon({ dir, args: ['--backup-every', '1s', '--backup-dir', backups, '--backup-keep', '2'] });
  t.after(() => daemon.dispose());
  await (await daemon.client()).call('jobs.enqueue', { queue: 'kept', kind: 'k' });
  await waitFor('an older scheduled backup to be removed', () => /Removed older scheduled backups/.test(daemon.log()), 30_000);
  const files = fs.readdirSync(backups).sort();
  const copies = files.filter((f) => f.endsWith('.db'));
  assert.equal(copies.length, 2, files.join(', '));
  assert.deepEqual(files, copies.flatMap((c) => [c, `${c}.sha256`]).sort());
  const check = spawnSync('sha256sum', ['-c', ...copies.map((c) => `${c}.sha256`)], { cwd: backups, encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.equal(countJobs(path.join(backups, copies[1] ?? '')), 1);
});

test('scheduled backups need both --backup-every and --backup-dir', () => {
  const result = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', path.join(os.tmpdir(), 'never.sock'), '--backup-every', '6h'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /Scheduled backups need both --backup-every \(how often, e\.g\. 6h\) and --backup-dir/);
});
