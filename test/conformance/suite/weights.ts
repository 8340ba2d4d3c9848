import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, LIMITS } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** The job weight and worker capacity tests, run against the store `store` makes. */
export function defineWeights(store: TestStoreFactory): void {
  test("a schedule's job template carries a weight to the jobs it makes, and a bad one is refused naming the field", async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.createSchedule({ name: 'heavy-nightly', cron: '0 3 * * *', queue: 'q', job: { kind: 'encode', weight: 4 } }, null);
    assert.equal((await engine.triggerSchedule('heavy-nightly')).job.weight, 4);
    const refused = await thrown(() => engine.createSchedule({ name: 'too-heavy', cron: '0 3 * * *', queue: 'q', job: { kind: 'encode', weight: 0 } }, null));
    assert.equal(refused.code, ErrorCode.InvalidParams);
    assert.equal(refused.data?.field, 'job.weight');
  });

  test('a job weighs 1 unless it says otherwise, and a weight outside 1..1000 is refused naming the field', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    assert.equal(job.weight, 1);
    const heavy = (await engine.enqueue({ queue: 'q', kind: 'k', weight: 4 })).job;
    assert.equal(heavy.weight, 4);
    assert.equal((await engine.getJob(heavy.id)).job.weight, 4, 'stored as given');
    for (const [weight, pattern] of [[0, /weight must be an integer from 1 to 1000 \(got 0\)/], [LIMITS.maxWeight + 1, /from 1 to 1000/], [1.5, /integer/], ['2', /got "2"/]] as const) {
      const error = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', weight } as never));
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.equal(error.data['field'], 'weight');
      assert.match(error.message, pattern);
    }
    const inBatch = await thrown(() => engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k' }, { queue: 'q', kind: 'k', weight: 0 }] }));
    assert.equal(inBatch.data['field'], 'jobs[1].weight');
  });

  test("a job heavier than its queue's concurrency is refused at enqueue (alone, in a batch, by an update), naming the weight and the concurrency", async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 2 });
    const refused = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', weight: 3 }));
    assert.equal(refused.code, ErrorCode.InvalidParams);
    assert.equal(refused.data['field'], 'weight');
    assert.equal(refused.data['allowed'], '1..2');
    assert.match(refused.message, /^weight 3 is more than the concurrency of queue "q" \(2\): the job could never start\. .*--concurrency 3/);
    assert.equal((await engine.enqueue({ queue: 'q', kind: 'k', weight: 2 })).job.weight, 2, 'as heavy as the concurrency is fine');
    const inBatch = await thrown(() => engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k' }, { queue: 'q', kind: 'k', weight: 3 }] }));
    assert.equal(inBatch.code, ErrorCode.InvalidParams);
    assert.equal((await engine.listJobs({ queue: 'q' })).jobs.length, 1, 'nothing of the batch was stored');
    const light = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    const heavier = await thrown(() => engine.update({ id: light.id, weight: 3 }));
    assert.equal(heavier.code, ErrorCode.InvalidParams);
    assert.equal(heavier.data['field'], 'weight');
    assert.equal((await engine.enqueue({ queue: 'unlimited', kind: 'k', weight: 1000 })).job.weight, 1000, 'a queue without a concurrency takes any weight');
  });

  test("a queue's concurrency cannot be lowered below a waiting job's weight; the refusal says how many and how heavy", async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.enqueue({ queue: 'q', kind: 'k', weight: 4 });
    await engine.enqueue({ queue: 'q', kind: 'k', weight: 3 });
    const refused = await thrown(() => engine.configureQueue({ name: 'q', concurrency: 2 }));
    assert.equal(refused.code, ErrorCode.InvalidState);
    assert.equal(refused.data['field'], 'concurrency');
    assert.match(refused.message, /^concurrency 2 for queue "q" would leave 2 waiting jobs that weigh more \(up to 4\) unable ever to start\./);
    assert.equal((await engine.getQueue('q')).concurrency, null, 'unchanged');
    assert.equal((await engine.configureQueue({ name: 'q', concurrency: 4 })).concurrency, 4, 'as low as the heaviest is fine');
    const one = await thrown(() => engine.configureQueue({ name: 'q', concurrency: 3 }));
    assert.match(one.message, /would leave 1 waiting job that weighs 4 unable ever to start/);
  });

  test("a queue's concurrency counts weights: one job of weight 4 takes the room of four of weight 1", async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 4 });
    const heavy = (await engine.enqueue({ queue: 'q', kind: 'k', weight: 4, priority: 1 })).job;
    for (let i = 0; i < 4; i++) await engine.enqueue({ queue: 'q', kind: 'k' });
    const first = await engine.claim({ workerId: 'w', max: 10 });
    assert.deepEqual(first.map((j) => j.id), [heavy.id], 'the heavy job fills the queue');
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 1 }), [], 'no room left for even a light job');
    await engine.complete({ id: heavy.id, workerId: 'w' });
    assert.equal((await engine.claim({ workerId: 'w', max: 10 })).length, 4, 'its room goes to four light jobs');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('a job too heavy for the room left waits at the head of its queue instead of being overtaken', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 4 });
    const light = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 2 })).job;
    const heavy = (await engine.enqueue({ queue: 'q', kind: 'k', weight: 4, priority: 1 })).job;
    const after = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 10 })).map((j) => j.id), [light.id], 'the claim stops at the job that does not fit');
    assert.deepEqual(await engine.claim({ workerId: 'w' }), [], 'a single claim stops there too');
    await engine.complete({ id: light.id, workerId: 'w' });
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 10 })).map((j) => j.id), [heavy.id]);
    await engine.fail({ id: heavy.id, workerId: 'w', error: 'boom', permanent: true });
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 10 })).map((j) => j.id), [after.id], 'a failed heavy job frees its room');
  });

  test('the weight a queue holds is given back however its jobs stop running, and seen by a second engine', async (t) => {
    const { engine, clock, openShared } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 5 });
    const a = (await engine.enqueue({ queue: 'q', kind: 'k', weight: 3, timeoutMs: 1000 })).job;
    await engine.claim({ workerId: 'w' });
    const other = openShared();
    await other.enqueue({ queue: 'q', kind: 'k', weight: 3 });
    assert.deepEqual(await other.claim({ workerId: 'v' }), [], 'the other daemon sees the weight held: 3 + 3 > 5');
    clock.advance(1001);
    assert.equal(await engine.reapExpiredLeases(), 1);
    assert.equal((await engine.getJob(a.id)).job.state, 'retrying');
    const [b] = await other.claim({ workerId: 'v' });
    assert.equal(b?.weight, 3, 'the reaped job gave its weight back');
    assert.equal(await engine.recoverInterrupted(['v']), 1);
    assert.equal((await engine.claim({ workerId: 'w', max: 2 })).length, 1, 'recovery gave it back too: one of weight 3 fits, not both');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test("a worker's capacity bounds the weight it holds, across queues", async (t) => {
    const { engine } = makeEngine(t, store);
    const worker = await engine.registerWorker({ workerId: 'enc', capacity: 4 }, 'remote');
    assert.equal(worker.capacity, 4);
    assert.equal((await engine.registerWorker({ workerId: 'plain' }, 'remote')).capacity, null);
    const a = (await engine.enqueue({ queue: 'a', kind: 'k', weight: 3, priority: 5 })).job;
    const b = (await engine.enqueue({ queue: 'b', kind: 'k', weight: 1, priority: 4 })).job;
    await engine.enqueue({ queue: 'b', kind: 'k', weight: 1, priority: 3 });
    const claimed = await engine.claim({ workerId: 'enc', max: 10 });
    assert.deepEqual(claimed.map((j) => j.id), [a.id, b.id], 'weights 3 + 1 fill a capacity of 4');
    assert.deepEqual(await engine.claim({ workerId: 'enc', max: 10 }), [], 'full');
    assert.equal((await engine.claim({ workerId: 'plain', max: 10 })).length, 1, 'another worker is not bound by it');
    await engine.complete({ id: a.id, workerId: 'enc' });
    await engine.enqueue({ queue: 'a', kind: 'k', weight: 2 });
    await engine.enqueue({ queue: 'a', kind: 'k', weight: 1 });
    const next = await engine.claim({ workerId: 'enc', queues: ['a'], max: 10 });
    assert.deepEqual(next.map((j) => j.weight), [2, 1], 'one queue: the claim fits its capacity left (3)');
    const error = await thrown(() => engine.registerWorker({ workerId: 'x', capacity: 0 }, 'remote'));
    assert.equal(error.data['field'], 'capacity');
  });
}
