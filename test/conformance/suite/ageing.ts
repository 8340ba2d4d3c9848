/**
 * Priority ageing (Queue.ageing, "1 per 10m"): the upkeep's pass raises the claim priority of
 * waiting jobs by their wait since they became due, with an injected clock; the priority a job
 * shows stays the one set; off, a retry, an edit of the priority and bad settings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const MINUTE = 60_000;

/** Priority ageing, run against the store `store` makes. */
export function defineAgeing(store: TestStoreFactory): void {
  test('ageing: a low-priority job that waited long enough is claimed before a newer high-priority one; off, it is not', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    for (const queue of ['aged', 'plain']) {
      await engine.configureQueue({ name: queue, concurrency: 5 });
    }
    await engine.configureQueue({ name: 'aged', ageing: '1 per 10m' });
    const oldAged = (await engine.enqueue({ queue: 'aged', kind: 'k', priority: 0 })).job;
    const oldPlain = (await engine.enqueue({ queue: 'plain', kind: 'k', priority: 0 })).job;
    clock.advance(35 * MINUTE);
    const newAged = (await engine.enqueue({ queue: 'aged', kind: 'k', priority: 2 })).job;
    const newPlain = (await engine.enqueue({ queue: 'plain', kind: 'k', priority: 2 })).job;

    const pass = await engine.ageWaiting();
    assert.equal(pass.changed, 1, 'only the job that waited three steps changes');
    assert.equal(pass.shortestEveryMs, 10 * MINUTE);
    const raised = (await engine.getJob(oldAged.id)).job;
    assert.equal(raised.priority, 0, 'the priority shown stays the one set');
    assert.equal(raised.agedPriority, 3, 'three whole steps of 10 minutes');
    assert.equal((await engine.getJob(newAged.id)).job.agedPriority, null);

    const [first] = await engine.claim({ workerId: 'w', queues: ['aged'] });
    assert.equal(first?.id, oldAged.id, 'the old job counts 3 against the new one\'s 2');
    assert.equal(first?.priority, 0);
    const [plainFirst] = await engine.claim({ workerId: 'w', queues: ['plain'] });
    assert.equal(plainFirst?.id, newPlain.id, 'without ageing the higher priority runs first');
    assert.equal((await engine.getJob(oldPlain.id)).job.agedPriority, null);
  });

  test('ageing: a step is counted from when the job became due, never above the highest priority, and again after a retry', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 5, ageing: '400 per 1m' });
    const delayed = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 100, delayMs: 5 * MINUTE })).job;
    const due = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 100, maxAttempts: 3, backoff: { strategy: 'fixed', baseMs: MINUTE, jitter: 0 } })).job;
    clock.advance(6 * MINUTE);
    await engine.ageWaiting();
    assert.equal((await engine.getJob(delayed.id)).job.agedPriority, 500, 'due for one minute: one step');
    assert.equal((await engine.getJob(due.id)).job.agedPriority, 1000, 'six steps, held at the highest priority');

    const [claimed] = await engine.claim({ workerId: 'w', queues: ['q'] });
    assert.equal(claimed?.id, due.id);
    await engine.fail({ id: due.id, workerId: 'w', error: 'boom' });
    clock.advance(MINUTE);
    await engine.ageWaiting();
    const retrying = (await engine.getJob(due.id)).job;
    assert.equal(retrying.state, 'retrying');
    assert.equal(retrying.priority, 100);
    assert.equal(retrying.agedPriority, null, 'due again just now: back to the priority it set');
  });

  test('ageing: an edited priority replaces the raised one; turned off, every job counts its own again', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 5, ageing: '1 per 1m' });
    const a = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    const b = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    clock.advance(5 * MINUTE);
    await engine.ageWaiting();
    assert.equal((await engine.getJob(a.id)).job.agedPriority, 5);
    const edited = await engine.update({ id: a.id, priority: 2 });
    assert.deepEqual([edited.priority, edited.agedPriority], [2, null]);
    await engine.ageWaiting();
    assert.equal((await engine.getJob(a.id)).job.agedPriority, 7, 'the next pass counts from the new priority');

    const off = await engine.configureQueue({ name: 'q', ageing: null });
    assert.equal(off.ageing ?? null, null);
    assert.deepEqual([(await engine.getJob(a.id)).job.agedPriority, (await engine.getJob(b.id)).job.agedPriority], [null, null]);
    assert.equal((await engine.getJob(a.id)).job.priority, 2);
    assert.equal((await engine.ageWaiting()).shortestEveryMs, null, 'no queue ages');
  });

  test('ageing: the queue shows its ageing in the form it reads; a bad value names the field and the accepted form', async (t) => {
    const { engine } = makeEngine(t, store);
    assert.equal((await engine.configureQueue({ name: 'q', ageing: '2 per 90s' })).ageing, '2 per 90s');
    assert.equal((await engine.getQueue('q')).ageing, '2 per 90s');
    assert.equal((await engine.configureQueue({ name: 'q', concurrency: 3 })).ageing, '2 per 90s', 'other settings leave it');
    for (const bad of ['1/10m', '0 per 10m', '1 per 10', '1 per 500ms', 'fast', 5]) {
      const error = await thrown(() => engine.configureQueue({ name: 'q', ageing: bad as string }));
      assert.equal(error.code, ErrorCode.InvalidParams, String(bad));
      assert.equal(error.data['field'], 'ageing');
      assert.match(error.message, /N per DURATION, like 1 per 10m/);
    }
    assert.equal((await engine.getQueue('q')).ageing, '2 per 90s', 'a refused value changes nothing');
    assert.equal((await engine.configureQueue({ name: 'q', ageing: 'off' })).ageing ?? null, null);
  });
}
