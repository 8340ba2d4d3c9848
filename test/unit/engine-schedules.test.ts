import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Engine } from '../../daemon/engine';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine, thrown } from './helpers/engine';

const SCHEDULE = { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', queue: 'maintenance', job: { kind: 'shell', payload: { command: 'make clean' }, priority: 2 } };

test('schedules are stored, updated, listed and deleted', (t) => {
  const { engine, clock } = makeEngine(t);
  const created = engine.createSchedule(SCHEDULE, clock.ms + 1000);
  assert.deepEqual([created.name, created.cron, created.timezone, created.enabled, created.missedPolicy, created.nextRunAt], ['nightly', '0 3 * * *', 'Europe/Paris', true, 'skip', clock.ms + 1000]);
  assert.deepEqual(created.job, SCHEDULE.job);
  assert.equal(thrown(() => engine.createSchedule(SCHEDULE, null)).code, ErrorCode.AlreadyExists);
  const disabled = engine.updateSchedule({ name: 'nightly', enabled: false }, undefined);
  assert.deepEqual([disabled.enabled, disabled.nextRunAt], [false, null]);
  const enabled = engine.updateSchedule({ name: 'nightly', enabled: true, cron: '*/5 * * * *' }, clock.ms + 300_000);
  assert.deepEqual([enabled.enabled, enabled.cron, enabled.nextRunAt], [true, '*/5 * * * *', clock.ms + 300_000]);
  assert.deepEqual(engine.listSchedules().map((s) => s.name), ['nightly']);
  engine.deleteSchedule('nightly');
  assert.equal(thrown(() => engine.getSchedule('nightly')).code, ErrorCode.ScheduleNotFound);
});

test('a fire is a compare-and-swap: of two engines on one file, exactly one fires each tick', (t) => {
  const { engine, clock, dir } = makeEngine(t);
  const other = new Engine({ dbPath: path.join(dir, 'spool.db'), now: clock.now });
  t.after(() => other.close());
  const due = clock.ms + 1000;
  engine.createSchedule(SCHEDULE, due);
  clock.advance(1000);
  const won = engine.fireSchedule({ name: 'nightly', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
  const lost = other.fireSchedule({ name: 'nightly', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
  assert.ok(won);
  assert.equal(lost, null);
  assert.equal(won.job?.queue, 'maintenance');
  assert.equal(won.job?.kind, 'shell');
  assert.equal(won.job?.priority, 2);
  assert.deepEqual(won.job?.context, { origin: 'schedule:nightly' });
  assert.deepEqual([won.schedule.nextRunAt, won.schedule.lastRunAt, won.schedule.lastJobId], [due + 60_000, clock.ms, won.job?.id]);
  assert.equal(engine.getQueue('maintenance').counts.queued, 1);
  // A skipped tick moves next_run_at without a job.
  const skipped = other.fireSchedule({ name: 'nightly', expectedNextRunAt: due + 60_000, newNextRunAt: due + 120_000, enqueue: false });
  assert.equal(skipped?.job, null);
  assert.equal(engine.getQueue('maintenance').counts.queued, 1);
});

test('trigger enqueues the schedule\'s job now and leaves next_run_at alone', (t) => {
  const { engine, clock } = makeEngine(t);
  engine.createSchedule(SCHEDULE, clock.ms + 5000);
  const { job, created } = engine.triggerSchedule('nightly');
  assert.equal(created, true);
  assert.equal(job.runAt, clock.ms);
  assert.equal(engine.getSchedule('nightly').nextRunAt, clock.ms + 5000);
});

test('workers register, are listed with the jobs they hold, heartbeat and go away', (t) => {
  const { engine, clock } = makeEngine(t);
  const w = engine.registerWorker({ workerId: 'resizer-1', name: 'resizer', host: 'box', pid: 42, queues: ['img'], kinds: ['resize'], concurrency: 4 }, 'remote');
  assert.deepEqual([w.id, w.type, w.alive, w.queues, w.kinds, w.runningJobIds], ['resizer-1', 'remote', true, ['img'], ['resize'], []]);
  const generated = engine.registerWorker({}, 'builtin');
  assert.match(generated.id, /^builtin-[0-9a-f-]{36}$/);
  const { job } = engine.enqueue({ queue: 'img', kind: 'resize' });
  engine.claim({ workerId: 'resizer-1' });
  clock.advance(1000);
  engine.touchWorker('resizer-1');
  engine.markWorkerGone(generated.id);
  const listed = engine.listWorkers();
  const resizer = listed.find((x) => x.id === 'resizer-1');
  assert.deepEqual(resizer?.runningJobIds, [job.id]);
  assert.equal(resizer?.lastHeartbeatAt, clock.ms);
  assert.equal(listed.find((x) => x.id === generated.id)?.alive, false);
  assert.equal(thrown(() => engine.touchWorker('nobody')).code, ErrorCode.WorkerNotFound);
});
