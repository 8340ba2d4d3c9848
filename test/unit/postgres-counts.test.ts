/**
 * Counts on PostgreSQL with two daemons at once. Jobs per queue and state are kept in sharded
 * counter rows (one shard per server backend, written by statement-level triggers), so two
 * engines moving jobs at the same moment never wait on one hot row; the sum of the shards must
 * still be exact. Both engines enqueue, claim, complete, fail and cancel concurrently; afterwards
 * the counters agree with a recount of the jobs, and stats agree with what was done.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Engine } from '../../daemon/engine';
import { postgresStore } from '../../daemon/storage/postgres';
import { FakeClock } from '../helpers/engineTest';
import { sharedPostgres } from '../helpers/postgres';

test('counters stay exact while two engines enqueue, claim, complete, fail and cancel at once', async (t) => {
  const url = await (await sharedPostgres()).database(t);
  const clock = new FakeClock();
  const open = (): Engine => {
    const engine = new Engine({ store: postgresStore({ url, poolSize: 6 }), now: clock.now, random: () => 0.5 });
    t.after(() => engine.close());
    return engine;
  };
  const engines = [open(), open()];
  const queues = ['alpha', 'beta', 'gamma'];
  const done = { completed: 0, failed: 0, cancelled: 0 };
  const worker = async (engine: Engine, workerId: string): Promise<void> => {
    for (;;) {
      const jobs = await engine.claim({ workerId, max: 10 });
      if (jobs.length === 0) return;
      await Promise.all(
        jobs.map(async (job, i) => {
          if (i % 5 === 0) {
            await engine.fail({ id: job.id, workerId, error: 'no', permanent: true });
            done.failed += 1;
          } else {
            await engine.complete({ id: job.id, workerId });
            done.completed += 1;
          }
        }),
      );
    }
  };
  // Each engine enqueues into every queue while the other cancels some of what it can see.
  await Promise.all(
    engines.map(async (engine, e) => {
      for (let round = 0; round < 10; round += 1) {
        const { results } = await engine.enqueueBatch({ jobs: Array.from({ length: 60 }, (_, i) => ({ queue: queues[(round + i) % 3] as string, kind: 'k' })) });
        const toCancel = results.filter((_, i) => i % 10 === e).map((r) => r.job.id);
        const outcome = await engines[1 - e]!.cancelMany({ ids: toCancel });
        done.cancelled += outcome.count;
      }
    }),
  );
  await Promise.all([worker(engines[0]!, 'w0'), worker(engines[1]!, 'w1'), worker(engines[0]!, 'w2'), worker(engines[1]!, 'w3')]);

  for (const engine of engines) {
    const check = await engine.verifyCounters();
    assert.deepEqual(check.mismatches, []);
    assert.equal(check.ok, true);
  }
  const stats = await engines[0]!.stats();
  assert.equal(done.completed + done.failed + done.cancelled, 1200);
  assert.equal(stats.totals.completed, done.completed);
  assert.equal(stats.totals.dead, done.failed);
  assert.equal(stats.totals.cancelled, done.cancelled);
  assert.equal(stats.totals.queued + stats.totals.running + stats.totals.retrying, 0);
  assert.equal(stats.completedLastMinute, done.completed);
  assert.deepEqual(stats.queues.map((q) => q.name).sort(), queues);
});
