/**
 * `spool restore` trusts more than the checksum: a backup truncated, or with damaged pages, whose
 * `.sha256` was written to match it, is refused by SQLite's integrity check of the copy, and so is
 * a SQLite file that is not a Spool database; the database in place is left untouched.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';

/** Writes `FILE.sha256` so that it matches the file as it is now, as someone tampering would. */
function matchingChecksum(file: string): void {
  const sha = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  fs.writeFileSync(`${file}.sha256`, `${sha}  ${path.basename(file)}\n`);
}

/** A stopped daemon's database and a backup of it, taken when it held a few hundred jobs (many pages). */
async function daemonWithBackup(t: { after(fn: () => Promise<void>): void }): Promise<{ daemon: TestDaemon; backup: string }> {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const jobs = Array.from({ length: 400 }, (_, i) => ({ queue: 'kept', kind: 'k', payload: { i, text: `job ${i} `.repeat(40) } }));
  await client.call('jobs.enqueueBatch', { jobs });
  const backup = path.join(daemon.dir, 'good.db');
  const made = await runCli(['backup', backup], { socketPath: daemon.socketPath });
  assert.equal(made.code, 0, made.stderr);
  await daemon.stop();
  return { daemon, backup };
}

async function assertRefused(daemon: TestDaemon, file: string, reason: RegExp): Promise<void> {
  const before = fs.readFileSync(daemon.dbPath);
  const refused = await runCli(['restore', file, '--db', daemon.dbPath], { socketPath: daemon.socketPath });
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, reason);
  assert.match(refused.stderr, /Nothing was changed/);
  assert.ok(fs.readFileSync(daemon.dbPath).equals(before), 'the database is untouched');
  assert.equal(fs.existsSync(`${daemon.dbPath}.before-restore`), false);
  assert.deepEqual(fs.readdirSync(daemon.dir).filter((name) => name.includes('restore-partial')), [], 'no copy is left behind');
}

test('a truncated backup with a matching .sha256 is refused, and the database is left as it was', async (t) => {
  const { daemon, backup } = await daemonWithBackup(t);
  const truncated = path.join(daemon.dir, 'truncated.db');
  const bytes = fs.readFileSync(backup);
  fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  matchingChecksum(truncated);
  await assertRefused(daemon, truncated, /Cannot restore: .*truncated\.db is not a whole Spool database: (SQLite's integrity check found it damaged|SQLite cannot read it whole)/);
});

test('a backup with five damaged pages and a matching .sha256 is refused', async (t) => {
  const { daemon, backup } = await daemonWithBackup(t);
  const damaged = path.join(daemon.dir, 'damaged.db');
  const bytes = Buffer.from(fs.readFileSync(backup));
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const pages = bytes.length / pageSize;
  assert.ok(pages > 20, `the backup has ${pages} pages`);
  // Five pages from the middle of the file, their bytes scrambled.
  for (let n = 0; n < 5; n++) {
    const start = (Math.floor(pages / 2) + n) * pageSize;
    for (let i = 0; i < pageSize; i++) bytes[start + i] = (i * 131 + n * 7) & 0xff;
  }
  fs.writeFileSync(damaged, bytes);
  matchingChecksum(damaged);
  await assertRefused(daemon, damaged, /Cannot restore: .*damaged\.db is not a whole Spool database: (SQLite's integrity check found it damaged|SQLite cannot read it whole)/);
});

test("another program's SQLite database with a matching .sha256 is refused as not a Spool database", async (t) => {
  const { daemon } = await daemonWithBackup(t);
  const other = path.join(daemon.dir, 'other.db');
  const db = new Database(other);
  db.exec('CREATE TABLE contacts (name TEXT)');
  db.close();
  matchingChecksum(other);
  await assertRefused(daemon, other, /Cannot restore: .*other\.db is not a whole Spool database: It is not a Spool database: it lacks the tables schema_migrations, queues, jobs/);
});

test('a whole backup is still restored', async (t) => {
  const { daemon, backup } = await daemonWithBackup(t);
  const restored = await runCli(['restore', backup, '--db', daemon.dbPath], { socketPath: daemon.socketPath });
  assert.equal(restored.code, 0, restored.stderr);
  await daemon.restart();
  const client = await daemon.client();
  assert.equal((await client.call('stats.get', {})).totals.queued, 400);
});
