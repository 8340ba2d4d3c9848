import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay } from '../../../daemon/engine';
import { makeEngine, type TestStoreFactory } from '../harness';

/** The backoff tests, run against the store `store` makes. */
export function defineBackoff(store: TestStoreFactory): void {
  test('exponential, linear and fixed backoff follow their formula and the cap, with no jitter at random 0.5', async () => {
    const mid = (): number => 0.5;
    const exp = { strategy: 'exponential', baseMs: 1000, capMs: 10_000, jitter: 0.3 } as const;
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(exp, n, mid)), [1000, 2000, 4000, 8000, 10_000, 10_000]);
    const lin = { strategy: 'linear', baseMs: 1500, capMs: 5000, jitter: 0.3 } as const;
    assert.deepEqual([1, 2, 3, 4].map((n) => backoffDelay(lin, n, mid)), [1500, 3000, 4500, 5000]);
    const fixed = { strategy: 'fixed', baseMs: 700, capMs: 5000, jitter: 0.3 } as const;
    assert.deepEqual([1, 2, 9].map((n) => backoffDelay(fixed, n, mid)), [700, 700, 700]);
    // A huge attempt number must not overflow past the cap.
    assert.equal(backoffDelay(exp, 5000, mid), 10_000);
  });

  test('jitter moves the wait by at most ±jitter, reaching both bounds', async () => {
    const b = { strategy: 'exponential', baseMs: 1000, capMs: 1_000_000, jitter: 0.3 } as const;
    assert.equal(backoffDelay(b, 3, () => 0), 2800);
    assert.equal(backoffDelay(b, 3, () => 0.999999), 5200);
    for (let i = 0; i < 1000; i++) {
      const d = backoffDelay(b, 3, Math.random);
      assert.ok(d >= 2800 && d <= 5200, `delay ${d} outside 4000 ± 30%`);
    }
    assert.equal(backoffDelay({ ...b, jitter: 0 }, 3, () => 0), 4000);
  });

  test('a job failing attempt after attempt is retried on the exact backoff schedule, then dies', async (t) => {
    const { engine, clock, setRandom } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 4, backoff: { strategy: 'exponential', baseMs: 1000, capMs: 60_000, jitter: 0.2 } });
    // random 0 → -20%, 1 → +20%; the schedule is base·2^(n-1) moved by exactly that much.
    const randoms = [0, 0.999999, 0.5];
    const expected = [800, 2400, 4000];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [claimed] = await engine.claim({ workerId: 'w' });
      assert.equal(claimed?.id, job.id);
      assert.equal(claimed?.attempts, attempt);
      setRandom(randoms[attempt - 1] ?? 0.5);
      const failed = await engine.fail({ id: job.id, workerId: 'w', error: `failure ${attempt}` });
      assert.equal(failed.state, 'retrying');
      const wait = expected[attempt - 1] ?? 0;
      assert.equal(failed.runAt, clock.ms + wait, `attempt ${attempt} waits ${wait} ms`);
      assert.equal(await engine.nextWakeAt(), clock.ms + wait);
      clock.advance(wait - 1);
      assert.deepEqual(await engine.claim({ workerId: 'w' }), [], `not claimable 1 ms before its backoff ends (attempt ${attempt})`);
      clock.advance(1);
    }
    await engine.claim({ workerId: 'w' });
    const dead = await engine.fail({ id: job.id, workerId: 'w', error: 'failure 4' });
    assert.equal(dead.state, 'dead');
    assert.deepEqual((await engine.getJob(job.id)).runs.map((r) => [r.attempt, r.outcome, r.error]), [
      [1, 'failed', 'failure 1'],
      [2, 'failed', 'failure 2'],
      [3, 'failed', 'failure 3'],
      [4, 'failed', 'failure 4'],
    ]);
  });
}
