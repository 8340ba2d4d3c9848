/**
 * Dependencies between jobs, on every store: a job waits `blocked` for the jobs it depends on,
 * is queued in the transaction that ends the last of them, or ends cancelled when one ends so
 * that its condition cannot hold (and passes that on); chains, diamonds, fan-out and fan-in at
 * scale; cancel, retry, delete and retention around them; results handed down on claim; two
 * parents ending at once on two daemons.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import type { DependsOn, Job, JobState } from '../../../shared/protocol/types';
import type { Engine } from '../../../daemon/engine';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const HOUR = 3_600_000;

/** Claims exactly the job `id` (it must be the only one due) and ends it as `outcome` says. */
async function endJob(engine: Engine, id: string, outcome: 'succeeded' | 'failed' | 'cancelled', result?: unknown): Promise<Job> {
  if (outcome === 'cancelled') return engine.cancel(id);
  const claimed = await engine.claim({ workerId: 'w', max: 1 });
  assert.deepEqual(
    claimed.map((j) => j.id),
    [id],
    `the job due is ${id}`,
  );
  if (outcome === 'succeeded') return engine.complete({ id, workerId: 'w', ...(result === undefined ? {} : { result }) });
  return engine.fail({ id, workerId: 'w', error: 'boom', permanent: true });
}

async function stateOf(engine: Engine, id: string): Promise<JobState> {
  return (await engine.getJob(id)).job.state;
}

async function enqueue(engine: Engine, dependsOn: DependsOn[] = [], queue = 'q'): Promise<Job> {
  return (await engine.enqueue({ queue, kind: 'k', dependsOn })).job;
}

/** The ids of `n` new jobs enqueued in batches. */
async function enqueueMany(engine: Engine, n: number, dependsOn: DependsOn[] = [], queue = 'q'): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 1000) {
    const jobs = Array.from({ length: Math.min(1000, n - start) }, () => ({ queue, kind: 'k', dependsOn }));
    for (const r of (await engine.enqueueBatch({ jobs })).results) ids.push(r.job.id);
  }
  return ids;
}

export function defineDependencies(store: TestStoreFactory): void {
  test('dependencies: a job waits blocked, is never claimed, and is queued when the last job it depends on succeeds', async (t) => {
    const { engine } = makeEngine(t, store);
    const a = await enqueue(engine);
    const b = await enqueue(engine);
    const child = await enqueue(engine, [a.id, { id: b.id, on: 'succeeded' }]);
    assert.deepEqual([child.state, child.dependsOn, child.waitingFor], ['blocked', 2, 2]);
    assert.equal((await engine.getQueue('q')).counts.blocked, 1);
    await endJob(engine, a.id, 'succeeded', { built: 'a' });
    assert.deepEqual([(await engine.getJob(child.id)).job.state, (await engine.getJob(child.id)).job.waitingFor], ['blocked', 1]);
    await endJob(engine, b.id, 'succeeded', 'b-out');
    const [claimed] = await engine.claim({ workerId: 'w' });
    assert.equal(claimed?.id, child.id);
    assert.deepEqual(
      claimed?.dependencies?.map((d) => [d.id, d.on, d.state, d.result]),
      [
        [a.id, 'succeeded', 'completed', { built: 'a' }],
        [b.id, 'succeeded', 'completed', 'b-out'],
      ],
      'the claim hands down the dependencies with their results',
    );
    const got = await engine.getJob(child.id);
    assert.deepEqual(got.dependencies.map((d) => d.id), [a.id, b.id]);
    assert.deepEqual((await engine.getJob(a.id)).dependents.map((d) => [d.id, d.state]), [[child.id, 'running']]);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: each condition with each outcome of the job depended on', async (t) => {
    const { engine } = makeEngine(t, store);
    const expected: Record<'succeeded' | 'failed' | 'finished', Record<'succeeded' | 'failed' | 'cancelled', JobState>> = {
      succeeded: { succeeded: 'queued', failed: 'cancelled', cancelled: 'cancelled' },
      failed: { succeeded: 'cancelled', failed: 'queued', cancelled: 'queued' },
      finished: { succeeded: 'queued', failed: 'queued', cancelled: 'queued' },
    };
    for (const on of ['succeeded', 'failed', 'finished'] as const) {
      for (const outcome of ['succeeded', 'failed', 'cancelled'] as const) {
        const parent = await enqueue(engine, [], 'p');
        const child = await enqueue(engine, [{ id: parent.id, on }], 'c');
        await endJob(engine, parent.id, outcome);
        const after = (await engine.getJob(child.id)).job;
        assert.equal(after.state, expected[on][outcome], `on: ${on}, the parent ${outcome}`);
        if (after.state === 'cancelled') assert.match(after.lastError ?? '', new RegExp(`^dependency ${parent.id} (succeeded|failed|was cancelled)`));
        else await engine.cancel(child.id);
        // A job enqueued after its dependency ended is settled at once, by the same rule.
        const late = await enqueue(engine, [{ id: parent.id, on }], 'c');
        assert.equal(late.state, expected[on][outcome], `enqueued late, on: ${on}, the parent ${outcome}`);
        if (late.state === 'queued') await engine.cancel(late.id);
      }
    }
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: a failure cancels what needed success, level by level, and a cleanup on failed still runs', async (t) => {
    const { engine } = makeEngine(t, store);
    const build = await enqueue(engine);
    const test1 = await enqueue(engine, [build.id]);
    const pack = await enqueue(engine, [test1.id]);
    const cleanup = await enqueue(engine, [{ id: pack.id, on: 'failed' }]);
    const always = await enqueue(engine, [{ id: pack.id, on: 'finished' }]);
    const onSuccess = await enqueue(engine, [{ id: pack.id, on: 'succeeded' }]);
    await endJob(engine, build.id, 'failed');
    assert.equal(await stateOf(engine, test1.id), 'cancelled');
    assert.equal(await stateOf(engine, pack.id), 'cancelled');
    assert.equal((await engine.getJob(test1.id)).job.lastError?.startsWith(`dependency ${build.id} failed`), true);
    assert.equal((await engine.getJob(pack.id)).job.lastError?.startsWith(`dependency ${test1.id} was cancelled`), true);
    assert.equal(await stateOf(engine, cleanup.id), 'queued');
    assert.equal(await stateOf(engine, always.id), 'queued');
    assert.equal(await stateOf(engine, onSuccess.id), 'cancelled');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: a diamond runs its join once, after both sides', async (t) => {
    const { engine } = makeEngine(t, store);
    const top = await enqueue(engine);
    const left = await enqueue(engine, [top.id]);
    const right = await enqueue(engine, [top.id]);
    const join = await enqueue(engine, [left.id, right.id]);
    await endJob(engine, top.id, 'succeeded');
    const both = await engine.claim({ workerId: 'w', max: 10 });
    assert.deepEqual(both.map((j) => j.id).sort(), [left.id, right.id].sort());
    await engine.complete({ id: left.id, workerId: 'w' });
    assert.equal(await stateOf(engine, join.id), 'blocked');
    await engine.complete({ id: right.id, workerId: 'w' });
    const [joined] = await engine.claim({ workerId: 'w', max: 10 });
    assert.equal(joined?.id, join.id);
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 10 }), []);
  });

  test('dependencies: a chain of 1,000 runs in order, one job at a time', async (t) => {
    const { engine } = makeEngine(t, store);
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 1) ids.push((await enqueue(engine, i === 0 ? [] : [ids[i - 1] ?? ''])).id);
    assert.equal((await engine.getQueue('q')).counts.blocked, 999);
    for (const id of ids) {
      const claimed = await engine.claim({ workerId: 'w', max: 10 });
      assert.deepEqual(
        claimed.map((j) => j.id),
        [id],
      );
      await engine.complete({ id, workerId: 'w', result: id });
    }
    const counts = (await engine.getQueue('q')).counts;
    assert.deepEqual([counts.blocked, counts.completed], [0, 1000]);
  });

  test('dependencies: a fan-out of 1 to 10,000 is made ready by the one complete', async (t) => {
    const { engine } = makeEngine(t, store);
    const root = await enqueue(engine);
    await enqueueMany(engine, 10_000, [root.id]);
    assert.equal((await engine.getJob(root.id)).job.dependents, 10_000);
    await endJob(engine, root.id, 'succeeded');
    const counts = (await engine.getQueue('q')).counts;
    assert.deepEqual([counts.blocked, counts.queued], [0, 10_000]);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: a fan-in of 10,000 to 1 waits for every one', async (t) => {
    const { engine } = makeEngine(t, store);
    const parents = await enqueueMany(engine, 10_000);
    const sink = await enqueue(engine, parents, 'sink');
    assert.deepEqual([sink.state, sink.waitingFor], ['blocked', 10_000]);
    for (let done = 0; done < parents.length; ) {
      const claimed = await engine.claim({ workerId: 'w', queues: ['q'], max: 1000 });
      const outcomes = await engine.completeMany(claimed.map((j) => ({ id: j.id, workerId: 'w' })));
      assert.equal(outcomes.every((r) => r.ok), true);
      done += claimed.length;
      if (done < parents.length) assert.equal(await stateOf(engine, sink.id), 'blocked');
    }
    const [claimed] = await engine.claim({ workerId: 'w', queues: ['sink'] });
    assert.equal(claimed?.id, sink.id);
    assert.equal(claimed?.dependencies?.length, 10_000);
  });

  test('dependencies: cancelling a blocked job cancels at once and passes it on; retrying it checks its dependencies again', async (t) => {
    const { engine } = makeEngine(t, store);
    const parent = await enqueue(engine, [], 'p');
    const child = await enqueue(engine, [parent.id]);
    const grandchild = await enqueue(engine, [child.id]);
    const cancelled = await engine.cancel(child.id);
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(await stateOf(engine, grandchild.id), 'cancelled');
    // Its dependency has not ended: the retried job waits again.
    const retried = await engine.retry(child.id);
    assert.deepEqual([retried.state, retried.waitingFor], ['blocked', 1]);
    await endJob(engine, parent.id, 'succeeded');
    assert.equal(await stateOf(engine, child.id), 'queued');
    await engine.cancel(child.id);
    // A dependency that failed refuses the retry of what needed it to succeed, until it is retried itself.
    const p2 = await enqueue(engine, [], 'p');
    const c2 = await enqueue(engine, [p2.id], 'c');
    await endJob(engine, p2.id, 'failed');
    assert.equal(await stateOf(engine, c2.id), 'cancelled');
    const refused = await thrown(() => engine.retry(c2.id));
    assert.equal(refused.code, ErrorCode.InvalidState);
    assert.match(refused.message, new RegExp(`Retry job ${p2.id} first`));
    await engine.retry(p2.id);
    assert.deepEqual([(await engine.retry(c2.id)).state], ['blocked']);
    await endJob(engine, p2.id, 'succeeded');
    assert.equal(await stateOf(engine, c2.id), 'queued', 'the reopened dependency is counted once more');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: a job unfinished jobs depend on is not deleted, unless with cascade, which deletes them too', async (t) => {
    const { engine } = makeEngine(t, store);
    const parent = await enqueue(engine);
    const child = await enqueue(engine, [parent.id]);
    const grandchild = await enqueue(engine, [child.id]);
    const refused = await thrown(() => engine.deleteJob(parent.id));
    assert.equal(refused.code, ErrorCode.InvalidState);
    assert.match(refused.message, /jobs that have not ended depend on it/);
    assert.equal(await engine.deleteJob(parent.id, true), 3);
    for (const id of [parent.id, child.id, grandchild.id]) assert.equal((await thrown(() => engine.getJob(id))).code, ErrorCode.JobNotFound);
    // Once its dependents have ended, it may go on its own.
    const p2 = await enqueue(engine);
    const c2 = await enqueue(engine, [p2.id]);
    await engine.cancel(c2.id);
    assert.equal(await engine.deleteJob(p2.id), 1);
    assert.equal((await engine.getJob(c2.id)).job.state, 'cancelled');
    // A dependency must exist.
    const missing = await thrown(() => enqueue(engine, [p2.id]));
    assert.equal(missing.code, ErrorCode.InvalidParams);
    assert.equal(missing.data['field'], 'dependsOn[0]');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: retention never deletes a job that an unfinished job depends on', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', retentionMs: HOUR });
    const parent = await enqueue(engine);
    const child = await enqueue(engine, [{ id: parent.id, on: 'finished' }, (await enqueue(engine, [], 'other')).id], 'later');
    await endJob(engine, parent.id, 'succeeded', { artifact: 'x' });
    clock.advance(2 * HOUR);
    assert.equal(await engine.cleanup(), 0, 'the blocked job still needs its result');
    assert.equal((await engine.getJob(child.id)).job.state, 'blocked');
    await engine.cancel(child.id);
    assert.equal(await engine.cleanup(), 1, 'once it ended, retention takes the old job');
  });

  test('dependencies: retention keeps every job of an unfinished chain, a running job\'s dependencies too, and takes them once it ends', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', retentionMs: HOUR });
    const first = await enqueue(engine);
    const second = await enqueue(engine, [first.id]);
    const third = await enqueue(engine, [second.id], 'last');
    await endJob(engine, first.id, 'succeeded', 'one');
    await endJob(engine, second.id, 'succeeded', 'two');
    const [running] = await engine.claim({ workerId: 'w', queues: ['last'] });
    assert.equal(running?.id, third.id);
    clock.advance(2 * HOUR);
    assert.equal(await engine.cleanup(), 1, 'only the job nothing unfinished depends on goes');
    await thrown(() => engine.getJob(first.id));
    assert.equal((await engine.getJob(second.id)).job.result, 'two', 'the running job\'s dependency is kept with its result');
    await engine.complete({ id: third.id, workerId: 'w' });
    assert.equal(await engine.cleanup(), 1, 'once its dependent ended, retention takes it');
    assert.equal((await thrown(() => engine.getJob(second.id))).code, ErrorCode.JobNotFound);
  });

  test('dependencies: dependsOn is validated, naming the field', async (t) => {
    const { engine } = makeEngine(t, store);
    const a = await enqueue(engine);
    const cases: [unknown, string, RegExp][] = [
      ['nope', 'dependsOn', /must be an array/],
      [['x'], 'dependsOn[0]', /must be a job id/],
      [[{ id: a.id, on: 'sometimes' }], 'dependsOn[0].on', /succeeded, failed, finished/],
      [[{ id: a.id, when: 'x' }], 'dependsOn[0].when', /when/],
      [[a.id, { id: a.id, on: 'failed' }], 'dependsOn[1]', /names job .* again/],
    ];
    for (const [dependsOn, field, message] of cases) {
      const error = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', dependsOn } as never));
      assert.equal(error.code, ErrorCode.InvalidParams, field);
      assert.equal(error.data['field'], field);
      assert.match(error.message, message);
    }
  });

  test('dependencies: a batch enqueues a whole graph in one transaction, later jobs naming earlier ones by index', async (t) => {
    const { engine } = makeEngine(t, store);
    const before = await enqueue(engine, [], 'p');
    const { results } = await engine.enqueueBatch({
      jobs: [
        { queue: 'q', kind: 'build' },
        { queue: 'q', kind: 'test', dependsOn: [{ index: 0 }] },
        { queue: 'q', kind: 'test', dependsOn: [{ index: 0, on: 'succeeded' }, before.id] },
        { queue: 'q', kind: 'package', dependsOn: [{ index: 1 }, { index: 2 }] },
        { queue: 'q', kind: 'cleanup', dependsOn: [{ index: 3, on: 'finished' }] },
        { queue: 'q', kind: 'notify', dependsOn: [{ index: 0, on: 'failed' }] },
      ],
    });
    const [build, test1, test2, pack, cleanup, notify] = results.map((r) => r.job);
    assert.ok(build && test1 && test2 && pack && cleanup && notify);
    assert.deepEqual(
      results.map((r) => [r.job.state, r.job.dependsOn, r.job.waitingFor, r.job.dependents]),
      [
        ['queued', 0, 0, 3],
        ['blocked', 1, 1, 1],
        ['blocked', 2, 2, 1],
        ['blocked', 2, 2, 1],
        ['blocked', 1, 1, 0],
        ['blocked', 1, 1, 0],
      ],
      'the answer shows each job as stored, its dependents from the batch counted',
    );
    assert.equal((await engine.getJob(build.id)).job.dependents, 3);
    assert.deepEqual((await engine.getJob(pack.id)).dependencies.map((d) => [d.id, d.on]).sort(), [
      [test1.id, 'succeeded'],
      [test2.id, 'succeeded'],
    ].sort());
    assert.deepEqual((await engine.getJob(cleanup.id)).dependencies.map((d) => [d.id, d.on]), [[pack.id, 'finished']]);
    assert.deepEqual((await engine.claim({ workerId: 'w', queues: ['q'], max: 10 })).map((j) => j.id), [build.id]);
    await engine.complete({ id: build.id, workerId: 'w' });
    assert.equal(await stateOf(engine, notify.id), 'cancelled', 'the job on failed is cancelled when the build succeeds');
    assert.equal(await stateOf(engine, test1.id), 'queued');
    assert.equal(await stateOf(engine, test2.id), 'blocked', 'it waits for the job outside the batch too');
    await endJob(engine, before.id, 'succeeded');
    const tests = await engine.claim({ workerId: 'w', max: 10 });
    assert.deepEqual(tests.map((j) => j.id).sort(), [test1.id, test2.id].sort());
    await engine.complete({ id: test1.id, workerId: 'w' });
    await engine.fail({ id: test2.id, workerId: 'w', error: 'boom', permanent: true });
    assert.equal(await stateOf(engine, pack.id), 'cancelled');
    const [cleaned] = await engine.claim({ workerId: 'w', max: 10 });
    assert.equal(cleaned?.id, cleanup.id, 'the cleanup runs whatever became of the package');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: in a batch, a job depending on an earlier one that is cancelled at once is settled by the same rule', async (t) => {
    const { engine } = makeEngine(t, store);
    const failed = await enqueue(engine, [], 'p');
    await endJob(engine, failed.id, 'failed');
    const { results } = await engine.enqueueBatch({
      jobs: [
        { queue: 'q', kind: 'k', dependsOn: [failed.id] },
        { queue: 'q', kind: 'k', dependsOn: [{ index: 0, on: 'failed' }] },
        { queue: 'q', kind: 'k', dependsOn: [{ index: 0 }] },
        { queue: 'q', kind: 'k', dependsOn: [{ index: 1, on: 'finished' }] },
      ],
    });
    assert.deepEqual(
      results.map((r) => r.job.state),
      ['cancelled', 'queued', 'cancelled', 'blocked'],
    );
    assert.match(results[2]?.job.lastError ?? '', new RegExp(`^dependency ${results[0]?.job.id} was cancelled`));
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('dependencies: in a batch, an index names the job an idempotency key matched, and a job is named once', async (t) => {
    const { engine } = makeEngine(t, store);
    const existing = (await engine.enqueue({ queue: 'p', kind: 'k', idempotencyKey: 'build-1' })).job;
    const { results } = await engine.enqueueBatch({
      jobs: [
        { queue: 'p', kind: 'k', idempotencyKey: 'build-1' },
        { queue: 'p', kind: 'k', idempotencyKey: 'build-2' },
        { queue: 'p', kind: 'k', idempotencyKey: 'build-2' },
        { queue: 'q', kind: 'k', dependsOn: [{ index: 0 }, { index: 2 }] },
      ],
    });
    const child = results[3]?.job;
    assert.equal(results[0]?.job.id, existing.id);
    assert.equal(results[2]?.job.id, results[1]?.job.id);
    assert.deepEqual((await engine.getJob(child?.id ?? '')).dependencies.map((d) => d.id).sort(), [existing.id, results[1]?.job.id].sort());
    assert.equal((await engine.getJob(existing.id)).job.dependents, 1);
    assert.equal((await engine.getJob(results[1]?.job.id ?? '')).job.dependents, 1);
    const twice = await thrown(() =>
      engine.enqueueBatch({
        jobs: [
          { queue: 'p', kind: 'k', idempotencyKey: 'build-1' },
          { queue: 'q', kind: 'k', dependsOn: [existing.id, { index: 0, on: 'failed' }] },
        ],
      }),
    );
    assert.equal(twice.code, ErrorCode.InvalidParams);
    assert.equal(twice.data['field'], 'jobs[1].dependsOn[1]');
    assert.match(twice.message, /names job .* again/);
    assert.equal((await engine.getQueue('q')).counts.blocked, 1, 'nothing of the refused batch was enqueued');
  });

  test('dependencies: an index in a batch is validated, naming the field, and the batch is refused whole', async (t) => {
    const { engine } = makeEngine(t, store);
    const a = await enqueue(engine);
    const cases: [unknown[], string, RegExp][] = [
      [[{ index: 0 }], 'jobs[0].dependsOn[0].index', /first job of a batch has no earlier job/],
      [[], 'jobs[1].dependsOn[0].index', /must be 0 to 0, the position of an earlier job of the batch .*got 1/],
      [[{ index: 5 }], 'jobs[1].dependsOn[0].index', /must be 0 to 0.*got 5/],
      [[{ index: -1 }], 'jobs[1].dependsOn[0].index', /got -1/],
      [[{ index: 0.5 }], 'jobs[1].dependsOn[0].index', /got 0.5/],
      [[{ index: '0' }], 'jobs[1].dependsOn[0].index', /got "0"/],
      [[{ index: 0, id: a.id }], 'jobs[1].dependsOn[0]', /either jobs\[1\]\.dependsOn\[0\]\.id or jobs\[1\]\.dependsOn\[0\]\.index/],
      [[{ index: 0 }, { index: 0, on: 'failed' }], 'jobs[1].dependsOn[1]', /names job 0 of the batch again/],
      [[{ index: 0, on: 'later' }], 'jobs[1].dependsOn[0].on', /succeeded, failed, finished/],
    ];
    for (const [dependsOn, field, message] of cases) {
      const second = field.startsWith('jobs[0]') ? [] : [{ queue: 'q', kind: 'k', dependsOn: dependsOn.length === 0 ? [{ index: 1 }] : dependsOn }];
      const first = field.startsWith('jobs[0]') ? { queue: 'q', kind: 'k', dependsOn } : { queue: 'q', kind: 'k' };
      const error = await thrown(() => engine.enqueueBatch({ jobs: [first, ...second] } as never));
      assert.equal(error.code, ErrorCode.InvalidParams, field);
      assert.equal(error.data['field'], field);
      assert.match(error.message, message);
    }
    const single = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', dependsOn: [{ index: 0 }] } as never));
    assert.equal(single.data['field'], 'dependsOn[0].index');
    assert.match(single.message, /only jobs.enqueueBatch has/);
    assert.equal((await engine.getQueue('q')).counts.queued, 1, 'only the first job of the test was ever enqueued');
  });

  test('dependencies: two jobs ending at once on two daemons make their dependent ready exactly once', async (t) => {
    const { engine, openShared } = makeEngine(t, store);
    const daemons = [engine, openShared(), openShared()];
    for (let round = 0; round < 20; round += 1) {
      const a = await enqueue(engine, [], `r${round}`);
      const b = await enqueue(engine, [], `r${round}`);
      const c = await enqueue(engine, [], `r${round}`);
      const child = await enqueue(engine, [a.id, b.id, c.id], `child${round}`);
      const claimed = await engine.claim({ workerId: 'w', queues: [`r${round}`], max: 3 });
      assert.equal(claimed.length, 3);
      await Promise.all(claimed.map((job, i) => (daemons[i] ?? engine).complete({ id: job.id, workerId: 'w' })));
      const after = (await engine.getJob(child.id)).job;
      assert.deepEqual([after.state, after.waitingFor], ['queued', 0]);
      const taken = await Promise.all(daemons.map((d) => d.claim({ workerId: 'w2', queues: [`child${round}`], max: 5 })));
      assert.equal(taken.flat().length, 1, 'the dependent is claimed once');
    }
    assert.equal((await engine.verifyCounters()).ok, true);
  });
}
