/**
 * Several real daemons (dist/daemon.js with --store) on one PostgreSQL database, as a team runs
 * them: every job is claimed and completed exactly once whichever daemon its worker is attached
 * to; and the database going away and coming back loses nothing that was acknowledged, while
 * every daemon answers plainly meanwhile and reconnects by itself.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { SpoolClient } from '../../shared/client';
import { ErrorCode } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { PgServer, sharedPostgres } from '../helpers/postgres';

const daemons: TestDaemon[] = [];
after(async () => {
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
async function work(client: SpoolClient, workerId: string, queue: string, seen: Map<string, string>, duplicates: string[], stop: () => boolean): Promise<void> {
  while (!stop()) {
    const { jobs } = await client.call('jobs.claim', { workerId, queues: [queue], kinds: ['noop'], max: 50, waitMs: 200 }, { timeoutMs: 10_000 });
    for (const job of jobs) {
      if (seen.has(job.id)) duplicates.push(job.id);
      seen.set(job.id, workerId);
    }
    await Promise.all(jobs.map((job) => client.call('jobs.complete', { id: job.id, workerId, result: null })));
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
  const workers = clients.flatMap((client, d) => [0, 1].map((w) => work(client, `worker-${d}-${w}`, 'team', seen, duplicates, () => seen.size >= 10_000)));
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
