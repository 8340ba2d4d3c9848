/**
 * The cron scheduler in real daemons: a per-second schedule fires on time; two daemons on one
 * database fire each tick once in total; ticks missed while the daemon was down follow the
 * schedule's policy.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { startDaemon, waitFor } from '../helpers/daemon';

async function jobsOf(client: SpoolClient, queue: string): Promise<Job[]> {
  return (await client.call('jobs.list', { queue, limit: 1000, order: 'oldest' })).jobs;
}

describe('scheduler', () => {
  test('a per-second schedule fires every second, on the second', async (t) => {
    const daemon = await startDaemon();
    t.after(() => daemon.dispose());
    const client = await daemon.client();
    await client.call('schedules.create', { name: 'every-second', cron: '* * * * * *', queue: 'ticks', job: { kind: 'tick' } });
    const jobs = await waitFor('four ticks', async () => {
      const list = await jobsOf(client, 'ticks');
      return list.length >= 4 ? list : undefined;
    });
    await client.call('schedules.disable', { name: 'every-second' });
    for (const job of jobs) assert.ok(job.createdAt % 1000 < 900, `fired ${job.createdAt % 1000} ms after the second`);
    const seconds = jobs.map((j) => Math.floor(j.createdAt / 1000));
    assert.equal(new Set(seconds).size, seconds.length, 'one job per tick');
    const span = (seconds[seconds.length - 1] ?? 0) - (seconds[0] ?? 0) + 1;
    assert.ok(jobs.length >= span - 1, `every second, not now and then: ${jobs.length} jobs over ${span} seconds`);
    const schedule = (await client.call('schedules.get', { name: 'every-second' })).schedule;
    assert.equal(schedule.lastJobId !== null || schedule.lastRunAt !== null, true);
  });

  test('two daemons on one database file fire each tick once in total', async (t) => {
    const first = await startDaemon();
    t.after(() => first.dispose());
    const second = await startDaemon({ dir: first.dir, socketPath: path.join(first.dir, 'second.sock'), dbPath: first.dbPath });
    t.after(() => second.dispose());
    const a = await first.client();
    const b = await second.client();
    await a.call('schedules.create', { name: 'shared', cron: '* * * * * *', queue: 'shared-ticks', job: { kind: 'tick' } });
    // The second daemon learns of the schedule when it next reads the due times; a change on
    // its own socket makes it read them now.
    await b.call('schedules.update', { name: 'shared', cron: '* * * * * *' });
    const jobs = await waitFor('six ticks', async () => {
      const list = await jobsOf(a, 'shared-ticks');
      return list.length >= 6 ? list : undefined;
    }, 30_000);
    // The second daemon fires too: with the first one gone, the ticks go on.
    const beforeStop = jobs.length;
    await first.stop();
    await waitFor('two more ticks from the second daemon alone', async () => (await jobsOf(b, 'shared-ticks')).length >= beforeStop + 2, 15_000);
    await b.call('schedules.disable', { name: 'shared' });
    const final = await jobsOf(b, 'shared-ticks');
    const seconds = final.map((j) => Math.floor(j.createdAt / 1000));
    assert.equal(new Set(seconds).size, seconds.length, `each tick once: ${JSON.stringify(seconds)}`);
    const span = seconds[seconds.length - 1] - seconds[0] + 1;
    assert.ok(final.length >= span - 1, `no tick lost: ${final.length} jobs over ${span} seconds`);
  });

  test('ticks missed while the daemon was down: skip enqueues nothing, runOnce enqueues one', async (t) => {
    const daemon = await startDaemon({ args: ['--schedule-grace', '500ms'] });
    t.after(() => daemon.dispose());
    const client = await daemon.client();
    // A yearly expression whose next tick is two seconds away: it falls while the daemon is down.
    const at = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
    const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
    const skip = await client.call('schedules.create', { name: 'skipper', cron, queue: 'missed-skip', job: { kind: 'x' }, missedPolicy: 'skip' });
    await client.call('schedules.create', { name: 'once', cron, queue: 'missed-once', job: { kind: 'x' }, missedPolicy: 'runOnce' });
    assert.equal(skip.schedule.nextRunAt, at.getTime());
    await daemon.stop();
    // The tick must be more than the grace period in the past when the daemon starts again.
    await waitFor('the tick to be missed', () => Date.now() > at.getTime() + 1500, 10_000);
    await daemon.restart();
    const after = await daemon.client();
    assert.equal((await jobsOf(after, 'missed-skip')).length, 0);
    assert.equal((await jobsOf(after, 'missed-once')).length, 1);
    for (const name of ['skipper', 'once']) {
      const { schedule } = await after.call('schedules.get', { name });
      assert.ok((schedule.nextRunAt ?? 0) > Date.now(), `${name} moved on to its next tick`);
    }
  });

  test('an enabled schedule left without a next run gets one back from enable or update', async (t) => {
    const daemon = await startDaemon();
    t.after(() => daemon.dispose());
    const client = await daemon.client();
    await client.call('schedules.create', { name: 'stuck', cron: '0 3 * * *', queue: 'stuck', job: { kind: 'x' } });
    // What a wrong answer of the cron parser once left behind: enabled, with nothing to fire.
    clearNextRun(daemon.dbPath, 'stuck');
    assert.equal((await client.call('schedules.get', { name: 'stuck' })).schedule.nextRunAt, null);
    const enabled = await client.call('schedules.enable', { name: 'stuck' });
    assert.ok((enabled.schedule.nextRunAt ?? 0) > Date.now(), 'enable gives it its next tick');

    clearNextRun(daemon.dbPath, 'stuck');
    const updated = await client.call('schedules.update', { name: 'stuck', queue: 'stuck-too' });
    assert.ok((updated.schedule.nextRunAt ?? 0) > Date.now(), 'so does an update that changes something else');
  });
});

/** Writes straight into the daemon's database file (a second connection, as another process would). */
function clearNextRun(dbPath: string, name: string): void {
  const db = new Database(dbPath);
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE schedules SET next_run_at = NULL WHERE name = ?').run(name);
  } finally {
    db.close();
  }
}
