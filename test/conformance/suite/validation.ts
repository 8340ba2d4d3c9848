import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, LIMITS } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const JOB = { queue: 'q', kind: 'k' };

/** The validation tests, run against the store `store` makes. */
export function defineValidation(store: TestStoreFactory): void {
  test('invalid enqueue input is refused with an error naming the field and what is allowed', async (t) => {
    const { engine } = makeEngine(t, store);
    const cases: [unknown, string, RegExp][] = [
      [{ kind: 'k' }, 'queue', /queue must be 1 to 128 characters/],
      [{ ...JOB, queue: '' }, 'queue', /got an empty string/],
      [{ ...JOB, queue: 'has space' }, 'queue', /letters, digits/],
      [{ ...JOB, kind: 7 }, 'kind', /got 7/],
      [{ ...JOB, priority: 5000 }, 'priority', /priority must be an integer from -1000 to 1000 \(got 5000\)/],
      [{ ...JOB, priority: -1001 }, 'priority', /-1000 to 1000/],
      [{ ...JOB, priority: '3' }, 'priority', /got "3"/],
      [{ ...JOB, maxAttempts: 0 }, 'maxAttempts', /maxAttempts must be an integer from 1 to 1000 \(got 0\)/],
      [{ ...JOB, backoff: { strategy: 'random' } }, 'backoff.strategy', /one of exponential, linear, fixed \(got "random"\)/],
      [{ ...JOB, backoff: { jitter: 2 } }, 'backoff.jitter', /from 0 to 1/],
      [{ ...JOB, backoff: { base: 1 } }, 'backoff.base', /Unknown field "backoff.base"/],
      [{ ...JOB, timeoutMs: 5 }, 'timeoutMs', /from 100 to/],
      [{ ...JOB, delayMs: -1 }, 'delayMs', /from 0 to/],
      [{ ...JOB, delayMs: 1, runAt: 2 }, 'runAt', /either delayMs or runAt/],
      [{ ...JOB, tags: 'urgent' }, 'tags', /must be an array/],
      [{ ...JOB, tags: Array.from({ length: 33 }, () => 't') }, 'tags', /0 to 32 items/],
      [{ ...JOB, tags: [''] }, 'tags[0]', /1 to 64 characters/],
      [{ ...JOB, idempotencyKey: '' }, 'idempotencyKey', /1 to 256/],
      [{ ...JOB, context: { editor: 'vim' } }, 'context.editor', /Unknown field/],
      [{ ...JOB, colour: 'red' }, 'colour', /Unknown field "colour"\. Allowed: queue, kind/],
      ['not an object', 'params', /params must be an object/],
    ];
    for (const [params, field, message] of cases) {
      const error = await thrown(() => engine.enqueue(params as never));
      assert.equal(error.code, ErrorCode.InvalidParams, `code for ${JSON.stringify(params)}`);
      assert.equal(error.data['field'], field, `field for ${JSON.stringify(params)}`);
      assert.match(error.message, message);
    }
    assert.deepEqual(await engine.listQueues(), [], 'nothing reached the database');
  });

  test('runAt is held to the 10-year horizon delayMs has, measured from the engine clock', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const horizon = clock.ms + LIMITS.maxDurationMs;
    const far = await thrown(() => engine.enqueue({ ...JOB, runAt: horizon + 1 }));
    assert.equal(far.code, ErrorCode.InvalidParams);
    assert.equal(far.data['field'], 'runAt');
    assert.match(far.message, /runAt must be at most 10 years from now/);
    const inBatch = await thrown(() => engine.enqueueBatch({ jobs: [JOB, { ...JOB, runAt: horizon * 1000 }] }));
    assert.equal(inBatch.data['field'], 'jobs[1].runAt');
    const { job } = await engine.enqueue({ ...JOB, runAt: horizon });
    assert.equal(job.runAt, horizon, 'exactly 10 years ahead is allowed, as delayMs is');
    assert.equal((await thrown(() => engine.update({ id: job.id, runAt: horizon + 1 }))).data['field'], 'runAt');
    clock.advance(1000);
    assert.equal((await engine.update({ id: job.id, runAt: horizon + 1000 })).runAt, horizon + 1000, 'the horizon moves with the clock');
  });

  test('a payload over the size limit is refused as PayloadTooLarge with the limit', async (t) => {
    const { engine } = makeEngine(t, store);
    const error = await thrown(() => engine.enqueue({ ...JOB, payload: 'x'.repeat(LIMITS.maxPayloadBytes) }));
    assert.equal(error.code, ErrorCode.PayloadTooLarge);
    assert.deepEqual(error.data, { field: 'payload', limit: LIMITS.maxPayloadBytes });
    assert.equal((await thrown(() => engine.enqueue({ ...JOB, payload: { n: BigInt(1) } }))).code, ErrorCode.InvalidParams);
    const big = await thrown(() => engine.enqueueBatch({ jobs: [JOB, { ...JOB, payload: 'y'.repeat(LIMITS.maxPayloadBytes + 1) }] }));
    assert.equal(big.data['field'], 'jobs[1].payload');
  });

  test('the other methods check their params too', async (t) => {
    const { engine } = makeEngine(t, store);
    const cases: [() => unknown, string][] = [
      [() => engine.getJob('42'), 'id'],
      [() => engine.enqueueBatch({ jobs: [] }), 'jobs'],
      [() => engine.enqueueBatch({ jobs: Array.from({ length: LIMITS.maxBatch + 1 }, () => JOB) }), 'jobs'],
      [() => engine.claim({ workerId: '' }), 'workerId'],
      [() => engine.claim({ workerId: 'w', max: 0 }), 'max'],
      [() => engine.claim({ workerId: 'w', max: LIMITS.maxBatch + 1 }), 'max'],
      [() => engine.claim({ workerId: 'w', waitMs: 10 } as never), 'waitMs'],
      [() => engine.listJobs({ limit: 0 }), 'limit'],
      [() => engine.listJobs({ idSuffix: 'abc' }), 'idSuffix'],
      [() => engine.listJobs({ idSuffix: 'ABCDEF12' }), 'idSuffix'],
      [() => engine.listJobs({ idSuffix: 'x'.repeat(8) }), 'idSuffix'],
      [() => engine.listJobs({ idSuffix: 'a'.repeat(37) }), 'idSuffix'],
      [() => engine.cancelMany({ filter: { idSuffix: 'zz' } }), 'filter.idSuffix'],
      [() => engine.listJobs({ states: ['finished' as never] }), 'states[0]'],
      [() => engine.listJobs({ order: 'random' as never }), 'order'],
      [() => engine.listJobs({ cursor: 'garbage' }), 'cursor'],
      [() => engine.configureQueue({ name: 'q', concurrency: 0 }), 'concurrency'],
      [() => engine.configureQueue({ name: 'q', rateLimit: { perSecond: 0, burst: 1 } }), 'rateLimit.perSecond'],
      [() => engine.configureQueue({ name: 'q', defaultBackoff: { strategy: 'never' as never } }), 'defaultBackoff.strategy'],
      [() => engine.configureQueue({ name: 'q', defaultBackoff: null as never }), 'defaultBackoff'],
      [() => engine.purgeQueue({ name: 'q', states: ['running'] }), 'states[0]'],
      [() => engine.progress({ id: '01890000-0000-7000-8000-000000000000', workerId: 'w', percent: 101 }), 'percent'],
      [() => engine.fail({ id: '01890000-0000-7000-8000-000000000000', workerId: 'w', error: '' }), 'error'],
      [() => engine.cancelMany({}), 'ids'],
      [() => engine.retryMany({ filter: {} }), 'filter'],
      [() => engine.retryMany({ filter: { branch: '' } }), 'filter.branch'],
      [() => engine.createSchedule({ name: 's', cron: 'every minute', queue: 'q', job: { kind: 'k' } }, null), 'cron'],
      [() => engine.createSchedule({ name: 's', cron: '* * * * *', timezone: 'Mars/Olympus', queue: 'q', job: { kind: 'k' } }, null), 'timezone'],
      [() => engine.createSchedule({ name: 's', cron: '* * * * *', queue: 'q', job: { kind: 'k', priority: 2000 } }, null), 'job.priority'],
    ];
    for (const [call, field] of cases) {
      const error = await thrown(call);
      assert.equal(error.code, ErrorCode.InvalidParams, `code for ${field}: ${error.message}`);
      assert.equal(error.data['field'], field, error.message);
    }
    // A fraction is checked before it is rounded: the message shows what was sent.
    const fraction = await thrown(() => engine.progress({ id: '01890000-0000-7000-8000-000000000000', workerId: 'w', percent: 100.6 }));
    assert.equal(fraction.message, 'percent must be a number from 0 to 100 (got 100.6)');
  });

  test('jobs.checkpoint needs the checkpoint field; only an explicit null clears the saved one', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue(JOB);
    await engine.claim({ workerId: 'w' });
    await engine.checkpoint({ id: job.id, workerId: 'w', checkpoint: { row: 3 } });
    const missing = await thrown(() => engine.checkpoint({ id: job.id, workerId: 'w' } as never));
    assert.equal(missing.code, ErrorCode.InvalidParams);
    assert.equal(missing.data['field'], 'checkpoint');
    assert.match(missing.message, /checkpoint is required/);
    assert.deepEqual((await engine.getJob(job.id)).job.checkpoint, { row: 3 }, 'the saved checkpoint is kept');
    await engine.checkpoint({ id: job.id, workerId: 'w', checkpoint: null });
    assert.equal((await engine.getJob(job.id)).job.checkpoint, null);
  });

  test('a backoff whose cap is below its base, once completed from the defaults, is refused', async (t) => {
    const { engine } = makeEngine(t, store);
    const cases: [() => unknown, string][] = [
      [() => engine.enqueue({ ...JOB, backoff: { baseMs: 5000, capMs: 1000 } }), 'backoff.capMs'],
      // The queue's default base is 1000 ms.
      [() => engine.enqueue({ ...JOB, backoff: { capMs: 500 } }), 'backoff.capMs'],
      [() => engine.enqueueBatch({ jobs: [JOB, { ...JOB, backoff: { baseMs: 2000, capMs: 1 } }] }), 'jobs[1].backoff.capMs'],
      [() => engine.configureQueue({ name: 'q', defaultBackoff: { baseMs: 10, capMs: 5 } }), 'defaultBackoff.capMs'],
      [() => engine.configureQueue({ name: 'q', defaultBackoff: { capMs: 999 } }), 'defaultBackoff.capMs'],
      [() => engine.createSchedule({ name: 's', cron: '* * * * *', queue: 'q', job: { kind: 'k', backoff: { capMs: 10 } } }, null), 'job.backoff.capMs'],
    ];
    for (const [call, field] of cases) {
      const error = await thrown(call);
      assert.equal(error.code, ErrorCode.InvalidParams, `code for ${field}: ${error.message}`);
      assert.equal(error.data['field'], field, error.message);
      assert.equal(error.data['allowed'], '>= baseMs');
    }
    assert.deepEqual(await engine.listQueues(), [], 'nothing reached the database');
    await engine.configureQueue({ name: 'q', defaultBackoff: { baseMs: 100, capMs: 200 } });
    // With the queue's base now 100 ms, the same job backoff is fine; equal base and cap are too.
    assert.equal((await engine.enqueue({ ...JOB, backoff: { capMs: 500 } })).job.backoff.capMs, 500);
    assert.equal((await engine.enqueue({ ...JOB, backoff: { baseMs: 700, capMs: 700 } })).created, true);
  });

  test('an update with an out-of-range priority or an oversized payload is refused naming the field, and the job is unchanged', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ ...JOB, priority: 2, payload: { a: 1 } });
    for (const priority of [LIMITS.maxPriority + 1, LIMITS.minPriority - 1]) {
      const error = await thrown(() => engine.update({ id: job.id, priority }));
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.equal(error.data['field'], 'priority');
      assert.match(error.message, new RegExp(`priority must be an integer from ${LIMITS.minPriority} to ${LIMITS.maxPriority} \\(got ${priority}\\)`));
    }
    const big = await thrown(() => engine.update({ id: job.id, priority: 5, payload: 'x'.repeat(LIMITS.maxPayloadBytes) }));
    assert.equal(big.code, ErrorCode.PayloadTooLarge);
    assert.deepEqual(big.data, { field: 'payload', limit: LIMITS.maxPayloadBytes });
    assert.deepEqual((await engine.getJob(job.id)).job, job, 'nothing was written');
  });
}
