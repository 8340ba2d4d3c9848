/**
 * A worker that hangs up while its long-poll claim is talking to the database is answered with no
 * jobs; the jobs that claim then takes must not stay running for nobody until their lease runs
 * out. A real daemon on PostgreSQL, a real worker socket, and a table lock held by the test so the
 * claim is provably in flight when the worker hangs up.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as http from 'node:http';
import pg from 'pg';
import { RawConnection, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { freePort } from '../helpers/ports';
import { sharedPostgres } from '../helpers/postgres';

const daemons: TestDaemon[] = [];

/** The daemon's `spool_connected_workers` gauge, read from its metrics endpoint. */
function connectedWorkers(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/metrics' }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve(Number(/^spool_connected_workers(?:\{[^}]*\})? (\d+)$/m.exec(body)?.[1] ?? 'NaN')));
      })
      .on('error', reject);
  });
}
after(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
});

test('PostgreSQL: jobs claimed for a worker that hung up mid-claim go back to the queue at once', async () => {
  const url = await (await sharedPostgres()).database();
  const port = await freePort();
  const daemon = await startDaemon({ args: ['--store', url, '--metrics', `127.0.0.1:${port}`] });
  daemons.push(daemon);
  const client = await daemon.client();
  // A queue with a concurrency limit: its claims lock its row, which the test can hold.
  await client.call('queues.configure', { name: 'hangup', concurrency: 10 });
  // Due in a few seconds, so the worker's first claim finds nothing and parks.
  const { job } = await client.call('jobs.enqueue', { queue: 'hangup', kind: 'noop', payload: null, delayMs: 3000, timeoutMs: 600_000 });

  const worker = await RawConnection.open(daemon.socketPath);
  await worker.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'jobs.claim', params: { workerId: 'w-hangup', queues: ['hangup'], kinds: ['noop'], max: 1, waitMs: 60_000 } }) + '\n');

  // The worker counts as connected once its first claim has answered nothing, just before it parks.
  await waitFor('the worker to park its claim', async () => (await connectedWorkers(port)) === 1);

  // The claim for the parked worker, once the job is due, waits behind this lock on the queue's
  // row; nothing else the daemon does touches it.
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('BEGIN');
    await lock.query(`SELECT 1 FROM queues WHERE name = 'hangup' FOR UPDATE`);
    await waitFor('the claim for the parked worker to wait on the lock', async () => {
      const { rows } = await lock.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`);
      return (rows[0]?.n ?? 0) > 0;
    });

    // The worker hangs up: its wait is answered with no jobs.
    worker.endWriting();
    assert.deepEqual(await worker.next(), { jsonrpc: '2.0', id: 1, result: { jobs: [] } });
    await worker.closed;
  } finally {
    await lock.query('ROLLBACK').catch(() => undefined);
    await lock.end();
  }

  // The claim now commits for the worker that is gone; its job goes back to the queue, due at once
  // (`retrying`, as a job a stopping worker hands back is).
  await waitFor('the job claimed for the hung-up worker to be handed back', async () => (await client.call('jobs.get', { id: job.id })).job.state === 'retrying');
  const { job: after, runs } = await client.call('jobs.get', { id: job.id });
  assert.equal(runs.length, 1);
  assert.equal(runs[0]?.outcome, 'interrupted');
  assert.match(runs[0]?.error ?? '', /hung up before the claim was answered/);
  assert.equal(after.attempts, 0, 'the attempt is given back');

  // Another worker takes it and finishes it: nothing lost, nothing run twice.
  const { jobs } = await client.call('jobs.claim', { workerId: 'w-next', queues: ['hangup'], kinds: ['noop'], max: 1, waitMs: 5000 });
  assert.deepEqual(jobs.map((j) => j.id), [job.id]);
  const done = await client.call('jobs.complete', { id: job.id, workerId: 'w-next', result: null });
  assert.equal(done.job.state, 'completed');
});
