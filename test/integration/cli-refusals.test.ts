/**
 * What the `spool` command says when it cannot do what was asked, as a real process against a
 * real daemon: a job heavier than its queue's concurrency is refused at enqueue (and a
 * concurrency below a waiting job's weight), a queued job's retry names the command that runs it
 * sooner, a bulk cancel of finished jobs says why once, "did you mean" leaves short names alone,
 * and `spool daemon status` shows where the metrics are.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { freePort } from '../helpers/ports';
import { runCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });

before(async () => {
  daemon = await startDaemon({ args: ['--metrics', `127.0.0.1:${await freePort()}`] });
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

test("enqueue --weight heavier than the queue's concurrency is refused naming both; so is a concurrency below a waiting job's weight", async () => {
  assert.equal((await spool(['queue', 'r-heavy', 'set', '--concurrency', '2'])).code, 0);
  const heavy = await spool(['enqueue', 'r-heavy', '--kind', 'k', '--weight', '3']);
  assert.equal(heavy.code, 1);
  assert.match(heavy.stderr, /^spool: --weight 3 is more than the concurrency of queue "r-heavy" \(2\): the job could never start\. Give it a weight of at most 2, or raise the queue's concurrency to 3 first \(spool queue r-heavy set --concurrency 3\)\.\n$/);
  assert.equal((await client.call('jobs.list', { queue: 'r-heavy' })).jobs.length, 0, 'nothing was enqueued');

  assert.equal((await spool(['enqueue', 'r-lower', '--kind', 'k', '--weight', '4'])).code, 0);
  const lower = await spool(['queue', 'r-lower', 'set', '--concurrency', '2']);
  assert.equal(lower.code, 1);
  assert.match(lower.stderr, /^spool: --concurrency 2 for queue "r-lower" would leave 1 waiting job that weighs 4 unable ever to start\. .*keep a concurrency of at least 4\.\n$/);
  assert.equal((await client.call('queues.get', { name: 'r-lower' })).queue.concurrency, null, 'unchanged');
});

test('retrying a queued job says which command runs it sooner, and that command works', async () => {
  const { job } = await client.call('jobs.enqueue', { queue: 'r-sooner', kind: 'k', delayMs: 3_600_000 });
  const r = await spool(['retry', job.id]);
  assert.equal(r.code, 1);
  const command = `spool job run-now ${job.id}`;
  assert.ok(r.stderr.includes(`it is queued. It will run when its turn comes; to run it sooner, run it now: ${command}\n`), r.stderr);
  const updated = await spool(['job', 'run-now', job.id]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.ok((await client.call('jobs.get', { id: job.id })).job.runAt <= Date.now());
});

test('cancel --state completed over many finished jobs says why once, not once per job', async () => {
  for (let i = 0; i < 5; i++) await client.call('jobs.enqueue', { queue: 'r-finished', kind: 'k' });
  const { jobs } = await client.call('jobs.claim', { workerId: 'r-w', queues: ['r-finished'], max: 5 });
  assert.equal(jobs.length, 5);
  for (const job of jobs) await client.call('jobs.complete', { id: job.id, workerId: 'r-w', result: null });
  const r = await spool(['cancel', '--queue', 'r-finished', '--state', 'completed']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'Cancelled 0 jobs.\n');
  assert.match(r.stderr, /^Cannot cancel 5 jobs \(\S+ and 4 more; --json lists them\): they are already finished \(completed\)\. Retry them to run them again, or delete them\.\n$/);
  const json = await spool(['cancel', '--queue', 'r-finished', '--state', 'completed', '--json']);
  assert.equal((JSON.parse(json.stdout) as { errors: unknown[] }).errors.length, 5, '--json still lists every job');
});

test('"did you mean" leaves a short name alone, and still catches a longer one', async () => {
  await client.call('queues.configure', { name: 'cas' });
  await client.call('queues.configure', { name: 'images' });
  const short = await spool(['enqueue', 'cap', '--kind', 'k']);
  assert.equal(short.code, 0, short.stderr);
  assert.doesNotMatch(short.stderr, /did you mean/);
  const long = await spool(['enqueue', 'imgaes', '--kind', 'k']);
  assert.match(long.stderr, /did you mean "images"\?/);
});

test('spool daemon status shows the metrics address', async () => {
  const status = await client.call('daemon.status');
  assert.match(status.metrics ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const r = await spool(['daemon', 'status']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^metrics: +${(status.metrics ?? '').replace(/[.]/g, '\\.')}$`, 'm'));
});
