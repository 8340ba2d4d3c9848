import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** The lease tests, run against the store `store` makes. */
export function defineLease(store: TestStoreFactory): void {
  test('only the lease holder may heartbeat, report progress, checkpoint, log, complete, fail or release', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'holder' });
    const before = await engine.getJob(job.id);
    const other = { id: job.id, workerId: 'intruder' };
    for (const attempt of [
      () => engine.heartbeat(other),
      () => engine.progress({ ...other, percent: 50 }),
      () => engine.checkpoint({ ...other, checkpoint: { step: 2 } }),
      () => engine.log({ ...other, lines: ['x'] }),
      () => engine.complete(other),
      () => engine.fail({ ...other, error: 'x' }),
      () => engine.release(other),
      () => engine.markCancelled(job.id, 'intruder'),
    ]) {
      const error = await thrown(attempt);
      assert.equal(error.code, ErrorCode.LeaseLost);
      assert.equal(error.data['workerId'], 'intruder');
      assert.equal(error.data['id'], job.id);
    }
    assert.deepEqual(await engine.getJob(job.id), before);
    assert.equal((await engine.output({ id: job.id })).lines.length, 0);
    assert.equal((await thrown(() => engine.complete({ id: '01890000-0000-7000-8000-000000000000', workerId: 'holder' }))).code, ErrorCode.JobNotFound);
  });

  test('a worker that never claimed the job is told so, not that its lease expired', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    const waiting = await thrown(() => engine.complete({ id: job.id, workerId: 'intruder' }));
    assert.equal(waiting.code, ErrorCode.LeaseLost);
    assert.match(waiting.message, /it is queued; this worker never claimed it/);
    await engine.claim({ workerId: 'w1' });
    const error = await thrown(() => engine.heartbeat({ id: job.id, workerId: 'intruder' }));
    assert.equal(error.code, ErrorCode.LeaseLost);
    assert.deepEqual(error.data, { id: job.id, workerId: 'intruder', state: 'running' });
    assert.match(error.message, /it is running under worker w1; this worker never claimed it/);
    assert.doesNotMatch(error.message, /claimed again|lease expired/);
    await engine.complete({ id: job.id, workerId: 'w1' });
    assert.match((await thrown(() => engine.complete({ id: job.id, workerId: 'w1' }))).message, /it is completed now\. Stop working on it/);
  });

  test('a stale worker whose lease was reaped and re-claimed cannot complete the job, and nothing changes', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 10_000, backoff: { strategy: 'fixed', baseMs: 0, jitter: 0 } });
    await engine.claim({ workerId: 'stale' });
    clock.advance(10_000);
    assert.equal(await engine.reapExpiredLeases(), 1);
    const reaped = await engine.getJob(job.id);
    assert.equal(reaped.job.state, 'retrying');
    assert.equal(reaped.job.lastError, 'lease expired');
    assert.equal(reaped.runs[0]?.outcome, 'lease_expired');
    const [reclaimed] = await engine.claim({ workerId: 'fresh' });
    assert.equal(reclaimed?.attempts, 2);
    const before = await engine.getJob(job.id);
    const error = await thrown(() => engine.complete({ id: job.id, workerId: 'stale', result: 'late' }));
    assert.equal(error.code, ErrorCode.LeaseLost);
    assert.match(error.message, /claimed again by worker fresh/);
    assert.deepEqual(await engine.getJob(job.id), before);
    assert.equal((await engine.complete({ id: job.id, workerId: 'fresh', result: 'on time' })).result, 'on time');
    assert.equal((await thrown(() => engine.fail({ id: job.id, workerId: 'stale', error: 'late' }))).code, ErrorCode.LeaseLost);
  });

  test('the reaper takes only expired leases; a lease extended by heartbeat survives', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const a = (await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 1000 })).job;
    const b = (await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 1000 })).job;
    await engine.claim({ workerId: 'w', max: 2 });
    assert.equal(await engine.nextWakeAt(), clock.ms + 1000);
    clock.advance(900);
    await engine.heartbeat({ id: b.id, workerId: 'w' });
    clock.advance(100);
    assert.equal(await engine.reapExpiredLeases(), 1);
    assert.equal((await engine.getJob(a.id)).job.state, 'retrying');
    assert.equal((await engine.getJob(b.id)).job.state, 'running');
    assert.equal((await engine.stats()).failedLastMinute, 1);
  });

  test('a reaped job with no attempts left is dead; a reaped job with a cancel request is cancelled', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const last = (await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 1000, maxAttempts: 1 })).job;
    const cancelled = (await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 1000 })).job;
    await engine.claim({ workerId: 'w', max: 2 });
    await engine.cancel(cancelled.id);
    clock.advance(1000);
    assert.equal(await engine.reapExpiredLeases(), 2);
    assert.equal((await engine.getJob(last.id)).job.state, 'dead');
    assert.equal((await engine.getJob(cancelled.id)).job.state, 'cancelled');
  });

  test('a retry gets the checkpoint its previous attempt saved', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 0, jitter: 0 } });
    const [first] = await engine.claim({ workerId: 'w' });
    assert.equal(first?.checkpoint, null);
    await engine.checkpoint({ id: job.id, workerId: 'w', checkpoint: { page: 7 } });
    await engine.progress({ id: job.id, workerId: 'w', percent: 40, message: 'page 7' });
    assert.equal((await engine.getJob(job.id)).job.progress, 40);
    await engine.fail({ id: job.id, workerId: 'w', error: 'network' });
    const [second] = await engine.claim({ workerId: 'w2' });
    assert.deepEqual(second?.checkpoint, { page: 7 });
    assert.equal(second?.progress, null);
    // A user's retry of a dead job resumes from its checkpoint too; a completed job starts over.
    await engine.fail({ id: job.id, workerId: 'w2', error: 'bad data', permanent: true });
    await engine.retry(job.id);
    const [third] = await engine.claim({ workerId: 'w3' });
    assert.deepEqual(third?.checkpoint, { page: 7 });
    await engine.complete({ id: job.id, workerId: 'w3' });
    await engine.retry(job.id);
    assert.equal((await engine.claim({ workerId: 'w4' }))[0]?.checkpoint, null);
  });

  test('a cancel of a running job is cooperative: requested first, cancelled when the worker stops', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    const changes: [string, boolean | undefined][] = [];
    engine.subscribe({ jobChanged: (c) => changes.push([c.state, c.cancelRequested]) });
    const requested = await engine.cancel(job.id);
    assert.deepEqual(changes, [['running', true]], 'the event says a cancel was requested, so an executor can stop at once');
    assert.equal(requested.state, 'running');
    assert.equal(requested.cancelRequested, true);
    const done = await engine.markCancelled(job.id, 'w');
    assert.equal(done.state, 'cancelled');
    assert.equal((await engine.getJob(job.id)).runs[0]?.outcome, 'cancelled');
    // A worker that answers a cancel request by failing ends cancelled too, not retrying.
    const second = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    await engine.claim({ workerId: 'w' });
    await engine.cancel(second.id);
    assert.equal((await engine.fail({ id: second.id, workerId: 'w', error: 'stopped' })).state, 'cancelled');
  });

  test('a released job runs again at once without using up an attempt, even its last one; its run shows as interrupted', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 1, timeoutMs: 60_000 });
    const [claimed] = await engine.claim({ workerId: 'w1' });
    assert.ok(claimed);
    await engine.checkpoint({ id: job.id, workerId: 'w1', checkpoint: { page: 3 } });
    const events: string[] = [];
    engine.subscribe({ jobChanged: (c) => events.push(`${c.id}:${c.state}`) });
    clock.advance(200);
    const released = await engine.release({ id: job.id, workerId: 'w1', reason: 'worker stopping' });
    assert.deepEqual([released.state, released.attempts, released.runAt, released.leaseExpiresAt], ['retrying', 0, clock.ms, null]);
    assert.equal(released.lastError, 'Interrupted: worker stopping', 'why it waits again');
    assert.deepEqual(released, (await engine.getJob(job.id)).job);
    assert.deepEqual(events, [`${job.id}:retrying`]);
    assert.deepEqual((await engine.getJob(job.id)).runs.map((r) => [r.attempt, r.workerId, r.outcome, r.error, r.durationMs]), [[1, 'w1', 'interrupted', 'worker stopping', 200]]);
    assert.equal((await engine.stats()).failedLastMinute, 0, 'a release is not a failure');
    // The next run's output carries the same attempt number: a line marks where this one ended.
    assert.deepEqual(
      (await engine.output({ id: job.id })).lines.map((l) => [l.run, l.attempt, l.stream, l.text]),
      [[1, 1, 'log', 'Attempt 1 was interrupted (worker stopping); it runs again without using up an attempt.']],
    );
    assert.equal((await engine.getQueue('q')).counts.running, 0);

    // Claimed again at once: the same attempt number, the checkpoint kept, and it can still complete.
    const [again] = await engine.claim({ workerId: 'w2' });
    assert.deepEqual([again?.id, again?.attempts, again?.checkpoint], [job.id, 1, { page: 3 }]);
    await engine.release({ id: job.id, workerId: 'w2' });
    assert.equal((await engine.getJob(job.id)).runs[1]?.error, 'released by its worker');
    await engine.claim({ workerId: 'w3' });
    await engine.log({ id: job.id, workerId: 'w3', lines: ['third run'] });
    assert.equal((await engine.complete({ id: job.id, workerId: 'w3' })).state, 'completed');
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
    // Three runs of attempt 1, told apart by their run numbers in the history and in the output.
    assert.deepEqual((await engine.getJob(job.id)).runs.map((r) => [r.run, r.attempt, r.outcome]), [[1, 1, 'interrupted'], [2, 1, 'interrupted'], [3, 1, 'completed']]);
    assert.deepEqual(
      (await engine.output({ id: job.id })).lines.map((l) => [l.run, l.attempt, l.stream]),
      [[1, 1, 'log'], [2, 1, 'log'], [3, 1, 'log']],
    );
    // A finished job cannot be released.
    assert.equal((await thrown(() => engine.release({ id: job.id, workerId: 'w3' }))).code, ErrorCode.LeaseLost);
  });

  test('a released job whose cancel was requested ends cancelled', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    await engine.cancel(job.id);
    const released = await engine.release({ id: job.id, workerId: 'w', reason: 'stopping' });
    assert.equal(released.state, 'cancelled');
    assert.deepEqual((await engine.getJob(job.id)).runs.map((r) => r.outcome), ['cancelled']);
  });

  test('release refuses wrong params with InvalidParams naming the field', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    for (const [params, field] of [
      [{ id: job.id, workerId: 'w', reason: '' }, 'reason'],
      [{ id: job.id, workerId: 'w', reason: 7 }, 'reason'],
      [{ id: job.id, workerId: 'w', later: true }, 'later'],
      [{ id: 'nope', workerId: 'w' }, 'id'],
      [{ id: job.id }, 'workerId'],
    ] as const) {
      const error = await thrown(() => engine.release(params as never));
      assert.equal(error.code, ErrorCode.InvalidParams, JSON.stringify(params));
      assert.equal(error.data['field'], field);
    }
    assert.equal((await engine.getJob(job.id)).job.state, 'running');
  });
}
