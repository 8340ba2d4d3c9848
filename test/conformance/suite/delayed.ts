/**
 * The delayed count of stats and queue listings (daemon/storage/sqlite/delayed.ts): counted over the due
 * index, kept between reads while nothing could have changed it. Kept counts must never differ
 * from a fresh count, whatever happens between two reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeEngine, type TestStoreFactory } from '../harness';

/** The delayed tests, run against the store `store` makes. */
export function defineDelayed(store: TestStoreFactory): void {
  test('a clock that steps back below a claim or a retry made since does not reuse the kept count', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    // A claim at a later time took the counted job; then the clock went back before its run time.
    await engine.enqueue({ queue: 'claimed', kind: 'k', delayMs: 60_000 });
    assert.equal((await engine.getQueue('claimed')).delayed, 1);
    clock.advance(120_000);
    assert.equal((await engine.claim({ workerId: 'w', queues: ['claimed'] })).length, 1);
    clock.advance(-100_000);
    assert.equal((await engine.getQueue('claimed')).delayed, 0, 'the job runs: it is not delayed');
    // A retry put a job back with run time "now"; then the clock went back before that.
    const cancelled = (await engine.enqueue({ queue: 'retried', kind: 'k' })).job;
    await engine.cancel(cancelled.id);
    assert.equal((await engine.getQueue('retried')).delayed, 0);
    clock.advance(10_000);
    await engine.retry(cancelled.id);
    clock.advance(-5000);
    assert.equal((await engine.getQueue('retried')).delayed, 1, 'its run time is now 5 s ahead');
  });
}
