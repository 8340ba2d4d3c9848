/**
 * A worker (the Node worker library, shared/client/worker.ts) attached to a real daemon on PostgreSQL,
 * finishing a job while PostgreSQL is stopped: the complete is answered StoreUnavailable, which
 * says nothing about the result, so the worker sends it again until the database is back rather
 * than failing the job; the job ends completed, on its first attempt, with its result. The same
 * for the daemon's own executors: a shell job that ends during the outage is recorded once the
 * database is back, not left running to be reaped and run again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import { runWorker } from '../../shared/client/worker';
import { startDaemon, waitFor } from '../helpers/daemon';
import { PgServer } from '../helpers/postgres';

test('a job that finishes while PostgreSQL is down is completed once it is back, not failed', async (t) => {
  const server = await PgServer.start();
  t.after(() => server.destroy());
  const url = await server.database();
  const daemon = await startDaemon({ args: ['--store', url] });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const { job } = await client.call('jobs.enqueue', { queue: 'reports', kind: 'report', timeoutMs: 120_000 });

  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  const errors: Error[] = [];
  const worker = await runWorker({
    socketPath: daemon.socketPath,
    queues: ['reports'],
    kinds: ['report'],
    handler: async () => {
      started = true;
      await finished;
      return { pages: 12 };
    },
    onError: (error) => errors.push(error),
  });
  t.after(() => worker.stop());
  await waitFor('the worker to start the job', () => started, 15_000);

  server.stopImmediate();
  finish();
  await waitFor('the worker\'s complete to meet the outage', () => errors.some((e) => e instanceof SpoolError && e.code === ErrorCode.StoreUnavailable), 15_000);
  await server.startAgain();

  const row = await waitFor('the job to be completed', async () => {
    const check = new pg.Client({ connectionString: url });
    check.on('error', () => undefined);
    try {
      await check.connect();
      const { rows } = await check.query<{ state: string; attempts: number; result: unknown }>('SELECT state, attempts, result FROM jobs WHERE id = $1', [job.id]);
      return rows[0]?.state === 'completed' ? rows[0] : undefined;
    } catch {
      return undefined;
    } finally {
      await check.end().catch(() => undefined);
    }
  }, 40_000);
  assert.equal(row.attempts, 1, 'completed on its first attempt');
  assert.deepEqual(typeof row.result === 'string' ? JSON.parse(row.result) : row.result, { pages: 12 });
  assert.ok(!errors.some((e) => /refused the result/.test(e.message)), 'never taken for a refusal of the result');
});

test('a shell job that ends while PostgreSQL is down is recorded completed once it is back, not run again', async (t) => {
  const server = await PgServer.start();
  t.after(() => server.destroy());
  const url = await server.database();
  // Debug lines on: the daemon's retries of the outcome are debug lines.
  const daemon = await startDaemon({ args: ['--store', url], env: { ...process.env, SPOOL_DEBUG: '1' } });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const go = path.join(daemon.dir, 'go');
  const runs = path.join(daemon.dir, 'runs');
  const { job } = await client.call('jobs.enqueue', { queue: 'builds', kind: 'shell', payload: { command: `echo run >> ${runs}; while [ ! -f ${go} ]; do sleep 0.05; done` }, timeoutMs: 120_000 });
  await waitFor('the shell job to start', () => fs.existsSync(runs), 15_000);

  server.stopImmediate();
  fs.writeFileSync(go, '');
  await waitFor('the daemon to meet the outage recording the outcome', () => /The outcome of a built-in job could not be stored yet/.test(daemon.log()), 15_000);
  await server.startAgain();
  const row = await waitFor('the job to be completed', async () => {
    const check = new pg.Client({ connectionString: url });
    check.on('error', () => undefined);
    try {
      await check.connect();
      const { rows } = await check.query<{ state: string; attempts: number }>('SELECT state, attempts FROM jobs WHERE id = $1', [job.id]);
      return rows[0]?.state === 'completed' ? rows[0] : undefined;
    } catch {
      return undefined;
    } finally {
      await check.end().catch(() => undefined);
    }
  }, 40_000);
  assert.equal(row.attempts, 1);
  assert.equal(fs.readFileSync(runs, 'utf8'), 'run\n', 'the command ran once');
});
