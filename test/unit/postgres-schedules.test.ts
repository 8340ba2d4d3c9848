/**
 * Schedule ticks on PostgreSQL with several daemons at once: three engines (three pools, as
 * three daemons would have) on one database, each with its own scheduler, all woken for the same
 * tick at the same moment. Each tick must enqueue exactly one job in total, whatever the
 * interleaving; and a fire from a stale reading (the next run time of a tick already fired) must
 * enqueue nothing, both when the compare-and-swap sees it and when only the unique
 * (schedule, fire time) can.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { Engine } from '../../daemon/engine';
import type { Logger } from '../../daemon/lifecycle/logger';
import { Scheduler } from '../../daemon/scheduler/scheduler';
import { postgresStore } from '../../daemon/storage/postgres';
import { nextFireTime } from '../../shared/domain/cron';
import { FakeClock } from '../helpers/engineTest';
import { failOnDriverWarnings, sharedPostgres } from '../helpers/postgres';

failOnDriverWarnings();

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const EVERY_MINUTE = { cron: '* * * * *', timezone: 'UTC' };
const SCHEDULE = { name: 'tick', ...EVERY_MINUTE, queue: 'ticks', job: { kind: 'shell', payload: { command: 'true' } } };

interface Daemons {
  engines: Engine[];
  clock: FakeClock;
  /** Runs one statement on the database, outside the engines. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

async function daemons(t: TestContext, count: number): Promise<Daemons> {
  const url = await (await sharedPostgres()).database(t);
  const clock = new FakeClock();
  const engines = Array.from({ length: count }, () => {
    const engine = new Engine({ store: postgresStore({ url, poolSize: 3 }), now: clock.now, random: () => 0.5 });
    t.after(() => engine.close());
    return engine;
  });
  // A pool, not one client: claimers ask at once, and one client would queue a query behind
  // another's (which node-postgres warns of, and pg 9 refuses).
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // The database is dropped (its connections ended) when the test ends, maybe before this pool closes.
  pool.on('error', () => undefined);
  t.after(() => pool.end().catch(() => undefined));
  return { engines, clock, sql: (text, values = []) => pool.query(text, values) };
}

/** The first minute after `ms`. */
function nextMinute(ms: number): number {
  const next = nextFireTime(EVERY_MINUTE, ms);
  assert.ok(next !== null);
  return next;
}

async function jobCount(sql: Daemons['sql']): Promise<number> {
  return Number((await sql(`SELECT count(*) AS n FROM jobs WHERE queue = 'ticks'`)).rows[0].n);
}

test('three daemons woken for the same tick enqueue exactly one job per tick, over 40 ticks', async (t) => {
  const { engines, clock, sql } = await daemons(t, 3);
  const [first] = engines;
  assert.ok(first);
  const schedulers = engines.map((engine) => new Scheduler(engine, 5000, quiet, clock.now));
  await first.createSchedule({ ...SCHEDULE, missedPolicy: 'skip' }, nextMinute(clock.ms));
  const TICKS = 40;
  for (let tick = 1; tick <= TICKS; tick += 1) {
    const due = (await first.getSchedule('tick')).nextRunAt;
    assert.ok(due !== null);
    clock.ms = due + 10;
    const outcomes = await Promise.all(schedulers.map((s) => s.fireDue()));
    const fired = outcomes.reduce((sum, o) => sum + o.fired, 0);
    assert.equal(fired, 1, `tick ${tick}: ${fired} daemons fired it`);
    assert.equal(await jobCount(sql), tick, `tick ${tick}: jobs enqueued so far`);
  }
  const fires = await sql('SELECT fire_at, job_id FROM schedule_fires WHERE schedule = $1 ORDER BY fire_at', ['tick']);
  assert.equal(fires.rows.length, TICKS);
  assert.equal(new Set(fires.rows.map((r: { job_id: string }) => r.job_id)).size, TICKS);
  const jobs = await sql(`SELECT id FROM jobs WHERE queue = 'ticks'`);
  assert.deepEqual(new Set(jobs.rows.map((r: { id: string }) => r.id)), new Set(fires.rows.map((r: { job_id: string }) => r.job_id)));
  assert.equal((await first.stats()).queues.find((q) => q.name === 'ticks')?.counts.queued, TICKS);
  assert.equal((await first.verifyCounters()).ok, true);
});

test('three daemons firing the same tick through the store directly: one job, and the others get null', async (t) => {
  const { engines, clock, sql } = await daemons(t, 3);
  const [first] = engines;
  assert.ok(first);
  let due = nextMinute(clock.ms);
  await first.createSchedule({ ...SCHEDULE, missedPolicy: 'skip' }, due);
  for (let tick = 1; tick <= 25; tick += 1) {
    clock.ms = due + 1;
    const next = due + 60_000;
    const results = await Promise.all(engines.map((e) => e.fireSchedule({ name: 'tick', expectedNextRunAt: due, newNextRunAt: next, enqueue: true })));
    const winners = results.filter((r) => r !== null);
    assert.equal(winners.length, 1, `tick ${tick}: ${winners.length} fires`);
    assert.ok(winners[0]?.job);
    assert.equal(await jobCount(sql), tick);
    due = next;
  }
});

test('a stale fire (the next run time of a tick already fired) enqueues nothing, even when next_run_at was put back', async (t) => {
  const { engines, clock, sql } = await daemons(t, 2);
  const [a, b] = engines;
  assert.ok(a && b);
  const due = nextMinute(clock.ms);
  await a.createSchedule({ ...SCHEDULE, missedPolicy: 'skip' }, due);
  clock.ms = due + 1;
  const won = await a.fireSchedule({ name: 'tick', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
  assert.ok(won?.job);
  // The compare-and-swap: b read next_run_at before a fired.
  assert.equal(await b.fireSchedule({ name: 'tick', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true }), null);
  assert.equal(await jobCount(sql), 1);
  // The backstop: next_run_at put back to the fired tick (a late writer), so the swap matches; the fire record still stops the job.
  await sql('UPDATE schedules SET next_run_at = $1 WHERE name = $2', [due, 'tick']);
  clock.ms = due + 2;
  assert.equal(await b.fireSchedule({ name: 'tick', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true }), null);
  assert.equal(await jobCount(sql), 1);
  const after = await a.getSchedule('tick');
  assert.deepEqual([after.lastJobId, after.lastRunAt, after.nextRunAt], [won.job.id, due + 1, due + 60_000], 'the stopped fire moved next_run_at on and nothing else');
  // The next tick fires as usual.
  clock.ms = due + 60_001;
  const next = await b.fireSchedule({ name: 'tick', expectedNextRunAt: due + 60_000, newNextRunAt: due + 120_000, enqueue: true });
  assert.ok(next?.job);
  assert.equal(await jobCount(sql), 2);
});
