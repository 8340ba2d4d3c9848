import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Engine } from '../../../daemon/engine';
import type { HistoryPoint } from '../../../shared/protocol';
import { ErrorCode } from '../../../shared/protocol';
import { actingAs } from '../../../daemon/engine/actor';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** One minute of the known workload: two jobs enqueued, both started after 1 s, one completed and one dead after 2 s. */
async function minuteOfWork(engine: Engine, advance: (ms: number) => void, worker: string): Promise<void> {
  const ok = (await engine.enqueue({ queue: 'hist', kind: 'k' })).job;
  const bad = (await engine.enqueue({ queue: 'hist', kind: 'k', maxAttempts: 1 })).job;
  advance(1000);
  const claimed = await engine.claim({ workerId: worker, queues: ['hist'], max: 2 });
  assert.equal(claimed.length, 2);
  advance(2000);
  await engine.complete({ id: ok.id, workerId: worker });
  await engine.fail({ id: bad.id, workerId: worker, error: 'no' });
}

function expectMinute(p: HistoryPoint | undefined, at: number, times = 1): void {
  assert.ok(p, `a point at ${new Date(at).toISOString()}`);
  assert.deepEqual(
    { ...p },
    {
      queue: 'hist',
      at,
      enqueued: 2 * times,
      started: 2 * times,
      completed: times,
      failed: 0,
      dead: times,
      cancelled: 0,
      waitP50: 1000,
      waitP95: 1000,
      waitMax: 1000,
      runP50: 2000,
      runP95: 2000,
      runMax: 2000,
      backlog: 0,
      running: 0,
    },
  );
}

/** The queue history tests (docs/history.md), run against the store `store` makes. */
export function defineHistory(store: TestStoreFactory): void {
  test('history: 3 hours of a known workload, across a restart, give the known minute and hour rows; hours roll up after a day; minutes go after 7 days, hours after 90', async (t) => {
    const { engine: first, clock, openShared } = makeEngine(t, store);
    const start = clock.ms;
    let engine = first;
    for (let m = 0; m < 180; m++) {
      if (m === 90) {
        // A restart: the old daemon writes what it counted as it stops, the new one goes on.
        await engine.flushHistory();
        await engine.close();
        engine = openShared();
      }
      clock.ms = start + m * MINUTE + 5000;
      await minuteOfWork(engine, (ms) => clock.advance(ms), 'w1');
      clock.ms = start + (m + 1) * MINUTE + 1;
      await engine.flushHistory();
    }
    const minutes = await engine.statsHistory({ queue: 'hist', from: start, to: start + 3 * HOUR, step: 'minute' });
    assert.equal(minutes.step, 'minute');
    assert.equal(minutes.points.length, 180);
    minutes.points.forEach((p, m) => expectMinute(p, start + m * MINUTE));

    const hoursBefore = await engine.statsHistory({ from: start, to: start + 3 * HOUR, step: 'hour' });
    assert.deepEqual(
      hoursBefore.points.map((p) => [p.at - start, p.enqueued, p.started, p.completed, p.dead, p.waitP95, p.runMax]),
      [0, 1, 2].map((h) => [h * HOUR, 120, 120, 60, 60, 1000, 2000]),
    );
    // A day later the hours are rolled up, and read the same from their own rows.
    clock.ms = start + 3 * HOUR + DAY;
    assert.equal(await engine.rollupHistory(), 3);
    assert.equal(await engine.rollupHistory(), 0, 'an hour is rolled up once');
    assert.deepEqual((await engine.statsHistory({ from: start, to: start + 3 * HOUR, step: 'hour' })).points, hoursBefore.points);
    // After 7 days the minutes are gone, the hours stay; after 90 days the hours go too.
    clock.ms = start + 3 * HOUR + 7 * DAY;
    await engine.rollupHistory();
    assert.equal((await engine.statsHistory({ from: start, to: start + 3 * HOUR, step: 'minute' })).points.length, 0);
    assert.deepEqual((await engine.statsHistory({ from: start, to: start + 3 * HOUR, step: 'hour' })).points, hoursBefore.points);
    clock.ms = start + 3 * HOUR + 90 * DAY;
    await engine.rollupHistory();
    assert.equal((await engine.statsHistory({ from: start, to: start + 3 * HOUR, step: 'hour' })).points.length, 0);
  });

  test('history: two daemons on one store each write their own rows, and a minute reads as their sum', async (t) => {
    const { engine: a, clock, openShared } = makeEngine(t, store);
    const b = openShared();
    const start = clock.ms;
    clock.ms = start + 5000;
    await minuteOfWork(a, (ms) => clock.advance(ms), 'wa');
    await a.flushHistory();
    await minuteOfWork(b, (ms) => clock.advance(ms), 'wb');
    await b.flushHistory();
    // Written again after more work: a daemon's row of a minute is replaced, not added to.
    await a.flushHistory();
    clock.ms = start + MINUTE;
    await a.flushHistory();
    await b.flushHistory();
    const { points } = await a.statsHistory({ queue: 'hist', from: start, to: start + MINUTE, step: 'minute' });
    assert.equal(points.length, 1);
    expectMinute(points[0], start, 2);
    assert.deepEqual((await b.statsHistory({ from: start, to: start + HOUR, step: 'hour' })).points.map((p) => p.enqueued), [4]);
  });

  test('history: the backlog and running jobs at the end of a minute, failed attempts that are retried, and cancelled jobs', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const start = clock.ms;
    for (let i = 0; i < 3; i++) await engine.enqueue({ queue: 'hist', kind: 'k', maxAttempts: 3 });
    const [one, two] = await engine.claim({ workerId: 'w', queues: ['hist'], max: 2 });
    assert.ok(one && two);
    clock.advance(500);
    await engine.fail({ id: one.id, workerId: 'w', error: 'again' });
    const waiting = (await engine.enqueue({ queue: 'hist', kind: 'k' })).job;
    await engine.cancel(waiting.id);
    clock.ms = start + MINUTE;
    await engine.flushHistory();
    const [p] = (await engine.statsHistory({ queue: 'hist', from: start, to: start + MINUTE, step: 'minute' })).points;
    assert.ok(p);
    assert.deepEqual(
      [p.enqueued, p.started, p.completed, p.failed, p.dead, p.cancelled, p.waitMax, p.runMax, p.backlog, p.running],
      // Backlog: the one never claimed and the failed one, retrying; running: the other claimed one.
      [4, 2, 0, 1, 0, 1, 0, 500, 2, 1],
    );
  });

  test('jobs.history: a job that failed twice and then completed shows each claim and each end with its cause, oldest first', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const job = (await engine.enqueue({ queue: 'hist-job', kind: 'k', maxAttempts: 3, backoff: { strategy: 'fixed', baseMs: 1000, capMs: 1000, jitter: 0 } })).job;
    const times: number[] = [job.createdAt];
    for (let attempt = 1; attempt <= 3; attempt++) {
      clock.advance(1000);
      const [claimed] = await engine.claim({ workerId: 'w', queues: ['hist-job'], max: 1 });
      assert.equal(claimed?.id, job.id);
      times.push(clock.ms);
      clock.advance(100);
      if (attempt < 3) await engine.fail({ id: job.id, workerId: 'w', error: `no ${attempt}` });
      else await engine.complete({ id: job.id, workerId: 'w' });
      times.push(clock.ms);
    }
    const { events } = await engine.jobHistory(job.id);
    assert.deepEqual(
      events.map((e) => [e.at, e.state, e.cause, e.attempt, e.detail]),
      [
        [times[0], 'queued', 'enqueue', null, null],
        [times[1], 'running', 'claim', 1, 'worker w'],
        [times[2], 'retrying', 'fail', 1, 'no 1'],
        [times[3], 'running', 'claim', 2, 'worker w'],
        [times[4], 'retrying', 'fail', 2, 'no 2'],
        [times[5], 'running', 'claim', 3, 'worker w'],
        [times[6], 'completed', 'complete', 3, null],
      ],
    );
    await engine.retry(job.id);
    assert.deepEqual((await engine.jobHistory(job.id)).events.at(-1)?.cause, 'retry by user');
    assert.equal((await thrown(() => engine.jobHistory('0190d7a0-0000-7000-8000-000000000000'))).code, ErrorCode.JobNotFound);
  });

  test("jobs.history: a user's hold, release, edit, run now, cancel and retry are recorded with who made them; the daemon's own changes as daemon", async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const job = (await engine.enqueue({ queue: 'hist-who', kind: 'k', delayMs: 3_600_000, maxAttempts: 1 })).job;
    const at: number[] = [];
    const step = async (who: string, action: () => Promise<unknown>): Promise<void> => {
      clock.advance(1000);
      at.push(clock.ms);
      await actingAs(who, action);
    };
    await step('alice', () => engine.hold(job.id));
    await step('alice', () => engine.unhold(job.id));
    await step('token ci', () => engine.update({ id: job.id, priority: 5, delayMs: 60_000, tags: ['x'] }));
    await step('bob', () => engine.runNow(job.id));
    clock.advance(1000);
    const [claimed] = await engine.claim({ workerId: 'w', queues: ['hist-who'], max: 1 });
    assert.equal(claimed?.id, job.id);
    const claimedAt = clock.ms;
    clock.advance(100);
    await engine.fail({ id: job.id, workerId: 'w', error: 'boom' });
    const failedAt = clock.ms;
    await step('bob', () => engine.retry(job.id));
    await step('alice', () => engine.cancel(job.id));
    // Outside any call: the daemon's own doing.
    const other = (await engine.enqueue({ queue: 'hist-who', kind: 'k', delayMs: 3_600_000 })).job;
    await engine.hold(other.id);

    const { events } = await engine.jobHistory(job.id);
    assert.deepEqual(
      events.map((e) => [e.at, e.state, e.cause, e.who, e.attempt, e.detail]),
      [
        [job.createdAt, 'queued', 'enqueue', null, null, null],
        [at[0], 'held', 'hold', 'alice', null, 'was queued'],
        [at[1], 'queued', 'release', 'alice', null, null],
        [at[2], 'queued', 'edit', 'token ci', null, 'priority, runAt, tags'],
        [at[3], 'queued', 'run now', 'bob', null, null],
        [claimedAt, 'running', 'claim', null, 1, 'worker w'],
        [failedAt, 'dead', 'fail', null, 1, 'boom'],
        [at[4], 'queued', 'retry by user', 'bob', null, 'was dead'],
        [at[5], 'cancelled', 'cancel', 'alice', null, null],
      ],
    );
    assert.deepEqual(
      (await engine.jobHistory(other.id)).events.map((e) => [e.cause, e.who]),
      [
        ['enqueue', null],
        ['hold', 'daemon'],
      ],
    );
    // The record goes with the job.
    await engine.deleteJob(job.id);
    assert.equal((await thrown(() => engine.jobHistory(job.id))).code, ErrorCode.JobNotFound);
  });

  test("jobs.history: a bulk action records who asked for it in each job's history, though its transactions run after an await", async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await engine.enqueue({ queue: 'hist-bulk-who', kind: 'k', delayMs: 3_600_000 })).job.id);
    clock.advance(1000);
    // The bulk forms read the ids first and write afterwards: the actor must outlive that await.
    assert.equal((await actingAs('carol', () => engine.holdMany({ ids }))).count, 3);
    assert.equal((await actingAs('token ops', () => engine.updateMany({ filter: { queue: 'hist-bulk-who' }, priority: 7 }))).count, 3);
    // Meanwhile and afterwards, the daemon's own calls are still its own.
    const [first] = ids;
    await engine.unhold(first as string);
    for (const id of ids) {
      const events = (await engine.jobHistory(id)).events.map((e) => [e.cause, e.who]);
      assert.deepEqual(events.slice(0, 3), [
        ['enqueue', null],
        ['hold', 'carol'],
        ['edit', 'token ops'],
      ]);
      if (id === first) assert.deepEqual(events[3], ['release', 'daemon']);
    }
  });

  test('jobs.history: a run now or a retry and the claim it allowed, in one millisecond, show in the order they happened', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const job = (await engine.enqueue({ queue: 'hist-tie', kind: 'k', delayMs: 3_600_000, maxAttempts: 1 })).job;
    clock.advance(1000);
    // The clock stands still: each change and the claim it allowed share a millisecond.
    await engine.runNow(job.id);
    assert.equal((await engine.claim({ workerId: 'w', queues: ['hist-tie'], max: 1 }))[0]?.id, job.id);
    await engine.fail({ id: job.id, workerId: 'w', error: 'boom' });
    await engine.retry(job.id);
    assert.equal((await engine.claim({ workerId: 'w', queues: ['hist-tie'], max: 1 }))[0]?.id, job.id);
    const { events } = await engine.jobHistory(job.id);
    assert.deepEqual(
      events.map((e) => [e.cause, e.state]),
      [
        ['enqueue', 'queued'],
        ['run now', 'queued'],
        ['claim', 'running'],
        ['fail', 'dead'],
        ['retry by user', 'queued'],
        ['claim', 'running'],
      ],
    );
    assert.ok(events.slice(1).every((e) => e.at === clock.ms), 'every change after the enqueue in one millisecond');
  });

  test('stats.history refuses a bad step, a range too long or reversed, and an unknown queue, naming the field', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const now = clock.ms;
    const bad = [
      [{ from: now, to: now, step: 'day' }, 'step'],
      [{ from: now, to: now + 10_081 * MINUTE, step: 'minute' }, 'to'],
      [{ from: now, to: now - HOUR, step: 'hour' }, 'to'],
      [{ from: -1, to: now, step: 'hour' }, 'from'],
    ] as const;
    for (const [params, field] of bad) {
      const e = await thrown(() => engine.statsHistory(params as never));
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.equal(e.data['field'], field, e.message);
    }
    assert.equal((await engine.statsHistory({ from: now, to: now + 10_080 * MINUTE, step: 'minute' })).points.length, 0);
    assert.equal((await thrown(() => engine.statsHistory({ queue: 'nope', from: now, to: now + HOUR, step: 'hour' }))).code, ErrorCode.QueueNotFound);
  });
}
