import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteEngine } from '../helpers/sqliteEngine';
import { SQLITE_MIGRATIONS } from '../../daemon/storage/sqlite/migrations';
import { tempDir } from './helpers/engine';
import { waitFor } from '../helpers/wait';

const PROCESSES = 4;
const JOBS = 10_000;
const root = path.resolve(__dirname, '..', '..');

interface Report {
  workerId: string;
  completed: string[];
}

test('four processes claiming from one file complete every job exactly once, each claimed once', { timeout: 180_000 }, async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'spool.db');
  const seed = sqliteEngine({ dbPath });
  for (let i = 0; i < JOBS; i += 1000) {
    await seed.enqueueBatch({ jobs: Array.from({ length: 1000 }, (_, j) => ({ queue: 'shared', kind: 'work', payload: { n: i + j } })) });
  }
  await seed.close();

  const goFile = path.join(dir, 'go');
  const children = Array.from({ length: PROCESSES }, (_, i) => {
    const workerId = `proc-${i}`;
    const readyFile = path.join(dir, `ready-${i}`);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/fixtures/engine-claimer.ts'), dbPath, workerId, readyFile, goFile, '5'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<Report>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => {
        if (code !== 0) reject(new Error(`${workerId} exited with ${code}: ${stderr}`));
        else resolve(parseReport(stdout));
      });
    });
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    return { readyFile, exited };
  });

  await waitFor('all claimer processes to open the database', () => children.every((c) => fs.existsSync(c.readyFile)), 60_000);
  fs.writeFileSync(goFile, 'go');
  const reports = await Promise.all(children.map((c) => c.exited));

  const all = reports.flatMap((r) => r.completed);
  assert.equal(all.length, JOBS, 'every job completed, none twice');
  assert.equal(new Set(all).size, JOBS, 'no job completed by two processes');
  const participants = reports.filter((r) => r.completed.length > 0).length;
  assert.ok(participants > 1, `more than one process took part (counts: ${reports.map((r) => r.completed.length).join(', ')})`);

  const db = new Database(dbPath, { readonly: true });
  t.after(() => db.close());
  const states = db.prepare('SELECT state, attempts, runs, count(*) AS n FROM jobs GROUP BY state, attempts, runs').all();
  assert.deepEqual(states, [{ state: 'completed', attempts: 1, runs: 1, n: JOBS }]);
  // No attempt failed or ran out, so the history holds no row: each job row records its one completed attempt.
  assert.equal(db.prepare('SELECT count(*) FROM job_runs').pluck().get(), 0);
  // The process that completed each job is the one its row says claimed it.
  const expected = reports
    .filter((r) => r.completed.length > 0)
    .map((r) => ({ workerId: r.workerId, n: r.completed.length }))
    .sort((a, b) => a.workerId.localeCompare(b.workerId));
  assert.deepEqual(db.prepare(`SELECT worker_id AS workerId, count(*) AS n FROM jobs WHERE state = 'completed' GROUP BY worker_id ORDER BY worker_id`).all(), expected);
  const byWorker = new Map(reports.flatMap((r) => r.completed.map((id) => [id, r.workerId] as const)));
  const reader = sqliteEngine({ dbPath });
  t.after(() => reader.close());
  for (const [id, workerId] of byWorker) {
    assert.deepEqual((await reader.getJob(id)).runs.map((r) => [r.attempt, r.workerId, r.outcome]), [[1, workerId, 'completed']]);
  }
});

function parseReport(text: string): Report {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error(`claimer printed ${text}`);
  const workerId: unknown = Reflect.get(value, 'workerId');
  const completed: unknown = Reflect.get(value, 'completed');
  if (typeof workerId !== 'string' || !Array.isArray(completed) || !completed.every((id): id is string => typeof id === 'string')) {
    throw new Error(`claimer printed an unexpected report: ${text.slice(0, 200)}`);
  }
  return { workerId, completed };
}

test('four processes opening a new database file at once create and migrate it once, and all can write', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'fresh', 'spool.db');
  const goFile = path.join(dir, 'go');
  const children = Array.from({ length: PROCESSES }, (_, i) => {
    const readyFile = path.join(dir, `ready-${i}`);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/fixtures/engine-opener.ts'), dbPath, `opener-${i}`, readyFile, goFile], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`opener-${i} exited with ${code}: ${stderr}`))));
    });
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    return { readyFile, exited };
  });
  await waitFor('all opener processes to start', () => children.every((c) => fs.existsSync(c.readyFile)), 60_000);
  fs.writeFileSync(goFile, 'go');
  await Promise.all(children.map((c) => c.exited));

  const engine = sqliteEngine({ dbPath });
  t.after(() => engine.close());
  assert.equal((await engine.getQueue('opened')).counts.queued, PROCESSES);
  assert.deepEqual((await engine.verifyCounters()).ok, true);
  const db = new Database(dbPath, { readonly: true });
  t.after(() => db.close());
  assert.deepEqual(
    db.prepare('SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version').all(),
    SQLITE_MIGRATIONS.map((m) => ({ version: m.version, n: 1 })),
  );
});
