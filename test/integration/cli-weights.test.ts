/**
 * Job weights and worker capacities through the `spool` command as a real process against a
 * real daemon: `enqueue --weight`, the weight in `spool job` and `spool jobs`, and
 * `spool work --capacity` holding no more weight than its capacity at once. Also pausing a
 * queue before its first job.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli, startCli, stopCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

test('enqueue --weight stores the weight; spool job shows it, spool jobs adds a WEIGHT column only when a job weighs more than 1', async () => {
  const plain = await spool(['enqueue', 'w-show', '--kind', 'k']);
  assert.equal(plain.code, 0, plain.stderr);
  const light = await spool(['jobs', '--queue', 'w-show']);
  assert.doesNotMatch(light.stdout, /WEIGHT/, 'the default listing is unchanged');
  const heavy = await spool(['enqueue', 'w-show', '--kind', 'k', '--weight', '4']);
  assert.equal(heavy.code, 0, heavy.stderr);
  const id = heavy.stdout.trim();
  assert.equal((await client.call('jobs.get', { id })).job.weight, 4);
  assert.match((await spool(['job', id])).stdout, /^weight: +4$/m);
  const listed = await spool(['jobs', '--queue', 'w-show']);
  assert.match(listed.stdout, /STATE +WEIGHT +TRIES/);
  const bad = await spool(['enqueue', 'w-show', '--kind', 'k', '--weight', '0']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--weight/);
});

test('spool work --capacity holds no more job weight at once than its capacity', async (t) => {
  const queue = 'w-capacity';
  const cli = startCli(['work', queue, '--exec', 'sleep 0.3', '--capacity', '4', '--worker-id', 'w-cap', '--quiet'], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  await waitFor('the worker to register its capacity', async () => (await client.call('workers.list', {})).workers.find((w) => w.id === 'w-cap' && w.capacity === 4));
  const ids: string[] = [];
  for (const weight of [3, 2, 1, 1, 3]) ids.push((await client.call('jobs.enqueue', { queue, kind: 'k', weight })).job.id);
  // Sample the weight the worker holds while the jobs run: never over 4. One jobs.list call reads
  // one snapshot; reading the jobs one by one could count a job that finished and the one that
  // took its place as both running.
  let most = 0;
  const done = await waitFor('every job to finish', async () => {
    const running = (await client.call('jobs.list', { queue, states: ['running'], limit: 10 })).jobs;
    most = Math.max(most, running.reduce((sum: number, j: Job) => sum + j.weight, 0));
    const jobs = await Promise.all(ids.map(async (id) => (await client.call('jobs.get', { id })).job));
    return jobs.every((j) => j.state === 'completed') ? jobs : undefined;
  });
  assert.equal(done.length, 5);
  assert.ok(most <= 4, `held ${most} at once`);
});

test('spool queue Q pause works before the queue has a job, and the job enqueued then waits', async () => {
  const paused = await spool(['queue', 'w-fresh', 'pause']);
  assert.equal(paused.code, 0, paused.stderr);
  assert.match(paused.stdout + paused.stderr, /Paused w-fresh/);
  const { job } = await client.call('jobs.enqueue', { queue: 'w-fresh', kind: 'shell', payload: { command: 'true' } });
  const q = (await client.call('queues.get', { name: 'w-fresh' })).queue;
  assert.equal(q.paused, true);
  assert.equal((await client.call('jobs.get', { id: job.id })).job.state, 'queued');
  assert.equal((await spool(['queue', 'w-fresh', 'resume'])).code, 0);
});
