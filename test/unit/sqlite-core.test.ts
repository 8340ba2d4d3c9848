/**
 * SQLite specifics of the engine's core tests (the rest run against every store in
 * test/conformance/): the run history table, rows an older Spool wrote, and a trigger added on a second connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { JobChange } from '../../daemon/engine/api';
import { makeEngine } from './helpers/engine';

test('a run is written to the history when its attempt ends; the job row shows the running attempt, and a completed one until a retry', async (t) => {
  const { engine, clock, dbPath } = makeEngine(t);
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 1000, jitter: 0 } });
  const db = new Database(dbPath, { readonly: true });
  t.after(() => db.close());
  const stored = (): unknown[] => db.prepare('SELECT run, attempt, worker_id, started_at, finished_at, outcome FROM job_runs WHERE job_id = ? ORDER BY run').raw().all(job.id);
  const history = async (): Promise<unknown[]> => (await engine.getJob(job.id)).runs.map((r) => [r.attempt, r.workerId, r.startedAt, r.finishedAt, r.outcome, r.durationMs]);

  const firstStart = clock.ms;
  await engine.claim({ workerId: 'w1' });
  assert.deepEqual(stored(), []);
  clock.advance(250);
  await engine.fail({ id: job.id, workerId: 'w1', error: 'boom' });
  assert.deepEqual(stored(), [[1, 1, 'w1', firstStart, firstStart + 250, 'failed']]);

  clock.advance(1000);
  const secondStart = clock.ms;
  await engine.claim({ workerId: 'w2' });
  assert.deepEqual(await history(), [
    [1, 'w1', firstStart, firstStart + 250, 'failed', 250],
    [2, 'w2', secondStart, null, 'running', null],
  ]);
  clock.advance(40);
  await engine.complete({ id: job.id, workerId: 'w2' });
  assert.deepEqual(stored(), [[1, 1, 'w1', firstStart, firstStart + 250, 'failed']], 'the completed attempt has no row of its own');
  const afterSecond = [
    [1, 'w1', firstStart, firstStart + 250, 'failed', 250],
    [2, 'w2', secondStart, secondStart + 40, 'completed', 40],
  ];
  assert.deepEqual(await history(), afterSecond, 'the job row shows it');

  // A retry clears the job row's worker and times: the completed attempt gets its row first.
  clock.advance(5);
  await engine.retry(job.id);
  assert.deepEqual(stored(), [
    [1, 1, 'w1', firstStart, firstStart + 250, 'failed'],
    [2, 2, 'w2', secondStart, secondStart + 40, 'completed'],
  ]);
  assert.deepEqual(await history(), afterSecond);
  const thirdStart = clock.ms;
  await engine.claim({ workerId: 'w3' });
  clock.advance(7);
  await engine.complete({ id: job.id, workerId: 'w3' });
  assert.deepEqual(await history(), [...afterSecond, [1, 'w3', thirdStart, thirdStart + 7, 'completed', 7]], 'the new attempt counts from 1 again');
  assert.equal(stored().length, 2);
});

test('a completed attempt whose row an older Spool wrote shows once, and a retry keeps that row', async (t) => {
  const { engine, clock, dbPath } = makeEngine(t);
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
  const start = clock.ms;
  await engine.claim({ workerId: 'w' });
  clock.advance(30);
  await engine.complete({ id: job.id, workerId: 'w' });
  // What a Spool before migration 6 wrote on completing: the attempt's own row. Its finish is
  // a millisecond off the job row's, so the history shows which of the two it was read from.
  const db = new Database(dbPath);
  t.after(() => db.close());
  db.prepare(`INSERT INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome) VALUES (?, 1, 1, 'w', ?, ?, 'completed')`).run(job.id, start, start + 31);
  const expected = [[1, 'w', start, start + 31, 'completed']];
  const history = async (): Promise<unknown[]> => (await engine.getJob(job.id)).runs.map((r) => [r.attempt, r.workerId, r.startedAt, r.finishedAt, r.outcome]);
  assert.deepEqual(await history(), expected);
  await engine.retry(job.id);
  assert.deepEqual(await history(), expected, 'the row already written is kept, not replaced');
  assert.equal(db.prepare('SELECT count(*) FROM job_runs WHERE job_id = ?').pluck().get(job.id), 1);
});

test('events are delivered after commit, and not at all for a rolled-back batch', async (t) => {
  const { engine, dbPath } = makeEngine(t);
  const seen: JobChange[] = [];
  const queues: string[] = [];
  const reads: Promise<void>[] = [];
  engine.subscribe({
    jobChanged: (change) => {
      // Delivered after commit: the change is visible to a read started from inside the listener.
      reads.push(engine.getJob(change.id).then(({ job }) => assert.equal(job.state, change.state)));
      seen.push(change);
    },
    queueChanged: (name) => queues.push(name),
  });
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
  await engine.claim({ workerId: 'w' });
  await engine.complete({ id: job.id, workerId: 'w' });
  await Promise.all(reads);
  assert.deepEqual(seen.map((c) => c.state), ['queued', 'running', 'completed']);
  assert.deepEqual(queues, ['q']);
  // Valid input that the database refuses halfway through the batch (a trigger added through a
  // second connection): the first job's insert is rolled back and its event never delivered.
  const other = new Database(dbPath);
  other.exec(`CREATE TRIGGER refuse_explode BEFORE INSERT ON jobs WHEN new.kind = 'explode' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`);
  other.close();
  const before = seen.length;
  await assert.rejects(async () => engine.enqueueBatch({ jobs: [{ queue: 'q2', kind: 'k' }, { queue: 'q2', kind: 'explode' }] }), /refused by test/);
  assert.equal(seen.length, before);
  assert.deepEqual(queues, ['q']);
  assert.deepEqual((await engine.listQueues()).map((q) => q.name), ['q']);
});
