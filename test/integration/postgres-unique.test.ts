/**
 * Unique jobs, debounce and throttle across two real daemons (dist/daemon.js with --store) on
 * one PostgreSQL database: many enqueues of the same unique job at once, through both daemons'
 * sockets and through the `spool` command, end with one job; a burst of debounced enqueues with
 * one queued job; throttled enqueues at once with run times spaced by the throttle, none shared.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { assertNoDriverWarnings, sharedPostgres } from '../helpers/postgres';
import { runCli } from './cli-run';

const daemons: TestDaemon[] = [];
after(async () => {
  for (const d of daemons) assertNoDriverWarnings(d.log());
  await Promise.all(daemons.map((d) => d.dispose()));
});

async function twoDaemons(): Promise<{ url: string; pair: TestDaemon[]; clients: SpoolClient[] }> {
  const url = await (await sharedPostgres()).database();
  const pair: TestDaemon[] = [];
  for (let i = 0; i < 2; i += 1) {
    const d = await startDaemon({ args: ['--store', url] });
    daemons.push(d);
    pair.push(d);
  }
  return { url, pair, clients: await Promise.all(pair.map((d) => d.client())) };
}

async function rows<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

test('two daemons enqueueing the same unique job at once, 200 times over and from the CLI, make one job', async () => {
  const { url, pair, clients } = await twoDaemons();
  const params = { queue: 'pg-unique', kind: 'report', payload: { month: '2026-11' }, unique: { for: '1h' } };
  const viaCli = pair.map((d) => runCli(['enqueue', 'pg-unique', '--kind', 'report', '--payload', '{"month":"2026-11"}', '--unique-for', '1h'], { socketPath: d.socketPath }));
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (clients[i % 2] as SpoolClient).call('jobs.enqueue', params)));
  const printed = await Promise.all(viaCli);
  for (const r of printed) assert.equal(r.code, 0, r.stderr);
  const ids = new Set([...results.map((r) => r.job.id), ...printed.map((r) => r.stdout.trim())]);
  assert.equal(ids.size, 1, `one job id in every answer, got ${ids.size}`);
  const created = results.filter((r) => r.created).length + printed.filter((r) => r.stderr === '').length;
  assert.equal(created, 1, 'one answer says it created the job; the others say why not');
  const stored = await rows<{ n: string }>(url, "SELECT count(*) AS n FROM jobs WHERE queue = 'pg-unique'");
  assert.equal(Number(stored[0]?.n), 1);
});

test('a debounced burst across two daemons leaves one queued job; a throttled burst is spaced by the throttle', async () => {
  const { url, clients } = await twoDaemons();
  const saves = await Promise.all(Array.from({ length: 60 }, (_, n) => (clients[n % 2] as SpoolClient).call('jobs.enqueue', { queue: 'pg-debounce', kind: 'build', payload: { n }, debounce: '1h' })));
  assert.equal(new Set(saves.map((r) => r.job.id)).size, 1);
  assert.equal(saves.filter((r) => r.created).length, 1);
  const debounced = await rows<{ n: string }>(url, "SELECT count(*) AS n FROM jobs WHERE queue = 'pg-debounce' AND state = 'queued'");
  assert.equal(Number(debounced[0]?.n), 1);

  const throttled = await Promise.all(Array.from({ length: 20 }, (_, n) => (clients[n % 2] as SpoolClient).call('jobs.enqueue', { queue: 'pg-throttle', kind: 'sync', throttle: '10m' })));
  const runAts = throttled.map((r) => r.job.runAt).sort((a, b) => a - b);
  assert.equal(new Set(throttled.map((r) => r.job.id)).size, 20, 'every throttled enqueue makes a job');
  const gaps = runAts.slice(1).map((at, i) => at - (runAts[i] ?? 0));
  assert.ok(gaps.every((gap) => gap >= 600_000), `starts at least 10m apart: ${gaps.join(', ')}`);
  assert.equal(throttled.filter((r) => r.reason === 'throttled').length, 19);
});
