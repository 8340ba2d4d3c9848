/**
 * Two real daemons (dist/daemon.js with --store) on one PostgreSQL database: what one does
 * reaches the clients of the other. A subscriber and `spool logs -f` on daemon A see a job
 * finish that a worker on daemon B completed; a worker long-polling on B gets a job enqueued on
 * A at once (through LISTEN/NOTIFY, well inside the poll fallback's interval).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { JobChangedEvent } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { assertNoDriverWarnings, sharedPostgres } from '../helpers/postgres';
import { startCli, stopCli } from './cli-run';

let a: TestDaemon;
let b: TestDaemon;

before(async () => {
  const url = await (await sharedPostgres()).database();
  a = await startDaemon({ args: ['--store', url] });
  b = await startDaemon({ args: ['--store', url] });
});
after(async () => {
  for (const d of [a, b]) if (d !== undefined) assertNoDriverWarnings(d.log());
  await a?.dispose();
  await b?.dispose();
});

test("a subscriber on daemon A sees a job finish that a worker on daemon B completed", async () => {
  const onA = await a.client();
  const onB = await b.client();
  const heard: JobChangedEvent[] = [];
  await onA.subscribe({ topics: ['jobs'] }, { 'jobs.changed': (event) => heard.push(event) });
  const { job } = await onA.call('jobs.enqueue', { queue: 'across', kind: 'remote-work' });
  const { jobs } = await onB.call('jobs.claim', { workerId: 'worker-b', queues: ['across'], kinds: ['remote-work'], waitMs: 10_000 }, { timeoutMs: 15_000 });
  assert.equal(jobs[0]?.id, job.id, 'the worker on daemon B claimed the job enqueued on daemon A');
  await waitFor('daemon A to announce the job running', () => heard.some((e) => e.id === job.id && e.state === 'running'), 10_000);
  await onB.call('jobs.complete', { id: job.id, workerId: 'worker-b', result: { ok: true } });
  await waitFor('daemon A to announce the job completed', () => heard.some((e) => e.id === job.id && e.state === 'completed'), 10_000);
  assert.deepEqual(
    heard.filter((e) => e.id === job.id).map((e) => e.state),
    ['queued', 'running', 'completed'],
    'each change once, in order',
  );
});

test('a subscriber on daemon A hears of a job deleted through daemon B, and of one deleted among many', async () => {
  const onA = await a.client();
  const onB = await b.client();
  const heard: JobChangedEvent[] = [];
  const queues: string[] = [];
  await onA.subscribe({ topics: ['jobs', 'queues'] }, { 'jobs.changed': (event) => heard.push(event), 'queues.changed': (event) => queues.push(event.name) });
  const { job } = await onA.call('jobs.enqueue', { queue: 'deleting', kind: 'doomed' });
  await waitFor('daemon A to announce the job', () => heard.some((e) => e.id === job.id));
  await onB.call('jobs.delete', { id: job.id });
  const deleted = await waitFor('daemon A to announce the job deleted', () => heard.find((e) => e.id === job.id && e.deleted === true), 10_000);
  assert.equal(deleted.queue, 'deleting');
  assert.equal(deleted.kind, 'doomed');
  // Too many to carry one by one in a notice: the queue is announced as changed instead.
  const { results } = await onA.call('jobs.enqueueBatch', { jobs: Array.from({ length: 200 }, () => ({ queue: 'deleting-many', kind: 'doomed' })) });
  // The queue's creation is announced first; only what comes after the delete counts.
  await waitFor('daemon A to announce the new queue', () => queues.includes('deleting-many'), 10_000);
  const before = queues.length;
  await onB.call('jobs.deleteMany', { ids: results.map((r) => r.job.id) });
  await waitFor('daemon A to announce the queue changed', () => queues.slice(before).includes('deleting-many'), 10_000);
});

test('a follower on daemon A gets the output lines a worker on daemon B logs while the job runs, batch by batch', async () => {
  const onA = await a.client();
  const onB = await b.client();
  const { job } = await onA.call('jobs.enqueue', { queue: 'chatty', kind: 'talk' });
  const lines: string[] = [];
  await onA.subscribe({ topics: ['output'], jobIds: [job.id] }, { 'jobs.output': (event) => lines.push(...event.lines.map((l) => l.text)) });
  const { jobs } = await onB.call('jobs.claim', { workerId: 'talker', queues: ['chatty'], kinds: ['talk'], waitMs: 10_000 }, { timeoutMs: 15_000 });
  assert.equal(jobs[0]?.id, job.id);
  for (let batch = 1; batch <= 4; batch += 1) {
    const sent = [`line ${batch}a`, `line ${batch}b`];
    await onB.call('jobs.log', { id: job.id, workerId: 'talker', lines: sent });
    // Each batch arrives on A while the job still runs on B.
    await waitFor(`batch ${batch} on daemon A`, () => lines.length >= batch * 2, 10_000);
  }
  assert.deepEqual(lines, ['line 1a', 'line 1b', 'line 2a', 'line 2b', 'line 3a', 'line 3b', 'line 4a', 'line 4b'], 'each line once, in order');
  assert.equal((await onA.call('jobs.get', { id: job.id })).job.state, 'running');
  await onB.call('jobs.complete', { id: job.id, workerId: 'talker', result: null });
});

test('spool logs -f on daemon A prints the output and exits 0 when a worker on daemon B completes the job', async (t) => {
  const onA = await a.client();
  const onB = await b.client();
  const { job } = await onA.call('jobs.enqueue', { queue: 'followed', kind: 'remote-work' });
  const { jobs } = await onB.call('jobs.claim', { workerId: 'worker-b', queues: ['followed'], kinds: ['remote-work'], waitMs: 10_000 }, { timeoutMs: 15_000 });
  assert.equal(jobs[0]?.id, job.id);
  await onB.call('jobs.log', { id: job.id, workerId: 'worker-b', lines: ['started on B'] });
  const cli = startCli(['logs', '-f', job.id], { socketPath: a.socketPath });
  t.after(() => stopCli(cli));
  // Printed by its first read, which comes after it subscribed: from now on only an event from
  // daemon A can tell it the job finished.
  await waitFor('the CLI to print the first line', () => cli.stdout().includes('started on B\n'), 10_000);
  assert.equal(cli.process.exitCode, null, 'still following the running job');
  await onB.call('jobs.log', { id: job.id, workerId: 'worker-b', lines: ['done on B'] });
  await onB.call('jobs.complete', { id: job.id, workerId: 'worker-b', result: null });
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'started on B\ndone on B\n');
});

test('a worker long-polling on daemon B gets a job enqueued on daemon A within milliseconds', async (t) => {
  const onA = await a.client();
  const onB = await b.client();
  const waits: number[] = [];
  for (let round = 0; round < 20; round += 1) {
    const claim = onB.call('jobs.claim', { workerId: 'poller-b', queues: ['latency'], kinds: ['ping'], waitMs: 10_000 }, { timeoutMs: 15_000 });
    // A round trip to daemon B first, so that the claim is (almost always) waiting already.
    await onB.call('daemon.status');
    const started = performance.now();
    const { job } = await onA.call('jobs.enqueue', { queue: 'latency', kind: 'ping' });
    const { jobs } = await claim;
    waits.push(performance.now() - started);
    assert.equal(jobs[0]?.id, job.id, `round ${round}: the waiting worker got the job`);
    await onB.call('jobs.complete', { id: job.id, workerId: 'poller-b', result: null });
  }
  waits.sort((x, y) => x - y);
  const median = waits[Math.floor(waits.length / 2)] ?? Infinity;
  t.diagnostic(`enqueue on A to claim on B, ms: median ${median.toFixed(1)}, slowest ${(waits[waits.length - 1] ?? Infinity).toFixed(1)}`);
  // The due-job check beside LISTEN runs every 2 s: woken by it alone, the median would be near 1 s.
  assert.ok(median < 250, `median enqueue-to-claim ${Math.round(median)} ms (all: ${waits.map(Math.round).join(', ')})`);
});
