import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { SqliteStore } from '../../daemon/storage/sqlite';
import { openSqliteEngine, sqliteEngine } from '../helpers/sqliteEngine';
import { BUDGETED_CLAIM_SELECT_FOR_PLAN, CLAIM_SELECT_FOR_PLAN, WEIGHTED_CLAIM_SELECT_FOR_PLAN } from '../../daemon/storage/sqlite/database';
import { openDatabase } from '../../daemon/storage/sqlite/db';
import { GROUP_CLAIM_SQL_FOR_PLAN } from '../../daemon/storage/sqlite/groups';
import { listSql } from '../../daemon/storage/sqlite/list';
import { SQLITE_MIGRATIONS, migrateSqlite } from '../../daemon/storage/sqlite/migrations';
import { makeEngine, tempDir } from './helpers/engine';

function plan(db: Database.Database, sql: string, params: Record<string, unknown>): string {
  return db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(params)
    .map((row) => (typeof row === 'object' && row !== null ? String(Reflect.get(row, 'detail')) : ''))
    .join('\n');
}

test('the claim query walks the claim index in order, with no temp B-tree sort, even with a large analysed backlog', async (t) => {
  const { engine, dbPath } = makeEngine(t);
  for (let b = 0; b < 20; b++) {
    await engine.enqueueBatch({ jobs: Array.from({ length: 1000 }, (_, i) => ({ queue: b % 2 ? 'a' : 'b', kind: 'k', priority: i % 7, delayMs: i % 3 ? 0 : 60_000 })) });
  }
  await engine.claim({ workerId: 'w', max: 500 });
  const db = new Database(dbPath);
  t.after(() => db.close());
  db.exec('ANALYZE');
  for (const kinds of ['[]', '["k"]']) {
    const text = plan(db, CLAIM_SELECT_FOR_PLAN, { queue: 'a', now: Date.now(), limit: 10, kinds });
    assert.match(text, /USING (COVERING )?INDEX jobs_claim \(queue=\?\)/, text);
    assert.doesNotMatch(text, /TEMP B-TREE/, text);
  }
  const include = CLAIM_SELECT_FOR_PLAN.replace('kind NOT IN', 'kind IN');
  assert.doesNotMatch(plan(db, include, { queue: 'a', now: Date.now(), limit: 10, kinds: '["k"]' }), /TEMP B-TREE/);
  // The running sum of a large claim walks the same index in the same order: no sort either.
  const budgeted = plan(db, BUDGETED_CLAIM_SELECT_FOR_PLAN, { queue: 'a', now: Date.now(), limit: 100, kinds: '[]', budget: 1000 });
  assert.match(budgeted, /USING (COVERING )?INDEX jobs_claim \(queue=\?\)/, budgeted);
  assert.doesNotMatch(budgeted, /TEMP B-TREE/, budgeted);
  // So does the running sum of weight of a claim bounded by a concurrency or a capacity.
  const weighted = plan(db, WEIGHTED_CLAIM_SELECT_FOR_PLAN, { queue: 'a', now: Date.now(), limit: 100, kinds: '[]', budget: 1000, room: 10 });
  assert.match(weighted, /USING (COVERING )?INDEX jobs_claim \(queue=\?\)/, weighted);
  assert.doesNotMatch(weighted, /TEMP B-TREE/, weighted);
});

test('the reaper, delayed counts and newest-first listings (running jobs too) use their indexes', async (t) => {
  const { dbPath } = makeEngine(t);
  const db = new Database(dbPath);
  t.after(() => db.close());
  assert.match(plan(db, `SELECT * FROM jobs WHERE state = 'running' AND lease_expires_at <= @now ORDER BY lease_expires_at LIMIT 10`, { now: 1 }), /INDEX jobs_lease/);
  assert.match(
    plan(db, `SELECT count(*), min(run_at) FROM jobs INDEXED BY jobs_due WHERE queue = @q AND state IN ('queued', 'retrying') AND run_at > created_at AND state = 'queued' AND run_at > @now`, { q: 'q', now: 1 }),
    // Covering (migration 5): counting a million delayed jobs reads no table row.
    /COVERING INDEX jobs_due \(queue=\? AND state=\? AND run_at>\?\)/,
  );
  // The listing SQL as the store builds it: one queue and state, newest first, and the next page.
  for (const after of [undefined, { id: '0190', runAt: 0 }]) {
    const dead = listSql({ queue: 'q', states: ['dead'], order: 'newest', limit: 10, after, now: 1 });
    const deadPlan = plan(db, dead.sql, dead.params);
    assert.match(deadPlan, /INDEX jobs_list \(queue=\? AND state=\?/, deadPlan);
    assert.doesNotMatch(deadPlan, /TEMP B-TREE/, deadPlan);
  }
  // In run-time order each state is its own jobs_list range, sorted (list() merges the states).
  const byRunTime = listSql({ queue: 'q', states: ['queued'], order: 'runAt', limit: 10, now: 1 });
  assert.match(plan(db, byRunTime.sql, byRunTime.params), /INDEX jobs_list \(queue=\? AND state=\?\)/);
  // Running jobs are not in jobs_list: they are read through jobs_lease, never by a table scan.
  const running = listSql({ queue: 'q', states: ['running'], order: 'newest', limit: 10, now: 1 });
  assert.match(plan(db, running.sql, running.params), /INDEX jobs_lease/);
  // A branch across every queue (jobs --branch, a bulk action by branch) is one jobs_branch range.
  for (const states of [undefined, ['dead' as const]]) {
    const branch = listSql({ branch: 'main', ...(states ? { states } : {}), order: 'newest', limit: 10, now: 1 });
    const branchPlan = plan(db, branch.sql, branch.params);
    assert.match(branchPlan, /INDEX jobs_branch/, branchPlan);
    assert.doesNotMatch(branchPlan, /TEMP B-TREE/, branchPlan);
  }
  // No index on the end of an id: it would cost every enqueue an insert for a lookup made by hand.
  assert.equal(db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql LIKE '%substr(id%'`).pluck().get(), 0);
});

test('migrations are numbered and recorded, the schema enforces states and attempts, and pragmas are set', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'nested', 'spool.db');
  await sqliteEngine({ dbPath }).close();
  // Opening again applies nothing new.
  const { engine, backend } = openSqliteEngine({ dbPath, durable: true });
  t.after(() => engine.close());
  const db = new Database(dbPath);
  t.after(() => db.close());
  assert.deepEqual(
    db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
    SQLITE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
  );
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  db.prepare(`INSERT INTO queues (name, default_max_attempts, backoff_strategy, backoff_base_ms, backoff_cap_ms, backoff_jitter, default_timeout_ms, created_at, updated_at)
    VALUES ('q', 3, 'fixed', 1, 1, 0, 1000, 0, 0)`).run();
  const insert = (state: string, attempts: number, maxAttempts: number): void => {
    db.prepare(`INSERT INTO jobs (id, queue, kind, payload, priority, state, run_at, attempts, max_attempts, backoff_strategy, backoff_base_ms,
      backoff_cap_ms, backoff_jitter, timeout_ms, created_at, updated_at)
      VALUES (lower(hex(randomblob(16))), 'q', 'k', 'null', 0, ?, 0, ?, ?, 'fixed', 1, 1, 0, 1000, 0, 0)`).run(state, attempts, maxAttempts);
  };
  assert.throws(() => insert('finished', 0, 1), /CHECK constraint failed/);
  assert.throws(() => insert('queued', 0, 0), /CHECK constraint failed/);
  assert.throws(() => insert('queued', 2, 1), /CHECK constraint failed/);
  assert.throws(() => insert('running', 1, 1), /CHECK constraint failed/, 'a running job must have a worker and a lease');
  insert('queued', 0, 1);
  // The engine's own connection: durable means synchronous=FULL (2); the default is NORMAL (1).
  const sync = (b: SqliteStore): unknown => b.sqlite.db.pragma('synchronous', { simple: true });
  assert.equal(sync(backend), 2);
  const { engine: normal, backend: normalBackend } = openSqliteEngine({ dbPath });
  t.after(() => normal.close());
  assert.equal(sync(normalBackend), 1);
  assert.equal(normalBackend.sqlite.db.pragma('foreign_keys', { simple: true }), 1);
  // A second process waits up to 5 s for the write lock; 16 MB of page cache (negative = KiB).
  assert.equal(normalBackend.sqlite.db.pragma('busy_timeout', { simple: true }), 5000);
  assert.equal(normalBackend.sqlite.db.pragma('cache_size', { simple: true }), -16000);
  assert.equal(normalBackend.sqlite.db.pragma('temp_store', { simple: true }), 2, 'temp_store = MEMORY');
  // better-sqlite3's own default is also 5 s: a different value shows the pragma is what sets it.
  const custom = openDatabase(path.join(dir, 'custom.db'), { busyTimeoutMs: 1234 });
  t.after(() => custom.close());
  assert.equal(custom.pragma('busy_timeout', { simple: true }), 1234);
});

test('a database from a newer Spool is refused with advice', async (t) => {
  const { dbPath, engine } = makeEngine(t);
  await engine.close();
  const db = new Database(dbPath);
  db.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)`).run();
  db.close();
  assert.throws(() => sqliteEngine({ dbPath }), /schema version 999.*Upgrade Spool/);
});

test('migration 2 drops the running rows a version-1 database kept, and the running attempt still shows once', async (t) => {
  const { dbPath, engine } = makeEngine(t);
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
  const [claimed] = await engine.claim({ workerId: 'w' });
  assert.ok(claimed);
  await engine.close();
  // Turn the file back into what version 1 left: a 'running' history row beside the running job.
  const db = new Database(dbPath);
  db.prepare(`INSERT INTO job_runs (job_id, run, attempt, worker_id, started_at, outcome) VALUES (?, 1, 1, 'w', ?, 'running')`).run(job.id, claimed.startedAt);
  db.prepare('DELETE FROM schema_migrations WHERE version = 2').run();
  db.close();

  const reopened = sqliteEngine({ dbPath });
  t.after(() => reopened.close());
  assert.deepEqual((await reopened.getJob(job.id)).runs.map((r) => [r.attempt, r.workerId, r.outcome]), [[1, 'w', 'running']]);
  // Ending the attempt writes its row (a failure does; a completion leaves it to the job row)
  // without colliding with a leftover one.
  assert.equal((await reopened.fail({ id: job.id, workerId: 'w', error: 'boom' })).state, 'retrying');
  assert.deepEqual((await reopened.getJob(job.id)).runs.map((r) => r.outcome), ['failed']);
});

test('a migration that fails halfway leaves nothing behind and records no version, and applies whole once its cause is gone', async (t) => {
  const { dbPath, engine } = makeEngine(t);
  await engine.close();
  // Make the file look as if migration 3 had not run, except that its last statement (adding
  // the claimed_from column) now fails: the column is already there. Its first statements, which
  // drop the version-2 counter triggers, succeed before that.
  const db = new Database(dbPath);
  t.after(() => db.close());
  const triggers = ['jobs_count_insert', 'jobs_count_delete', 'jobs_count_update'];
  const events = ['INSERT', 'DELETE', 'UPDATE'];
  triggers.forEach((name, i) => db.exec(`CREATE TRIGGER ${name} AFTER ${events[i]} ON jobs BEGIN SELECT 1; END`));
  db.prepare('DELETE FROM schema_migrations WHERE version = 3').run();
  const triggersLeft = (): unknown[] => db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'jobs_count_%' ORDER BY name`).pluck().all();
  const versions = (): unknown[] => db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();

  assert.throws(() => migrateSqlite(db, 0), /^Error: Migration 3 \(job counters kept by the store\) failed: duplicate column name: claimed_from/);
  assert.deepEqual(triggersLeft(), [...triggers].sort(), 'the triggers its first statements dropped are back');
  const all = SQLITE_MIGRATIONS.map((m) => m.version);
  assert.deepEqual(versions(), all.filter((v) => v !== 3));
  assert.equal(db.inTransaction, false);

  db.exec('ALTER TABLE jobs DROP COLUMN claimed_from');
  assert.deepEqual(migrateSqlite(db, 0), [3]);
  assert.deepEqual(triggersLeft(), []);
  assert.deepEqual(versions(), all);
});

test('a grouped claim walks the groups in turn order with no sort, finds each head on its group index, and claims the chosen jobs by key', async (t) => {
  const { engine, dbPath } = makeEngine(t);
  for (let b = 0; b < 4; b++) {
    await engine.enqueueBatch({ jobs: Array.from({ length: 1000 }, (_, i) => ({ queue: 'g', kind: 'k', group: `customer:${i % 500}` })) });
  }
  await engine.claim({ workerId: 'w', queues: ['g'], max: 50 });
  const db = new Database(dbPath);
  t.after(() => db.close());
  const params = { queue: 'g', now: Date.now(), limit: 50, kinds: '[]', group: 'customer:1' };
  // Not a walk of the queue's claim index testing each waiting job against the ids (13 ms a
  // claim with 20,000 waiting): the plan SQLite chose before an ANALYZE.
  const claimIds = plan(db, GROUP_CLAIM_SQL_FOR_PLAN.claimIds, { ...params, ids: '[]', workerId: 'w' });
  assert.match(claimIds, /SEARCH jobs USING PRIMARY KEY \(id=\?\)/, claimIds);
  assert.doesNotMatch(claimIds, /jobs_claim/, claimIds);
  // And the served groups' rows each by key, not every group of the queue against the list.
  const served = plan(db, GROUP_CLAIM_SQL_FOR_PLAN.served, { queue: 'g', served: '[]' });
  assert.match(served, /SEARCH queue_groups USING (COVERING )?INDEX sqlite_autoindex_queue_groups_1 \(queue=\? AND group_key=\?\)/, served);
  db.exec('ANALYZE');
  const turns = plan(db, GROUP_CLAIM_SQL_FOR_PLAN.turns, params);
  assert.match(turns, /SEARCH g USING INDEX queue_groups_turn \(queue=\?\)/, turns);
  assert.match(turns, /SEARCH h USING PRIMARY KEY \(id=\?\)/, turns);
  assert.match(turns, /INDEX jobs_group_claim \(queue=\? AND group_key=\?\)/, turns);
  assert.doesNotMatch(turns, /TEMP B-TREE/, turns);
  const peek = plan(db, GROUP_CLAIM_SQL_FOR_PLAN.peek, params);
  assert.match(peek, /INDEX jobs_group_claim \(queue=\? AND group_key=\?\)/, peek);
  assert.doesNotMatch(peek, /TEMP B-TREE/, peek);
});
