/**
 * SQLite specifics of the engine's counters tests (the rest run against every store in
 * test/conformance/): the counter table edited by hand, batches, and SQLite rolling back a whole transaction.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { makeEngine } from './helpers/engine';

test('verifyCounters reports a counter that disagrees with the jobs table', async (t) => {
  const { engine, dbPath } = makeEngine(t);
  await engine.enqueue({ queue: 'q', kind: 'k' });
  const other = new Database(dbPath);
  other.prepare(`UPDATE queue_counts SET count = 5 WHERE queue = 'q' AND state = 'queued'`).run();
  other.close();
  assert.deepEqual(await engine.verifyCounters(), { ok: false, mismatches: [{ queue: 'q', state: 'queued', counted: 5, actual: 1 }] });
});

test('inside one batch, later calls see the counts earlier ones changed, and a rolled-back call changes none', async (t) => {
  const { engine } = makeEngine(t);
  await engine.configureQueue({ name: 'q', concurrency: 2 });
  await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, () => ({ queue: 'q', kind: 'k' })) });
  const claimed = (await Promise.all(engine.batch(() => [1, 2, 3].map(() => engine.claim({ workerId: 'w', max: 1 }))))).flat();
  // The concurrency check of the third claim counted the two running jobs not yet committed.
  assert.equal(claimed.length, 2);
  await Promise.all(engine.batch(() => {
    const kept = engine.enqueue({ queue: 'q', kind: 'k' });
    assert.throws(() =>
      engine.batch(() => {
        void engine.enqueue({ queue: 'q', kind: 'k' });
        void engine.complete({ id: claimed[0]?.id ?? '', workerId: 'w' });
        throw new Error('undo this part');
      }),
    );
    // In an array: batch refuses a function that returns a promise (an async function would
    // make its calls after the commit).
    return [kept];
  }));
  assert.deepEqual((await engine.getQueue('q')).counts, { blocked: 0, queued: 4, running: 2, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 });
  assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
  assert.equal((await engine.stats()).completedLastMinute, 0, 'the rolled-back complete is not counted as finished');
  const [completes, inside] = engine.batch(() => {
    const started = claimed.map((job) => engine.complete({ id: job.id, workerId: 'w' }));
    // Read inside the transaction, before the buckets are written: the pending ones count.
    return [Promise.all(started), engine.stats()] as const;
  });
  await completes;
  assert.equal((await inside).completedLastMinute, 2);
  assert.equal((await inside).totals.completed, 2);
  assert.equal((await engine.stats()).completedLastMinute, 2);
  assert.equal((await engine.getQueue('q')).counts.completed, 2);
});

test('when SQLite rolls back the whole transaction under a savepoint, the batch fails and no counter moves', async (t) => {
  const { engine, backend } = makeEngine(t);
  await engine.enqueue({ queue: 'q', kind: 'k' });
  // A full disk or an I/O error can make SQLite end the transaction itself; ROLLBACK does the same.
  const db = backend.sqlite.db;
  const errors: Error[] = [];
  const failed = (error: unknown): void => void errors.push(error instanceof Error ? error : new Error(String(error)));
  const member = (write: () => unknown): void => {
    try {
      const started = write();
      if (started instanceof Promise) started.catch(failed);
    } catch (error) {
      failed(error);
    }
  };
  // Like the daemon's group commit: each member's failure is caught and the group goes on.
  assert.throws(
    () =>
      engine.batch(() => {
        member(() => engine.enqueue({ queue: 'q', kind: 'k' }));
        member(() =>
          engine.batch(() => {
            db.exec('ROLLBACK');
            throw new Error('simulated disk error');
          }),
        );
        member(() => engine.enqueue({ queue: 'q', kind: 'k' }));
      }),
    /rolled back by an earlier error/,
  );
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(errors.map((e) => e.message.slice(0, 30)), ['simulated disk error', 'The write transaction was roll']);
  assert.equal((await engine.listJobs({ queue: 'q' })).jobs.length, 1);
  assert.equal((await engine.getQueue('q')).counts.queued, 1);
  await engine.enqueue({ queue: 'q', kind: 'k' });
  assert.equal((await engine.getQueue('q')).counts.queued, 2);
  assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
});
