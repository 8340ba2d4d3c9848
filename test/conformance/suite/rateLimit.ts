import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeEngine, type TestStoreFactory } from '../harness';

/** The rate-limit tests, run against the store `store` makes. */
export function defineRateLimit(store: TestStoreFactory): void {
  test('a rate-limited queue starts at most burst + perSecond·t jobs over a window of t seconds', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'api', rateLimit: { perSecond: 5, burst: 3 } });
    await engine.enqueueBatch({ jobs: Array.from({ length: 200 }, () => ({ queue: 'api', kind: 'call' })) });
    assert.equal((await engine.claim({ workerId: 'w', max: 100 })).length, 3, 'a full bucket gives the burst');
    assert.equal((await engine.claim({ workerId: 'w', max: 100 })).length, 0, 'then nothing until a token refills');
    assert.equal(await engine.nextWakeAt(), clock.ms + 200, 'the next token is due in 1/5 s');
    clock.advance(199);
    assert.equal((await engine.claim({ workerId: 'w', max: 100 })).length, 0);
    clock.advance(1);
    assert.equal((await engine.claim({ workerId: 'w', max: 100 })).length, 1);
    // Claim greedily every 50 ms for 10 s: 5 per second, not one more.
    let started = 0;
    for (let elapsed = 0; elapsed < 10_000; elapsed += 50) {
      clock.advance(50);
      started += (await engine.claim({ workerId: 'w', max: 100 })).length;
    }
    assert.equal(started, 50);
    // After a quiet spell the bucket is full again, but never more than the burst.
    clock.advance(60_000);
    assert.equal((await engine.claim({ workerId: 'w', max: 100 })).length, 3);
  });

  test('two engines on one store share one token bucket', async (t) => {
    const { engine, clock, openShared } = makeEngine(t, store);
    const second = openShared();
    await engine.configureQueue({ name: 'api', rateLimit: { perSecond: 1, burst: 2 } });
    await engine.enqueueBatch({ jobs: Array.from({ length: 10 }, () => ({ queue: 'api', kind: 'call' })) });
    assert.equal((await engine.claim({ workerId: 'a' })).length, 1);
    assert.equal((await second.claim({ workerId: 'b', max: 5 })).length, 1);
    assert.equal((await engine.claim({ workerId: 'a', max: 5 })).length, 0);
    clock.advance(1000);
    assert.equal((await second.claim({ workerId: 'b', max: 5 })).length, 1);
    assert.equal((await engine.claim({ workerId: 'a', max: 5 })).length, 0);
  });

  test('queue settings changed by another engine on the same store apply to this engine at once', async (t) => {
    const { engine, openShared } = makeEngine(t, store);
    const other = openShared();
    await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, () => ({ queue: 'q', kind: 'k' })) });
    assert.equal((await other.claim({ workerId: 'b' })).length, 1, 'the other engine has read (and cached) the queue');
    await engine.pauseQueue('q');
    assert.deepEqual(await other.claim({ workerId: 'b' }), [], 'a pause by one engine stops the other\'s claims');
    await engine.resumeQueue('q');
    await engine.configureQueue({ name: 'q', concurrency: 2, defaultMaxAttempts: 9 });
    assert.equal((await other.claim({ workerId: 'b', max: 5 })).length, 1, 'the new concurrency cap holds across engines');
    assert.equal((await other.enqueue({ queue: 'q', kind: 'k' })).job.maxAttempts, 9, 'and so do new defaults');
  });

  test('after the clock steps back, a rate-limited queue refills from the new time instead of waiting for the old one', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'api', rateLimit: { perSecond: 2, burst: 1 } });
    await engine.enqueueBatch({ jobs: [{ queue: 'api', kind: 'call' }] });
    assert.equal((await engine.claim({ workerId: 'w', max: 10 })).length, 1, 'the burst empties the bucket');
    // NTP steps the clock back an hour; jobs enqueued from then on are due at the new time.
    clock.advance(-3_600_000);
    await engine.enqueueBatch({ jobs: Array.from({ length: 50 }, () => ({ queue: 'api', kind: 'call' })) });
    assert.equal((await engine.claim({ workerId: 'w', max: 10 })).length, 0, 'no token has refilled yet');
    let started = 0;
    for (let elapsed = 0; elapsed < 10_000; elapsed += 500) {
      clock.advance(500);
      started += (await engine.claim({ workerId: 'w', max: 10 })).length;
    }
    assert.equal(started, 20, 'two jobs a second, as configured');
    // The daemon is woken for the next token, not every few milliseconds for an hour.
    assert.equal(await engine.nextWakeAt(), clock.ms + 500);
  });
}
