import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import type { ClaimedJob } from '../../../shared/protocol/types';
import type { Engine } from '../../../daemon/engine';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

function byGroup(jobs: readonly ClaimedJob[]): Map<string | null, number> {
  const counts = new Map<string | null, number>();
  for (const job of jobs) counts.set(job.group, (counts.get(job.group) ?? 0) + 1);
  return counts;
}

/** Enqueues `count` jobs of `group` into `queue`, a batch of at most 1,000 at a time. */
async function enqueueGroup(engine: Engine, queue: string, group: string | undefined, count: number, extra: { weight?: number; priority?: number } = {}): Promise<void> {
  for (let done = 0; done < count; done += 1000) {
    const n = Math.min(1000, count - done);
    await engine.enqueueBatch({ jobs: Array.from({ length: n }, () => ({ queue, kind: 'work', ...(group === undefined ? {} : { group }), ...extra })) });
  }
}

/** The group tests (groupConcurrency, groupRate, fairness and groupWeights), run against the store `store` makes. */
export function defineGroups(store: TestStoreFactory): void {
  test('a job carries its group key; a bad key is refused naming the field and the characters allowed; jobs.list filters by group', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', group: 'customer:42' });
    assert.equal(job.group, 'customer:42');
    assert.equal((await engine.getJob(job.id)).job.group, 'customer:42');
    const plain = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    assert.equal(plain.group, null, 'a job without a group shows none, even in a grouped queue');
    for (const group of ['', 'has space', 'x'.repeat(129), 42]) {
      const refused = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', group } as never));
      assert.equal(refused.code, ErrorCode.InvalidParams);
      assert.equal(refused.data['field'], 'group');
      assert.match(refused.message, /group must be 1 to 128 characters of letters, digits, ":", "\.", "_", "-", "@" or "\//);
    }
    const inBatch = await thrown(() => engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k', group: 'a b' }] }));
    assert.equal(inBatch.data['field'], 'jobs[0].group');
    assert.deepEqual((await engine.listJobs({ group: 'customer:42' })).jobs.map((j) => j.id), [job.id]);
    assert.equal((await engine.getQueue('q')).grouped, true);
  });

  test('a queue stores groupConcurrency, groupRate and groupWeights, refuses bad ones naming the field, and removes them with null', async (t) => {
    const { engine } = makeEngine(t, store);
    const q = await engine.configureQueue({ name: 'q', groupConcurrency: 2, groupRate: { perSecond: 5, burst: 5 }, groupWeights: { 'customer:1': 3 } });
    assert.equal(q.groupConcurrency, 2);
    assert.deepEqual(q.groupRate, { perSecond: 5, burst: 5 });
    assert.deepEqual(q.groupWeights, { 'customer:1': 3 });
    assert.equal(q.grouped, true, 'a group setting makes the queue grouped');
    const kept = await engine.configureQueue({ name: 'q', concurrency: 10 });
    assert.equal(kept.groupConcurrency, 2, 'a configure that does not name them keeps them');
    for (const [params, field] of [
      [{ groupConcurrency: 0 }, 'groupConcurrency'],
      [{ groupRate: { perSecond: 0 } }, 'groupRate.perSecond'],
      [{ groupWeights: { 'customer:1': 0 } }, 'groupWeights.customer:1'],
      [{ groupWeights: { 'bad key': 2 } }, 'groupWeights key "bad key"'],
      [{ groupWeights: [3] }, 'groupWeights'],
    ] as const) {
      const refused = await thrown(() => engine.configureQueue({ name: 'q', ...params } as never));
      assert.equal(refused.code, ErrorCode.InvalidParams, JSON.stringify(params));
      assert.equal(refused.data['field'], field);
    }
    const removed = await engine.configureQueue({ name: 'q', groupConcurrency: null, groupRate: null, groupWeights: null });
    assert.equal(removed.groupConcurrency, null);
    assert.equal(removed.groupRate, null);
    assert.equal(removed.groupWeights, null);
  });

  test('3 groups × 20 jobs with groupConcurrency 1 never run two of a group at once, and all 60 run', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', groupConcurrency: 1 });
    for (const g of ['a', 'b', 'c']) await enqueueGroup(engine, 'q', g, 20);
    const running = new Map<string, string>();
    let done = 0;
    for (let round = 0; round < 200 && done < 60; round++) {
      const claimed = await engine.claim({ workerId: 'w', max: 10 });
      for (const job of claimed) {
        assert.ok(job.group !== null);
        assert.equal(running.has(job.group), false, `group ${job.group} got a second running job`);
        running.set(job.group, job.id);
      }
      assert.ok(running.size <= 3);
      // End one running job (alternating outcomes), so its group gets its next turn.
      const [group, id] = [...running.entries()][round % Math.max(1, running.size)] ?? [];
      if (group === undefined || id === undefined) continue;
      if (round % 3 === 0) await engine.fail({ id, workerId: 'w', error: 'boom', permanent: true });
      else await engine.complete({ id, workerId: 'w' });
      running.delete(group);
      done += 1;
    }
    assert.equal(done, 60);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('a group with 10,000 queued does not delay a job enqueued after it in another group: it is in the first claim batch', async (t) => {
    const { engine } = makeEngine(t, store);
    await enqueueGroup(engine, 'q', 'big', 10_000);
    const late = (await engine.enqueue({ queue: 'q', kind: 'work', group: 'small' })).job;
    const first = await engine.claim({ workerId: 'w', max: 10 });
    assert.equal(first.length, 10);
    assert.ok(first.some((j) => j.id === late.id), 'the other group\'s job is in the first batch');
    // And with one job per claim, it comes within the first two.
    const { engine: other } = makeEngine(t, store);
    await enqueueGroup(other, 'q', 'big', 1000);
    const late2 = (await other.enqueue({ queue: 'q', kind: 'work', group: 'small' })).job;
    const ids = [(await other.claim({ workerId: 'w' }))[0]?.id, (await other.claim({ workerId: 'w' }))[0]?.id];
    assert.ok(ids.includes(late2.id));
  });

  test('claims take groups in turn (round-robin), jobs without a group are a group of their own, and priority orders jobs within a group', async (t) => {
    const { engine } = makeEngine(t, store);
    await enqueueGroup(engine, 'q', 'a', 5);
    await enqueueGroup(engine, 'q', 'b', 5);
    await enqueueGroup(engine, 'q', undefined, 5);
    const urgent = (await engine.enqueue({ queue: 'q', kind: 'work', group: 'a', priority: 10 })).job;
    const first = await engine.claim({ workerId: 'w', max: 3 });
    assert.deepEqual([...byGroup(first).entries()].sort(), [['a', 1], ['b', 1], [null, 1]].sort());
    assert.equal(first.find((j) => j.group === 'a')?.id, urgent.id, 'the highest priority of group a first');
    const next = await engine.claim({ workerId: 'w', max: 6 });
    assert.deepEqual([...byGroup(next).values()], [2, 2, 2]);
  });

  test('groupRate 5/s gives 5 per second per group, to 3 groups at once, each simulated second', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', groupRate: { perSecond: 5, burst: 5 } });
    await enqueueGroup(engine, 'q', 'a', 40);
    await enqueueGroup(engine, 'q', 'b', 40);
    await enqueueGroup(engine, 'q', 'c', 40);
    const first = await engine.claim({ workerId: 'w', max: 100 });
    assert.deepEqual(Object.fromEntries(byGroup(first)), { a: 5, b: 5, c: 5 }, 'a full bucket per group');
    assert.equal((await engine.claim({ workerId: 'w', max: 100 })).length, 0);
    assert.equal(await engine.nextWakeAt(), clock.ms + 200, 'the next token is due in 1/5 s');
    let started = 0;
    const perGroup = new Map<string | null, number>();
    for (let second = 1; second <= 4; second++) {
      const thisSecond = new Map<string | null, number>();
      // Claims every 100 ms of the simulated second, each as large as it may be.
      for (let step = 0; step < 10; step++) {
        clock.advance(100);
        const claimed = await engine.claim({ workerId: 'w', max: 100 });
        started += claimed.length;
        for (const [g, n] of byGroup(claimed)) thisSecond.set(g, (thisSecond.get(g) ?? 0) + n);
      }
      assert.deepEqual(Object.fromEntries(thisSecond), { a: 5, b: 5, c: 5 }, `second ${second}: 5 per group`);
      for (const [g, n] of thisSecond) perGroup.set(g, (perGroup.get(g) ?? 0) + n);
    }
    assert.equal(started, 60, '5 per second per group over 4 s');
    assert.deepEqual(Object.fromEntries(perGroup), { a: 20, b: 20, c: 20 });
  });

  test('groupConcurrency counts weights: a running job of weight 3 leaves a group of concurrency 4 room for weight 1 only', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', groupConcurrency: 4 });
    const heavy = (await engine.enqueue({ queue: 'q', kind: 'work', group: 'a', weight: 3, priority: 5 })).job;
    const medium = (await engine.enqueue({ queue: 'q', kind: 'work', group: 'a', weight: 2, priority: 4 })).job;
    const light = (await engine.enqueue({ queue: 'q', kind: 'work', group: 'b', weight: 2 })).job;
    const first = await engine.claim({ workerId: 'w', max: 10 });
    assert.deepEqual(first.map((j) => j.id).sort(), [heavy.id, light.id].sort(), 'the weight-2 job of a waits: 3 + 2 > 4');
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 10 }), []);
    await engine.complete({ id: heavy.id, workerId: 'w' });
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 10 })).map((j) => j.id), [medium.id]);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('groupWeights: a group of weight 3 gets three turns for each turn of a group of weight 1', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', groupWeights: { heavy: 3 } });
    await enqueueGroup(engine, 'q', 'heavy', 50);
    await enqueueGroup(engine, 'q', 'light', 50);
    const batch = await engine.claim({ workerId: 'w', max: 8 });
    assert.deepEqual(Object.fromEntries(byGroup(batch)), { heavy: 6, light: 2 });
    const counts = new Map<string | null, number>();
    for (let i = 0; i < 16; i++) for (const [g, n] of byGroup(await engine.claim({ workerId: 'w' }))) counts.set(g, (counts.get(g) ?? 0) + n);
    assert.deepEqual(Object.fromEntries(counts), { heavy: 12, light: 4 }, 'one job per claim keeps the same proportion');
  });

  test('two engines on one store hold groupConcurrency 1 between them', async (t) => {
    const { engine, openShared } = makeEngine(t, store);
    const second = openShared();
    await engine.configureQueue({ name: 'q', groupConcurrency: 1 });
    for (const g of ['a', 'b', 'c']) await enqueueGroup(engine, 'q', g, 5);
    const claims = await Promise.all([engine.claim({ workerId: 'w1', max: 5 }), second.claim({ workerId: 'w2', max: 5 }), engine.claim({ workerId: 'w3', max: 5 })]);
    const all = claims.flat();
    assert.equal(new Set(all.map((j) => j.group)).size, all.length, 'at most one running job per group');
    assert.ok(all.length <= 3);
    const queue = await engine.getQueue('q');
    assert.equal(queue.counts.running, all.length);
  });
}
