/**
 * Editing a waiting job's group (jobs.update `group`): the queue's group limits count it in its
 * new group at once, `null` takes it out of every group, a job given a group makes its queue
 * grouped, and a bad key is refused by name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** The edit of a job's group, run against the store `store` makes. */
export function defineEditGroup(store: TestStoreFactory): void {
  test('edit group: a job moved out of a group at its limit is claimed at once; none takes it out of every group', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'eg', groupConcurrency: 1 });
    const a = (await engine.enqueue({ queue: 'eg', kind: 'k', group: 'g1' })).job;
    const b = (await engine.enqueue({ queue: 'eg', kind: 'k', group: 'g1' })).job;
    const c = (await engine.enqueue({ queue: 'eg', kind: 'k', group: 'g1' })).job;
    assert.deepEqual((await engine.claim({ workerId: 'w', queues: ['eg'], max: 5 })).map((j) => j.id), [a.id]);
    assert.deepEqual(await engine.claim({ workerId: 'w', queues: ['eg'], max: 5 }), [], 'g1 is at its limit');

    const moved = await engine.update({ id: b.id, group: 'g2' });
    assert.equal(moved.group, 'g2');
    const none = await engine.update({ id: c.id, group: null });
    assert.equal(none.group, null);
    const claimed = await engine.claim({ workerId: 'w', queues: ['eg'], max: 5 });
    assert.deepEqual(claimed.map((j) => j.id).sort(), [b.id, c.id].sort(), 'each in a group of its own now');

    // g1's counters followed: with its running job done and nothing left waiting in it, a new
    // job of g1 starts at once.
    await engine.complete({ id: a.id, workerId: 'w' });
    const d = (await engine.enqueue({ queue: 'eg', kind: 'k', group: 'g1' })).job;
    assert.deepEqual((await engine.claim({ workerId: 'w', queues: ['eg'], max: 5 })).map((j) => j.id), [d.id]);
  });

  test('edit group: a job of a queue without groups given one makes the queue grouped; a bad key is refused by name', async (t) => {
    const { engine } = makeEngine(t, store);
    const job = (await engine.enqueue({ queue: 'plain-eg', kind: 'k' })).job;
    assert.equal((await engine.getQueue('plain-eg')).grouped, false);
    assert.equal((await engine.update({ id: job.id, group: null })).group, null, 'none in a queue without groups leaves it as it was');
    assert.equal((await engine.getQueue('plain-eg')).grouped, false);
    const grouped = await engine.update({ id: job.id, group: 'customer:7' });
    assert.equal(grouped.group, 'customer:7');
    assert.equal((await engine.getQueue('plain-eg')).grouped, true);
    const error = await thrown(() => engine.update({ id: job.id, group: 'bad key' }));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data['field'], 'group');
    assert.equal((await engine.getJob(job.id)).job.group, 'customer:7');
    const [claimed] = await engine.claim({ workerId: 'w', queues: ['plain-eg'] });
    assert.equal(claimed?.id, job.id);
    assert.equal((await thrown(() => engine.update({ id: job.id, group: 'x' }))).code, ErrorCode.InvalidState, 'a running job keeps its group');
  });
}
