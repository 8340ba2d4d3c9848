/**
 * Several real daemons (dist/daemon.js with --store) on one PostgreSQL database, as a team runs
 * them: every job is claimed and completed exactly once whichever daemon its worker is attached
 * to; a per-second schedule fires once per tick; a daemon killed with its worker's job gives the
 * job to another daemon after the lease (the maintenance lease moving with it); the database
 * going away and coming back loses nothing that was acknowledged, while every daemon answers
 * plainly meanwhile and reconnects by itself; and a database nobody answers at stops the start.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { SpoolClient } from '../../shared/client/client';
import { ErrorCode } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { PgServer, assertNoDriverWarnings, sharedPostgres } from '../helpers/postgres';

const daemons: TestDaemon[] = [];
after(async () => {
  // Overlapping queries on one client of a daemon's would show here (node-postgres warns of them).
  for (const d of daemons) assertNoDriverWarnings(d.log());
  await Promise.all(daemons.map((d) => d.dispose()));
});

async function daemonsOn(url: string, count: number, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<TestDaemon[]> {
  const started: TestDaemon[] = [];
  for (let i = 0; i < count; i += 1) {
    const d = await startDaemon({ args: ['--store', url, ...args], env: { ...process.env, ...env } });
    daemons.push(d);
    started.push(d);
  }
  return started;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A worker on `client`: claims up to 50 at a time, completes each, until `stop` says so. */
/** A worker's loop; `batched` claims only the fields it reads and completes with one jobs.completeMany. */
async function work(client: SpoolClient, workerId: string, queue: string, seen: Map<string, string>, duplicates: string[], stop: () => boolean, batched = false): Promise<void> {
  while (!stop()) {
    const { jobs } = await client.call('jobs.claim', { workerId, queues: [queue], kinds: ['noop'], max: 50, waitMs: 200, ...(batched ? { fields: ['attempts'] } : {}) }, { timeoutMs: 10_000 });
    for (const job of jobs) {
      if (seen.has(job.id)) duplicates.push(job.id);
      seen.set(job.id, workerId);
    }
    if (!batched) await Promise.all(jobs.map((job) => client.call('jobs.complete', { id: job.id, workerId, result: null })));
    else if (jobs.length > 0) {
      const done = await client.call('jobs.completeMany', { workerId, jobs: jobs.map((job) => ({ id: job.id })) }, { timeoutMs: 10_000 });
      assert.deepEqual([done.completed, done.failed], [jobs.length, []]);
    }
  }
}

test('three daemons on one database: 10,000 jobs, workers on all three, each job claimed and completed exactly once', async () => {
  const url = await (await sharedPostgres()).database();
  const three = await daemonsOn(url, 3);
  const clients = await Promise.all(three.map((d) => d.client()));
  // Enqueued through all three, in batches.
  for (let batch = 0; batch < 20; batch += 1) {
    const client = clients[batch % 3] as SpoolClient;
    await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: 500 }, (_, i) => ({ queue: 'team', kind: 'noop', payload: { n: batch * 500 + i } })) });
  }
  const seen = new Map<string, string>();
  const duplicates: string[] = [];
  const started = performance.now();
  // One worker on each daemon completes its batches with jobs.completeMany, the other job by job.
  const workers = clients.flatMap((client, d) => [0, 1].map((w) => work(client, `worker-${d}-${w}`, 'team', seen, duplicates, () => seen.size >= 10_000, w === 1)));
  await Promise.all(workers);
  const ms = performance.now() - started;
  console.log(`three daemons drained 10,000 jobs in ${Math.round(ms)} ms`);
  assert.deepEqual(duplicates, [], 'no job was claimed twice');
  assert.equal(seen.size, 10_000);
  const byDaemon = new Set([...seen.values()].map((w) => w.split('-')[1]));
  assert.equal(byDaemon.size, 3, 'workers of every daemon got jobs');
  await waitFor('every job to be completed', async () => {
    const [row] = await query<{ n: string }>(url, `SELECT count(*) AS n FROM jobs WHERE state = 'completed'`);
    return Number(row?.n) === 10_000;
  }, 20_000);
  const [check] = await query<{ jobs: string; once: string; runs: string }>(
    url,
    `SELECT count(*) AS jobs, count(*) FILTER (WHERE attempts = 1 AND runs = 1) AS once, (SELECT count(*) FROM job_runs) AS runs FROM jobs`,
  );
  assert.equal(Number(check?.jobs), 10_000);
  assert.equal(Number(check?.once), 10_000, 'every job ran one attempt, claimed once');
  assert.equal(Number(check?.runs), 0, 'no attempt failed or was given back');
  const stats = await (clients[0] as SpoolClient).call('stats.get');
  assert.equal(stats.totals.completed, 10_000, 'the counters agree');
});

test('PostgreSQL stopped at once and started again: the daemons answer StoreUnavailable meanwhile, reconnect, and lose no acknowledged job', async (t) => {
  const server = await PgServer.start();
  t.after(() => server.destroy());
  const url = await server.database();
  // Debug lines on: the background tasks' failures during the outage are logged at debug level only.
  const two = await daemonsOn(url, 2, [], { SPOOL_DEBUG: '1' });
  const clients = await Promise.all(two.map((d) => d.client()));
  const acknowledged: string[] = [];
  for (const client of clients) {
    const { results } = await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: 100 }, () => ({ queue: 'kept', kind: 'noop' })) });
    acknowledged.push(...results.map((r) => r.job.id));
  }

  server.stopImmediate();
  for (const client of clients) {
    await assert.rejects(client.call('jobs.enqueue', { queue: 'kept', kind: 'noop' }), (error: { code?: number; message?: string }) => {
      assert.equal(error.code, ErrorCode.StoreUnavailable, error.message);
      assert.match(error.message ?? '', /store is unavailable/);
      return true;
    });
  }
  // The heartbeat (every 2 s) meets the outage too: the daemon must ride that out as well.
  await waitFor('each daemon\'s heartbeat to meet the outage', () => two.every((d) => /debug Could not record the daemon as alive/.test(d.log())), 15_000);
  for (const d of two) assert.equal(d.process.exitCode, null, 'the daemon keeps running without its database');

  await server.startAgain();
  for (const client of clients) {
    await waitFor('the daemon to reach PostgreSQL again', async () => {
      try {
        const { job } = await client.call('jobs.enqueue', { queue: 'kept', kind: 'noop' });
        acknowledged.push(job.id);
        return true;
      } catch {
        return false;
      }
    }, 30_000);
  }
  const rows = await query<{ id: string }>(url, 'SELECT id FROM jobs');
  const stored = new Set(rows.map((r) => r.id));
  assert.deepEqual(acknowledged.filter((id) => !stored.has(id)), [], 'every acknowledged job is in the database');
  // And the daemons work again: drain them all through the first.
  const seen = new Map<string, string>();
  await work(clients[0] as SpoolClient, 'after', 'kept', seen, [], () => seen.size >= stored.size);
  for (const d of two) {
    assert.equal(d.process.exitCode, null);
    // The outage is two lines in the log, however many requests and background tasks met it.
    const loud = d.log().split('\n').filter((line) => / (warn|error) /.test(line));
    assert.equal(loud.length, 1, loud.join('\n'));
    assert.match(loud[0] ?? '', /The store is unavailable/);
    assert.match(d.log(), /info  The store is reachable again/);
  }
});

test('a per-second schedule with three daemons running fires once per tick, 30 ticks in a row', async () => {
  const url = await (await sharedPostgres()).database();
  const three = await daemonsOn(url, 3);
  const client = await (three[1] as TestDaemon).client();
  await client.call('schedules.create', { name: 'every-second', cron: '* * * * * *', queue: 'ticks', job: { kind: 'tick' } });
  type Fire = { fire_at: string; job_id: string | null };
  let fires: Fire[] = [];
  await waitFor('31 ticks to have fired', async () => {
    fires = await query<Fire>(url, `SELECT fire_at, job_id FROM schedule_fires WHERE schedule = 'every-second' ORDER BY fire_at`);
    return fires.length >= 31;
  }, 60_000);
  const times = fires.map((f) => Number(f.fire_at));
  // The first tick may have been skipped as missed while the schedule was being made: count 30
  // consecutive ticks after the first.
  const window = times.slice(1, 31);
  window.forEach((at, i) => {
    if (i > 0) assert.equal(at - (window[i - 1] as number), 1000, `tick ${i} follows the one before by one second`);
  });
  const jobs = await query<{ id: string }>(url, `SELECT id FROM jobs WHERE queue = 'ticks'`);
  const jobIds = new Set(jobs.map((j) => j.id));
  const fired = fires.filter((f) => f.job_id !== null);
  assert.equal(new Set(fired.map((f) => f.job_id)).size, fired.length, 'one job per fire');
  for (const f of fired) assert.ok(jobIds.has(f.job_id as string));
  assert.equal(jobIds.size, fired.length, 'no job without its fire record: no tick fired twice');
  assert.ok(fired.length >= 30);
});

test('a daemon killed with kill -9 while its worker holds a job: after the lease the job runs on another daemon, and the late complete is refused', async () => {
  const url = await (await sharedPostgres()).database();
  // The first daemon started holds the maintenance lease: killing it also tests the takeover.
  const [a, b] = await daemonsOn(url, 2, ['--grace', '0']);
  const onA = await (a as TestDaemon).client();
  const onB = await (b as TestDaemon).client();
  const { job } = await onA.call('jobs.enqueue', { queue: 'fragile', kind: 'work', timeoutMs: 2000, maxAttempts: 3 });
  const { jobs } = await onA.call('jobs.claim', { workerId: 'doomed', queues: ['fragile'], kinds: ['work'], waitMs: 5000 }, { timeoutMs: 10_000 });
  assert.equal(jobs[0]?.id, job.id);
  await (a as TestDaemon).kill();

  // After the lease runs out, the surviving daemon (leader by then) reaps it and a worker there gets it.
  const started = performance.now();
  let claimed: string | undefined;
  await waitFor('a worker on daemon B to get the job again', async () => {
    const r = await onB.call('jobs.claim', { workerId: 'survivor', queues: ['fragile'], kinds: ['work'], waitMs: 1000 }, { timeoutMs: 10_000 });
    claimed = r.jobs[0]?.id;
    return claimed === job.id;
  }, 30_000);
  console.log(`the job ran again ${Math.round(performance.now() - started)} ms after its daemon was killed`);

  await assert.rejects(onB.call('jobs.complete', { id: job.id, workerId: 'doomed', result: null }), (error: { code?: number; message?: string }) => {
    assert.equal(error.code, ErrorCode.LeaseLost, error.message);
    return true;
  });
  const done = await onB.call('jobs.complete', { id: job.id, workerId: 'survivor', result: null });
  assert.equal(done.job.state, 'completed');
  assert.equal(done.job.attempts, 2, 'the expired attempt counted, the second completed');
  assert.match((b as TestDaemon).log(), /This daemon runs the maintenance of the store now/);
});

test('spool daemon --store with a database nobody answers at fails plainly, exit 1, and leaves no socket', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-pg-refused-'));
  try {
    const socket = path.join(dir, 'spool.sock');
    // A port nothing listens on: made free by binding and closing it.
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = spawnSync(process.execPath, [path.resolve(__dirname, '..', '..', 'dist', 'cli.js'), '--socket', socket, 'daemon', '--db', path.join(dir, 'spool.db'), '--store', `postgres://spool:secret-pw@127.0.0.1:${port}/spool`], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^spool: The daemon cannot reach PostgreSQL at postgres:\/\/spool@127\.0\.0\.1:\d+\/spool, so it did not start: the connection was refused/);
    assert.doesNotMatch(r.stdout + r.stderr, /secret-pw/, 'the password is never printed');
    assert.equal(fs.existsSync(socket), false, 'no socket left behind');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
