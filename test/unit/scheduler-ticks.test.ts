import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextFireTime, nextFireTimes } from '../../shared/domain/cron';
import { Scheduler } from '../../daemon/scheduler/scheduler';
import type { Logger } from '../../daemon/lifecycle/logger';
import { makeEngine } from './helpers/engine';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const JOB = { queue: 'reports', job: { kind: 'shell', payload: { command: 'true' } } };

test('the next fire time is after the given time at the end of daylight saving time in half-hour zones', async () => {
  const hourly = { cron: '0 * * * *', timezone: 'Australia/Lord_Howe' };
  // 14:00Z is the last tick before the offset goes from +11 to +10:30; the next is 02:00 local = 15:30Z.
  assert.equal(nextFireTime(hourly, Date.parse('2030-04-06T14:00:00.001Z')), Date.parse('2030-04-06T15:30:00Z'));
  assert.equal(nextFireTime(hourly, Date.parse('2030-04-06T14:00:00.000Z')), Date.parse('2030-04-06T15:30:00Z'));
  const chatham = nextFireTimes({ cron: '*/7 * * * *', timezone: 'Pacific/Chatham' }, Date.parse('2030-04-06T13:11:00Z'), 3);
  assert.deepEqual(chatham.map((t) => new Date(t).toISOString()), ['2030-04-06T13:15:00.000Z', '2030-04-06T13:22:00.000Z', '2030-04-06T13:29:00.000Z']);
  const daily = nextFireTime({ cron: '0 2 * * *', timezone: 'Australia/Lord_Howe' }, Date.parse('2030-04-05T15:00:00.002Z'));
  assert.equal(daily, Date.parse('2030-04-06T15:30:00Z'));
});

/** Runs the scheduler as the upkeep timer would, a little late each time, until `end`; returns the fire times. */
async function drive(engine: ReturnType<typeof makeEngine>['engine'], clock: ReturnType<typeof makeEngine>['clock'], scheduler: Scheduler, end: number): Promise<number[]> {
  const fires: number[] = [];
  while (clock.ms < end) {
    const at = await engine.nextWakeAt();
    if (at === null) assert.fail(`the schedule has no next tick at ${new Date(clock.ms).toISOString()}`);
    if (at > end) break;
    clock.ms = Math.max(at, clock.ms + 5) + 2;
    if ((await scheduler.fireDue()).fired > 0) fires.push(clock.ms);
  }
  return fires;
}

test('an hourly schedule in Lord Howe fires once an hour across the end of daylight saving time', async (t) => {
  const { engine, clock } = makeEngine(t);
  clock.ms = Date.parse('2030-04-06T10:00:00Z');
  const spec = { cron: '0 * * * *', timezone: 'Australia/Lord_Howe' };
  await engine.createSchedule({ name: 'hourly', ...spec, ...JOB, missedPolicy: 'runOnce' }, nextFireTime(spec, clock.ms));
  const fires = await drive(engine, clock, new Scheduler(engine, 5000, quiet, clock.now), Date.parse('2030-04-06T18:00:00Z'));
  assert.equal(fires.length, 7); // 11:00, 12:00, 13:00, 14:00, then 15:30, 16:30, 17:30
  assert.equal((await engine.getQueue('reports')).counts.queued, 7);
});

test('a daily schedule in Lord Howe keeps a next tick across the end of daylight saving time', async (t) => {
  const { engine, clock } = makeEngine(t);
  clock.ms = Date.parse('2030-04-01T00:00:00Z');
  const spec = { cron: '0 2 * * *', timezone: 'Australia/Lord_Howe' };
  await engine.createSchedule({ name: 'daily', ...spec, ...JOB }, nextFireTime(spec, clock.ms));
  const fires = await drive(engine, clock, new Scheduler(engine, 5000, quiet, clock.now), Date.parse('2030-04-11T00:00:00Z'));
  assert.equal(fires.length, 10);
  assert.notEqual((await engine.getSchedule('daily')).nextRunAt, null);
});

test('after the clock steps back an hour, an every-minute schedule fires every minute again', async (t) => {
  const { engine, clock } = makeEngine(t);
  clock.ms = Date.parse('2030-01-01T10:00:00.003Z');
  await engine.createSchedule({ name: 'minutely', cron: '* * * * *', timezone: 'UTC', ...JOB }, Date.parse('2030-01-01T10:00:00Z'));
  const scheduler = new Scheduler(engine, 5000, quiet, clock.now);
  assert.equal((await scheduler.fireDue()).fired, 1);
  clock.advance(-3_600_000);
  let fired = 0;
  for (let second = 0; second < 600; second++) {
    clock.advance(1000);
    fired += (await scheduler.fireDue()).fired;
  }
  assert.equal(fired, 10);
  assert.equal((await engine.getSchedule('minutely')).nextRunAt, Date.parse('2030-01-01T09:11:00Z'));
});

test('a tick skipped by the missed-run policy leaves the last run time alone', async (t) => {
  const { engine, clock } = makeEngine(t);
  const due = clock.ms + 60_000;
  await engine.createSchedule({ name: 'minutely', cron: '* * * * *', timezone: 'UTC', ...JOB, missedPolicy: 'skip' }, due);
  const scheduler = new Scheduler(engine, 5000, quiet, clock.now);
  clock.ms = due + 1;
  assert.equal((await scheduler.fireDue()).fired, 1);
  const ranAt = (await engine.getSchedule('minutely')).lastRunAt;
  assert.equal(ranAt, due + 1);
  clock.ms = due + 10 * 60_000; // nine ticks late: skipped
  assert.deepEqual(await scheduler.fireDue(), { fired: 0, skipped: 1 });
  const after = await engine.getSchedule('minutely');
  assert.deepEqual([after.lastRunAt, after.nextRunAt], [ranAt, due + 11 * 60_000]);
});
