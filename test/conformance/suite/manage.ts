import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** The manage tests, run against the store `store` makes. */
export function defineManage(store: TestStoreFactory): void {
  test('cancel: waiting jobs are cancelled at once, finished ones refuse with a clear error', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    const cancelled = await engine.cancel(job.id);
    assert.equal(cancelled.state, 'cancelled');
    assert.notEqual(cancelled.finishedAt, null);
    const error = await thrown(() => engine.cancel(job.id));
    assert.equal(error.code, ErrorCode.InvalidState);
    assert.match(error.message, /already finished \(cancelled\)/);
    assert.equal(error.data['state'], 'cancelled');
    assert.equal((await thrown(() => engine.cancel('01890000-0000-7000-8000-000000000000'))).code, ErrorCode.JobNotFound);
  });

  test('cancel: a retrying job, waiting for its next attempt, is cancelled at once', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 5000, jitter: 0 } });
    await engine.claim({ workerId: 'w' });
    assert.equal((await engine.fail({ id: job.id, workerId: 'w', error: 'boom' })).state, 'retrying');
    clock.advance(1000);
    const cancelled = await engine.cancel(job.id);
    assert.deepEqual([cancelled.state, cancelled.finishedAt, cancelled.attempts], ['cancelled', clock.ms, 1]);
    assert.equal((await engine.getJob(job.id)).job.state, 'cancelled');
    const q = await engine.getQueue('q');
    assert.deepEqual([q.counts.retrying, q.counts.cancelled], [0, 1]);
    clock.advance(5000);
    assert.deepEqual(await engine.claim({ workerId: 'w' }), [], 'its retry never comes');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('retry gives a dead job a fresh attempt budget and keeps its history', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 1 });
    await engine.claim({ workerId: 'w' });
    await engine.fail({ id: job.id, workerId: 'w', error: 'boom' });
    clock.advance(1000);
    const retried = await engine.retry(job.id);
    assert.deepEqual([retried.state, retried.attempts, retried.lastError, retried.finishedAt, retried.runAt], ['queued', 0, null, null, clock.ms]);
    assert.deepEqual([retried.workerId, retried.startedAt], [null, null], 'a queued job shows no worker or start time; its history keeps them');
    const [again] = await engine.claim({ workerId: 'w' });
    assert.equal(again?.attempts, 1);
    await engine.complete({ id: job.id, workerId: 'w' });
    assert.deepEqual((await engine.getJob(job.id)).runs.map((r) => [r.attempt, r.outcome]), [[1, 'failed'], [1, 'completed']]);
    assert.equal((await engine.retry(job.id)).state, 'queued', 'completed jobs can be run again too');
    const running = (await engine.claim({ workerId: 'w' }))[0];
    const error = await thrown(() => engine.retry(running?.id ?? ''));
    assert.equal(error.code, ErrorCode.InvalidState);
    assert.match(error.message, /it is running\. Cancel it first/);
  });

  test('update changes a queued job (its weight too) and refuses running or finished ones', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', payload: { a: 1 } });
    const updated = await engine.update({ id: job.id, priority: 9, delayMs: 500, payload: { a: 2 }, maxAttempts: 8, tags: ['t'] });
    assert.deepEqual([updated.priority, updated.runAt, updated.payload, updated.maxAttempts, updated.tags], [9, clock.ms + 500, { a: 2 }, 8, ['t']]);
    assert.equal((await engine.update({ id: job.id, runAt: clock.ms })).runAt, clock.ms);
    // A waiting job's weight changes too (how much of its queue's concurrency it will take), and
    // a weight out of range is refused, naming the field.
    assert.equal((await engine.update({ id: job.id, weight: 4 })).weight, 4);
    const badWeight = await thrown(() => engine.update({ id: job.id, weight: 0 }));
    assert.equal(badWeight.code, ErrorCode.InvalidParams);
    assert.equal(badWeight.data['field'], 'weight');
    assert.equal((await engine.getJob(job.id)).job.weight, 4);
    await engine.claim({ workerId: 'w' });
    const error = await thrown(() => engine.update({ id: job.id, priority: 1 }));
    assert.equal(error.code, ErrorCode.InvalidState);
    assert.match(error.message, /only blocked, queued, retrying or held jobs can change, and it is running/);
    assert.equal((await thrown(() => engine.update({ id: job.id, weight: 2 }))).code, ErrorCode.InvalidState);
    await engine.fail({ id: job.id, workerId: 'w', error: 'x' });
    const tooFew = await thrown(() => engine.update({ id: job.id, maxAttempts: 1 }));
    assert.equal(tooFew.data['field'], 'maxAttempts');
  });

  test('update refuses completed, dead and cancelled jobs, naming their state, and leaves them unchanged', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const [completed, dead, cancelled] = (await engine.enqueueBatch({ jobs: Array.from({ length: 3 }, () => ({ queue: 'q', kind: 'k', maxAttempts: 1 })) })).results.map((r) => r.job);
    assert.ok(completed && dead && cancelled);
    await engine.claim({ workerId: 'w', max: 2 });
    await engine.complete({ id: completed.id, workerId: 'w' });
    await engine.fail({ id: dead.id, workerId: 'w', error: 'boom' });
    await engine.cancel(cancelled.id);
    clock.advance(1000);
    for (const [job, state] of [[completed, 'completed'], [dead, 'dead'], [cancelled, 'cancelled']] as const) {
      const before = (await engine.getJob(job.id)).job;
      assert.equal(before.state, state);
      const error = await thrown(() => engine.update({ id: job.id, priority: 7, delayMs: 0, payload: { changed: true }, maxAttempts: 9, tags: ['new'] }));
      assert.equal(error.code, ErrorCode.InvalidState, `code for ${state}`);
      assert.match(error.message, new RegExp(`only blocked, queued, retrying or held jobs can change, and it is ${state}\\. Retry it to run it again`));
      assert.deepEqual([error.data['id'], error.data['state']], [job.id, state]);
      assert.deepEqual((await engine.getJob(job.id)).job, before, `the ${state} job is unchanged`);
    }
  });

  test('bulk actions apply to ids or to a filter over one queue, and report the jobs they could not touch', async (t) => {
    const { engine } = makeEngine(t, store);
    const ids = (await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, () => ({ queue: 'q', kind: 'k', maxAttempts: 1 })) })).results.map((r) => r.job.id);
    await engine.enqueue({ queue: 'other', kind: 'k' });
    const claimed = await engine.claim({ workerId: 'w', queues: ['q'], max: 3 });
    for (const job of claimed.slice(0, 2)) await engine.fail({ id: job.id, workerId: 'w', error: 'x' });
    const retried = await engine.retryMany({ filter: { queue: 'q', states: ['dead'] } });
    assert.deepEqual(retried, { count: 2, errors: [] });
    const cancelled = await engine.cancelMany({ ids });
    assert.equal(cancelled.count, 5, 'queued ones are cancelled, the running one is asked to stop');
    assert.equal(cancelled.stopRequested, 1);
    const waiting = (await engine.enqueue({ queue: 'q', kind: 'k' })).job.id;
    assert.deepEqual(await engine.cancelMany({ ids: [waiting] }), { count: 1, errors: [], stopRequested: 0 });
    const deleted = await engine.deleteMany({ ids });
    assert.equal(deleted.count, 4);
    assert.deepEqual(deleted.errors.map((e) => [e.id, e.code]), [[claimed[2]?.id, ErrorCode.InvalidState]]);
    assert.equal((await engine.getQueue('other')).counts.queued, 1);
  });

  test('bulk actions by state span every queue when no queue is named, over more jobs than one transaction takes', async (t) => {
    const { engine } = makeEngine(t, store);
    const total = 2500;
    for (const [queue, n] of [['a', 1000], ['b', 1000], ['c', 500]] as const) {
      await engine.enqueueBatch({ jobs: Array.from({ length: n }, () => ({ queue, kind: 'k' })) });
    }
    const [running] = await engine.claim({ workerId: 'w', queues: ['c'] });
    const cancelled = await engine.cancelMany({ filter: { states: ['queued'] } });
    assert.deepEqual(cancelled, { count: total - 1, errors: [], stopRequested: 0 }, 'the running job is not queued: left alone');
    assert.deepEqual((await engine.listQueues()).map((q) => [q.name, q.counts.cancelled]), [['a', 1000], ['b', 1000], ['c', 499]]);
    assert.deepEqual(await engine.retryMany({ filter: { states: ['cancelled'] } }), { count: total - 1, errors: [] });
    assert.equal((await engine.getQueue('b')).counts.queued, 1000);
    assert.deepEqual(await engine.deleteMany({ filter: { states: ['queued'], kind: 'k' } }), { count: total - 1, errors: [] });
    assert.deepEqual((await engine.listJobs({})).jobs.map((j) => j.id), [running?.id]);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('jobs can be listed and acted on by the git branch they were enqueued from, in one queue or all', async (t) => {
    const { engine } = makeEngine(t, store);
    const on = async (queue: string, branch: string | null): Promise<string> =>
      (await engine.enqueue({ queue, kind: 'k', ...(branch === null ? {} : { context: { workspace: '/w', branch } }) })).job.id;
    const featureA = await on('a', 'feature/x');
    const featureB = await on('b', 'feature/x');
    await on('a', 'main');
    await on('b', null);
    const sorted = (ids: string[]): string[] => [...ids].sort();
    assert.deepEqual(sorted((await engine.listJobs({ branch: 'feature/x' })).jobs.map((j) => j.id)), sorted([featureA, featureB]));
    assert.deepEqual((await engine.listJobs({ branch: 'feature/x', queue: 'b' })).jobs.map((j) => j.id), [featureB]);
    assert.deepEqual((await engine.listJobs({ branch: 'feature/x', states: ['queued'] })).jobs.length, 2);
    assert.deepEqual((await engine.listJobs({ branch: 'feat' })).jobs, [], 'matched exactly, not as a prefix');
    assert.deepEqual(await engine.cancelMany({ filter: { branch: 'feature/x' } }), { count: 2, errors: [], stopRequested: 0 });
    assert.deepEqual((await engine.listJobs({ states: ['queued'] })).jobs.length, 2, 'the other branches\' jobs wait on');
    assert.deepEqual(await engine.deleteMany({ filter: { branch: 'feature/x', queue: 'a', states: ['cancelled'] } }), { count: 1, errors: [] });
  });

  test('purge deletes a queue\'s jobs by state but never running ones; delete queue refuses while jobs remain', async (t) => {
    const { engine } = makeEngine(t, store);
    for (let i = 0; i < 3; i++) await engine.enqueueBatch({ jobs: Array.from({ length: i < 2 ? 1000 : 500 }, () => ({ queue: 'q', kind: 'k' })) });
    const [running] = await engine.claim({ workerId: 'w' });
    assert.equal(await engine.purgeQueue({ name: 'q', states: ['completed'] }), 0);
    assert.equal(await engine.purgeQueue({ name: 'q' }), 2499);
    assert.deepEqual((await engine.getQueue('q')).counts.running, 1);
    const refused = await thrown(() => engine.deleteQueue({ name: 'q', force: true }));
    assert.match(refused.message, /1 job\(s\) are running/);
    await engine.complete({ id: running?.id ?? '', workerId: 'w' });
    assert.match((await thrown(() => engine.deleteQueue({ name: 'q' }))).message, /still has 1 job/);
    assert.equal(await engine.deleteQueue({ name: 'q', force: true }), 1);
    assert.equal((await thrown(() => engine.getQueue('q'))).code, ErrorCode.QueueNotFound);
    assert.equal((await engine.verifyCounters()).ok, true);
  });
}
