/**
 * Unique jobs over a window, debounce and throttle (daemon/engine/ops/unique.ts): an equal job
 * within the window is returned instead of enqueued, per `while`; a debounce replaces a queued
 * job's payload and moves its start; a throttle spaces the starts of equal jobs. On every store,
 * with the clock injected, and with two engines on one store enqueueing at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const MINUTE = 60_000;

export function defineUnique(store: TestStoreFactory): void {
  test('unique (while any): an equal job within the window is the existing one, even after it ended; after the window a new one is enqueued', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const params = { queue: 'q', kind: 'k', payload: { a: 1, b: [1, 2] }, unique: { for: '10m' } };
    const first = await engine.enqueue(params);
    assert.equal(first.created, true);
    assert.equal(first.reason, undefined);
    assert.deepEqual(first.job.uniqueness, { rule: 'unique', forMs: 10 * MINUTE, by: ['queue', 'kind', 'payload'], while: 'any' });
    // The same payload with its keys in another order is the same job.
    const again = await engine.enqueue({ ...params, payload: { b: [1, 2], a: 1 } });
    assert.deepEqual([again.created, again.reason, again.existingState, again.job.id], [false, 'unique', 'queued', first.job.id]);
    const other = await engine.enqueue({ ...params, payload: { a: 2 } });
    assert.equal(other.created, true, 'another payload is another job');
    const [claimed] = await engine.claim({ workerId: 'w', queues: ['q'], max: 1 });
    assert.equal(claimed?.id, first.job.id);
    await engine.complete({ id: first.job.id, workerId: 'w' });
    clock.advance(9 * MINUTE);
    const afterEnd = await engine.enqueue(params);
    assert.deepEqual([afterEnd.created, afterEnd.reason, afterEnd.existingState, afterEnd.job.id], [false, 'unique', 'completed', first.job.id]);
    clock.advance(MINUTE);
    const afterWindow = await engine.enqueue(params);
    assert.equal(afterWindow.created, true, 'the window of 10 minutes has passed');
    assert.notEqual(afterWindow.job.id, first.job.id);
    const held = await engine.enqueue(params);
    assert.deepEqual([held.created, held.job.id], [false, afterWindow.job.id], 'the new job holds a new window');
    assert.deepEqual((await engine.getJob(afterWindow.job.id)).job.uniqueness, afterWindow.job.uniqueness);
  });

  test('unique while waiting: the existing job holds only until it starts', async (t) => {
    const { engine } = makeEngine(t, store);
    const params = { queue: 'q', kind: 'k', unique: { for: '1h', while: 'waiting' as const } };
    const first = await engine.enqueue(params);
    assert.deepEqual([(await engine.enqueue(params)).created, (await engine.enqueue(params)).job.id], [false, first.job.id]);
    await engine.claim({ workerId: 'w', queues: ['q'], max: 1 });
    const second = await engine.enqueue(params);
    assert.equal(second.created, true, 'the first one is running: no longer waiting');
    const third = await engine.enqueue(params);
    assert.deepEqual([third.created, third.reason, third.existingState, third.job.id], [false, 'unique', 'queued', second.job.id]);
  });

  test('unique while active: the existing job holds while running, not once it ended', async (t) => {
    const { engine } = makeEngine(t, store);
    const params = { queue: 'q', kind: 'k', unique: { for: '1h', while: 'active' as const } };
    const first = await engine.enqueue(params);
    await engine.claim({ workerId: 'w', queues: ['q'], max: 1 });
    const whileRunning = await engine.enqueue(params);
    assert.deepEqual([whileRunning.created, whileRunning.existingState, whileRunning.job.id], [false, 'running', first.job.id]);
    await engine.complete({ id: first.job.id, workerId: 'w' });
    const afterEnd = await engine.enqueue(params);
    assert.equal(afterEnd.created, true);
    // A deleted holder holds nothing, whatever `while` says.
    const any = { queue: 'q', kind: 'gone', unique: { for: '1h' } };
    const doomed = await engine.enqueue(any);
    await engine.deleteJob(doomed.job.id);
    assert.equal((await engine.enqueue(any)).created, true);
  });

  test('unique by: queue and kind only, a path into the payload, and every queue when "queue" is left out', async (t) => {
    const { engine } = makeEngine(t, store);
    const byKind = { queue: 'q', kind: 'report', unique: { for: '1h', by: ['queue' as const, 'kind' as const] } };
    const first = await engine.enqueue({ ...byKind, payload: { day: 1 } });
    assert.equal((await engine.enqueue({ ...byKind, payload: { day: 2 } })).job.id, first.job.id, 'the payload is not compared');
    assert.equal((await engine.enqueue({ ...byKind, queue: 'other' })).created, true, 'another queue');

    const byUser = (queue: string, kind: string, payload: unknown) => ({ queue, kind, payload, unique: { for: '1h', by: ['payload.user.id' as const] } });
    const mail = await engine.enqueue(byUser('a', 'mail', { user: { id: 7 }, text: 'hi' }));
    const same = await engine.enqueue(byUser('b', 'sms', { user: { id: 7, name: 'x' } }));
    assert.deepEqual([same.created, same.job.id], [false, mail.job.id], 'equal by payload.user.id alone, across queues and kinds');
    assert.equal((await engine.enqueue(byUser('a', 'mail', { user: { id: 8 } }))).created, true);
    const none = await engine.enqueue(byUser('a', 'mail', { text: 'no user' }));
    assert.equal(none.created, true);
    assert.equal((await engine.enqueue(byUser('a', 'mail', [1]))).job.id, none.job.id, 'a path that is not there is null for every payload');
    const byItem = { queue: 'q', kind: 'k', unique: { for: '1h', by: ['payload.files.0' as const] } };
    const f = await engine.enqueue({ ...byItem, payload: { files: ['a.txt', 'b.txt'] } });
    assert.equal((await engine.enqueue({ ...byItem, payload: { files: ['a.txt'] } })).job.id, f.job.id, 'an array position');
  });

  test('debounce: a burst of equal jobs is one queued job with the last payload, starting one debounce after the last', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const start = clock.now();
    const save = (n: number) => engine.enqueue({ queue: 'q', kind: 'build', payload: { n }, debounce: '5s' });
    const first = await save(1);
    assert.deepEqual([first.created, first.job.runAt], [true, start + 5000]);
    clock.advance(2000);
    const second = await save(2);
    assert.deepEqual([second.created, second.reason, second.existingState, second.job.id], [false, 'debounced', 'queued', first.job.id]);
    clock.advance(2000);
    const third = await save(3);
    assert.equal(third.job.id, first.job.id);
    const { job } = await engine.getJob(first.job.id);
    assert.deepEqual([job.payload, job.runAt], [{ n: 3 }, start + 4000 + 5000]);
    assert.deepEqual(job.uniqueness, { rule: 'debounce', forMs: 5000, by: ['queue', 'kind'] });
    clock.advance(4000);
    assert.deepEqual(await engine.claim({ workerId: 'w', queues: ['q'] }), [], 'not before 5 s after the last');
    clock.advance(1000);
    assert.deepEqual((await engine.claim({ workerId: 'w', queues: ['q'] })).map((j) => j.id), [first.job.id]);
    const afterStart = await save(4);
    assert.equal(afterStart.created, true, 'the debounced job started: a new one waits');
    assert.equal((await engine.enqueue({ queue: 'q', kind: 'other', payload: { n: 5 }, debounce: '5s' })).created, true, 'another kind is another job');
  });

  test('throttle: equal jobs start at least the throttle apart; other jobs are not held', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const start = clock.now();
    const sync = () => engine.enqueue({ queue: 'q', kind: 'sync', throttle: '1m' });
    const a = await sync();
    const b = await sync();
    const c = await sync();
    assert.deepEqual([a, b, c].map((r) => [r.created, r.reason, r.job.runAt - start]), [
      [true, undefined, 0],
      [true, 'throttled', MINUTE],
      [true, 'throttled', 2 * MINUTE],
    ]);
    clock.advance(10 * MINUTE);
    const later = await sync();
    assert.deepEqual([later.reason, later.job.runAt], [undefined, clock.now()], 'long after the last, a job starts at once');
    const unrelated = await engine.enqueue({ queue: 'q', kind: 'other', throttle: '1m' });
    assert.equal(unrelated.job.runAt, clock.now());
  });

  test('a batch matches its own equal jobs as one call at a time would', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { results } = await engine.enqueueBatch({
      jobs: [
        { queue: 'q', kind: 'u', payload: 1, unique: { for: '1h' } },
        { queue: 'q', kind: 'u', payload: 1, unique: { for: '1h' } },
        { queue: 'q', kind: 'd', payload: 'first', debounce: '5s' },
        { queue: 'q', kind: 'd', payload: 'last', debounce: '5s' },
        { queue: 'q', kind: 't', throttle: '1m' },
        { queue: 'q', kind: 't', throttle: '1m' },
      ],
    });
    assert.deepEqual(results.map((r) => [r.created, r.reason]), [
      [true, undefined],
      [false, 'unique'],
      [true, undefined],
      [false, 'debounced'],
      [true, undefined],
      [true, 'throttled'],
    ]);
    assert.equal(results[1]?.job.id, results[0]?.job.id);
    assert.equal(results[3]?.job.id, results[2]?.job.id);
    assert.equal((await engine.getJob(results[2]?.job.id ?? '')).job.payload, 'last');
    assert.equal((results[5]?.job.runAt ?? 0) - clock.now(), MINUTE);
    assert.equal((await engine.listJobs({ queue: 'q' })).jobs.length, 4);
    const next = await engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'u', payload: 1, unique: { for: '1h' } }] });
    assert.deepEqual([next.results[0]?.created, next.results[0]?.job.id], [false, results[0]?.job.id]);
  });

  test('an idempotency key says so: reason "key" and the existing state', async (t) => {
    const { engine } = makeEngine(t, store);
    const first = await engine.enqueue({ queue: 'q', kind: 'k', idempotencyKey: 'once' });
    const again = await engine.enqueue({ queue: 'q', kind: 'k', idempotencyKey: 'once' });
    assert.deepEqual([again.created, again.reason, again.existingState, again.job.id], [false, 'key', 'queued', first.job.id]);
    assert.equal(first.job.uniqueness, null);
  });

  test('two daemons enqueueing the same unique job at once end with one job', async (t) => {
    const { engine, openShared } = makeEngine(t, store);
    const other = openShared();
    const params = { queue: 'race', kind: 'k', payload: { x: 1 }, unique: { for: '1h' } };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? engine : other).enqueue(params)));
    const ids = new Set(results.map((r) => r.job.id));
    assert.equal(ids.size, 1);
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.equal((await engine.listJobs({ queue: 'race' })).jobs.length, 1);
  });

  test('a schedule\'s job keeps its template\'s unique rule: a second trigger within the window returns the first job', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const schedule = { name: 'digest', cron: '0 3 * * *', queue: 'mail', job: { kind: 'digest', payload: null, unique: { for: '1h', while: 'waiting' as const } } };
    assert.deepEqual((await engine.createSchedule(schedule, clock.ms + 60_000)).job.unique, { for: 3_600_000, while: 'waiting' });
    const first = await engine.triggerSchedule('digest');
    const second = await engine.triggerSchedule('digest');
    assert.deepEqual([first.created, second.created, second.job.id], [true, false, first.job.id]);
    assert.deepEqual(first.job.uniqueness, { rule: 'unique', forMs: 3_600_000, by: ['queue', 'kind', 'payload'], while: 'waiting' });
    const bad = await thrown(() => engine.createSchedule({ ...schedule, name: 'bad', job: { kind: 'digest', payload: null, unique: { for: '1h', while: 'never' as never } } }, null));
    assert.equal(bad.data['field'], 'job.unique.while');
  });

  test('unique, debounce and throttle are refused with the field named', async (t) => {
    const { engine } = makeEngine(t, store);
    const refused = async (params: Record<string, unknown>, field: string, words: RegExp) => {
      const error = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', ...params } as never));
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.equal(error.data['field'], field);
      assert.match(error.message, words);
    };
    await refused({ unique: {} }, 'unique.for', /unique\.for is required/);
    await refused({ unique: { for: '10' } }, 'unique.for', /a number needs a unit/);
    await refused({ unique: { for: 0 } }, 'unique.for', /unique\.for must be/);
    await refused({ unique: { for: '1m', by: ['payload', 'colour'] } }, 'unique.by[1]', /one of queue, kind, payload, group, or payload\.<path>/);
    await refused({ unique: { for: '1m', by: [] } }, 'unique.by', /unique\.by/);
    await refused({ unique: { for: '1m', while: 'done' } }, 'unique.while', /waiting, active, any/);
    await refused({ unique: { for: '1m', until: 'x' } }, 'unique.until', /Unknown field/);
    await refused({ debounce: 'soon' }, 'debounce', /debounce is not a duration/);
    await refused({ debounce: '1s', throttle: '1s' }, 'throttle', /either debounce or throttle/);
    await refused({ debounce: '1s', unique: { for: '1m' } }, 'unique.for', /cannot be given with debounce/);
    const batch = await thrown(() => engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k' }, { queue: 'q', kind: 'k', throttle: 5 as never, unique: { by: ['nope' as never] } }] }));
    assert.equal(batch.data['field'], 'jobs[1].unique.by[0]');
    assert.equal((await engine.enqueue({ queue: 'q', kind: 'k', throttle: 5000, unique: { by: ['kind'] } })).job.uniqueness?.forMs, 5000, 'whole milliseconds are a duration too');
  });
}
