import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const SCHEDULE = { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', queue: 'maintenance', job: { kind: 'shell', payload: { command: 'make clean' }, priority: 2 } };

/** The schedules tests, run against the store `store` makes. */
export function defineSchedules(store: TestStoreFactory): void {
  test('schedules are stored, updated, listed and deleted', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const created = await engine.createSchedule(SCHEDULE, clock.ms + 1000);
    assert.deepEqual([created.name, created.cron, created.timezone, created.enabled, created.missedPolicy, created.nextRunAt], ['nightly', '0 3 * * *', 'Europe/Paris', true, 'skip', clock.ms + 1000]);
    assert.deepEqual(created.job, SCHEDULE.job);
    assert.equal((await thrown(() => engine.createSchedule(SCHEDULE, null))).code, ErrorCode.AlreadyExists);
    const disabled = await engine.updateSchedule({ name: 'nightly', enabled: false }, undefined);
    assert.deepEqual([disabled.enabled, disabled.nextRunAt], [false, null]);
    const enabled = await engine.updateSchedule({ name: 'nightly', enabled: true, cron: '*/5 * * * *' }, clock.ms + 300_000);
    assert.deepEqual([enabled.enabled, enabled.cron, enabled.nextRunAt], [true, '*/5 * * * *', clock.ms + 300_000]);
    assert.deepEqual((await engine.listSchedules()).map((s) => s.name), ['nightly']);
    await engine.deleteSchedule('nightly');
    assert.equal((await thrown(() => engine.getSchedule('nightly'))).code, ErrorCode.ScheduleNotFound);
  });

  test('a fire is a compare-and-swap: of two engines on one store, exactly one fires each tick', async (t) => {
    const { engine, clock, openShared } = makeEngine(t, store);
    const other = openShared();
    const due = clock.ms + 1000;
    await engine.createSchedule(SCHEDULE, due);
    clock.advance(1000);
    const won = await engine.fireSchedule({ name: 'nightly', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
    const lost = await other.fireSchedule({ name: 'nightly', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
    assert.ok(won);
    assert.equal(lost, null);
    assert.equal(won.job?.queue, 'maintenance');
    assert.equal(won.job?.kind, 'shell');
    assert.equal(won.job?.priority, 2);
    assert.deepEqual(won.job?.context, { origin: 'schedule:nightly' });
    assert.deepEqual([won.schedule.nextRunAt, won.schedule.lastRunAt, won.schedule.lastJobId], [due + 60_000, clock.ms, won.job?.id]);
    assert.equal((await engine.getQueue('maintenance')).counts.queued, 1);
    // A skipped tick moves next_run_at without a job.
    const skipped = await other.fireSchedule({ name: 'nightly', expectedNextRunAt: due + 60_000, newNextRunAt: due + 120_000, enqueue: false });
    assert.equal(skipped?.job, null);
    assert.equal((await engine.getQueue('maintenance')).counts.queued, 1);
  });

  test('trigger enqueues the schedule\'s job now and leaves next_run_at alone', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.createSchedule(SCHEDULE, clock.ms + 5000);
    const { job, created } = await engine.triggerSchedule('nightly');
    assert.equal(created, true);
    assert.equal(job.runAt, clock.ms);
    assert.equal((await engine.getSchedule('nightly')).nextRunAt, clock.ms + 5000);
  });

  test('workers register, are listed with the jobs they hold, heartbeat and go away', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const w = await engine.registerWorker({ workerId: 'resizer-1', name: 'resizer', host: 'box', pid: 42, queues: ['img'], kinds: ['resize'], concurrency: 4 }, 'remote');
    assert.deepEqual([w.id, w.type, w.alive, w.queues, w.kinds, w.runningJobIds], ['resizer-1', 'remote', true, ['img'], ['resize'], []]);
    const generated = await engine.registerWorker({}, 'builtin');
    assert.match(generated.id, /^builtin-[0-9a-f-]{36}$/);
    const { job } = await engine.enqueue({ queue: 'img', kind: 'resize' });
    await engine.claim({ workerId: 'resizer-1' });
    clock.advance(1000);
    await engine.touchWorker('resizer-1');
    await engine.markWorkerGone(generated.id);
    const listed = await engine.listWorkers();
    const resizer = listed.find((x) => x.id === 'resizer-1');
    assert.deepEqual(resizer?.runningJobIds, [job.id]);
    assert.equal(resizer?.lastHeartbeatAt, clock.ms);
    assert.equal(listed.find((x) => x.id === generated.id)?.alive, false);
    assert.equal((await thrown(() => engine.touchWorker('nobody'))).code, ErrorCode.WorkerNotFound);
  });
}
