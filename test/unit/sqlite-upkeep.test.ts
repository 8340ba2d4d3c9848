/**
 * SQLite specifics of the engine's upkeep tests (the rest run against every store in
 * test/conformance/): a finish time written to the file by hand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine, thrown } from './helpers/engine';

const HOUR = 3_600_000;

test('retention never deletes a queued or retrying job, however old, while old finished ones go', async (t) => {
  const { engine, clock, dbPath } = makeEngine(t);
  await engine.configureQueue({ name: 'q', retentionMs: HOUR });
  const backoff = { strategy: 'fixed' as const, baseMs: 60_000, jitter: 0 };
  // All created and ended at the start; only 'completed' and 'cancelled' end, the rest wait.
  const [completed, retryingDue, retryingLater] = (await engine.enqueueBatch({
    jobs: [{ queue: 'q', kind: 'k', priority: 3 }, { queue: 'q', kind: 'k', priority: 2, backoff }, { queue: 'q', kind: 'k', priority: 1, backoff: { ...backoff, baseMs: 10 * HOUR, capMs: 10 * HOUR } }],
  })).results.map((r) => r.job);
  assert.ok(completed && retryingDue && retryingLater);
  await engine.claim({ workerId: 'w', max: 3 });
  await engine.complete({ id: completed.id, workerId: 'w' });
  await engine.fail({ id: retryingDue.id, workerId: 'w', error: 'x' });
  await engine.fail({ id: retryingLater.id, workerId: 'w', error: 'x' });
  const cancelled = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  await engine.cancel(cancelled.id);
  const queued = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  const delayed = (await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 20 * HOUR })).job;
  clock.advance(3 * HOUR);
  const before = (await engine.getJob(retryingDue.id)).job;
  assert.equal(before.state, 'retrying');
  assert.ok(before.runAt < clock.ms - HOUR, 'one retry is long overdue');
  assert.ok((await engine.getJob(retryingLater.id)).job.runAt > clock.ms, 'the other is still in the future');

  assert.equal(await engine.cleanup(100), 2);
  assert.equal(await engine.cleanup(100), 0);
  for (const gone of [completed, cancelled]) assert.equal((await thrown(() => engine.getJob(gone.id))).code, ErrorCode.JobNotFound);
  const states = await Promise.all([queued, delayed, retryingDue, retryingLater].map(async (j) => (await engine.getJob(j.id)).job.state));
  assert.deepEqual(states, ['queued', 'queued', 'retrying', 'retrying']);
  const q = await engine.getQueue('q');
  assert.deepEqual([q.counts.queued, q.counts.retrying, q.counts.completed, q.counts.cancelled], [2, 2, 0, 0]);
  // No engine path leaves a finish time on a waiting job today; the state, not only the finish
  // time, is what keeps it. Give two of them an old one through a second connection.
  const other = new Database(dbPath);
  other.prepare(`UPDATE jobs SET finished_at = 0 WHERE id IN (?, ?)`).run(queued.id, retryingDue.id);
  other.close();
  assert.equal(await engine.cleanup(100), 0);
  assert.deepEqual(await Promise.all([queued, retryingDue].map(async (j) => (await engine.getJob(j.id)).job.state)), ['queued', 'retrying']);
  assert.equal((await engine.verifyCounters()).ok, true);
});
