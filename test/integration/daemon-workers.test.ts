/**
 * Remote workers over the socket: long-poll claims woken by an enqueue, leases extended by
 * heartbeats, a silent worker losing its job to another, and its late complete refused; a batch
 * completed in one jobs.completeMany.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { rejectsWith } from '../helpers/errors';

describe('remote workers', () => {
  let daemon: TestDaemon;
  before(async () => {
    daemon = await startDaemon();
  });
  after(() => daemon.dispose());

  test('a waiting claim returns as soon as a job is enqueued, long before its waitMs', async () => {
    const worker = await daemon.client();
    const producer = await daemon.client();
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      const claim = worker.call('jobs.claim', { workerId: 'poller', queues: ['lp'], waitMs: 30_000 });
      // The claim must be parked before the enqueue, or this would test an ordinary claim. The
      // daemon handles one connection's lines in order, so once a later request on the same
      // connection is answered, the claim has looked for a job, found none, and is waiting.
      await worker.call('daemon.status');
      const { job } = await producer.call('jobs.enqueue', { queue: 'lp', kind: 'ping' });
      const enqueuedAt = Date.now();
      const { jobs } = await claim;
      const latency = Date.now() - enqueuedAt;
      assert.equal(jobs.length, 1);
      assert.equal(jobs[0].id, job.id);
      // Generous: the point is "woken by the enqueue", not "timed out at 30 s".
      assert.ok(latency < 5_000, `claim returned ${latency} ms after the enqueue`);
      latencies.push(latency);
      await worker.call('jobs.complete', { id: job.id, workerId: 'poller' });
    }
    // Woken by the enqueue itself: a daemon that looked for work on a timer, even every 500 ms,
    // would answer most claims hundreds of milliseconds late. The median forgives a slow round.
    const median = [...latencies].sort((a, b) => a - b)[2] ?? Infinity;
    assert.ok(median < 150, `median ${median} ms from enqueue to the waiting claim's answer (${latencies.join(', ')})`);
  });

  test('a waiting claim returns empty when its wait runs out', async () => {
    const worker = await daemon.client();
    const started = Date.now();
    const { jobs } = await worker.call('jobs.claim', { workerId: 'idle', queues: ['empty-queue'], waitMs: 300 });
    assert.deepEqual(jobs, []);
    assert.ok(Date.now() - started >= 250);
  });

  test('a delayed job wakes a waiting claim when it becomes due', async () => {
    const worker = await daemon.client();
    const producer = await daemon.client();
    const { job } = await producer.call('jobs.enqueue', { queue: 'delayed', kind: 'later', delayMs: 700 });
    const started = Date.now();
    const { jobs } = await worker.call('jobs.claim', { workerId: 'patient', queues: ['delayed'], waitMs: 20_000 });
    assert.equal(jobs[0]?.id, job.id);
    assert.ok(Date.now() - started >= 500, 'not before it was due');
    assert.ok(Date.now() - started < 10_000, 'woken by the due time, not the wait running out');
  });

  test('heartbeats extend the lease; a silent worker loses the job to another, and its late complete is refused', async () => {
    const first = await daemon.client();
    const second = await daemon.client();
    const { job } = await first.call('jobs.enqueue', { queue: 'lease', kind: 'slow', timeoutMs: 2000, maxAttempts: 3 });
    const [claimed] = (await first.call('jobs.claim', { workerId: 'first', queues: ['lease'] })).jobs;
    assert.equal(claimed.id, job.id);
    const lease0 = claimed.leaseExpiresAt ?? 0;

    // Keep it alive past its original lease with heartbeats, one every 200 ms as a worker would
    // send them (each extends the lease to 2 s from then, so a slow machine has room).
    let lastLease = lease0;
    while (Date.now() < lease0 + 500) {
      const beat = await first.call('jobs.heartbeat', { id: job.id, workerId: 'first' });
      assert.ok(beat.leaseExpiresAt >= lastLease);
      lastLease = beat.leaseExpiresAt;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal((await first.call('jobs.get', { id: job.id })).job.state, 'running', 'still running after its first lease ran out');

    // Now fall silent: the reaper takes the job back and the second worker gets it.
    const again = await second.call('jobs.claim', { workerId: 'second', queues: ['lease'], waitMs: 20_000 });
    assert.equal(again.jobs[0]?.id, job.id);
    assert.equal(again.jobs[0]?.attempts, 2);
    const done = await second.call('jobs.complete', { id: job.id, workerId: 'second', result: 'second' });
    assert.equal(done.job.state, 'completed');
    await rejectsWith(first.call('jobs.complete', { id: job.id, workerId: 'first', result: 'first' }), ErrorCode.LeaseLost);
    const final = await second.call('jobs.get', { id: job.id });
    assert.equal(final.job.result, 'second');
    assert.equal(final.runs.length, 2);
    assert.equal(final.runs[0].outcome, 'lease_expired');
  });

  test('a worker whose connection closes is shown as gone and its waiting claim takes nothing', async () => {
    const worker = await daemon.client();
    const observer = await daemon.client();
    // A worker id that claims without ever registering, on the same connection (closed first).
    await worker.call('jobs.claim', { workerId: 'unregistered', queues: ['gone'] });
    await worker.call('workers.register', { workerId: 'leaver', queues: ['gone'] });
    const pending = worker.call('jobs.claim', { workerId: 'leaver', queues: ['gone'], waitMs: 30_000 }).catch((e: unknown) => e);
    await waitFor('the worker to be listed alive', async () => (await observer.call('workers.list')).workers.find((w) => w.id === 'leaver')?.alive);
    worker.close();
    await pending;
    await waitFor('the worker to be shown as gone', async () => (await observer.call('workers.list')).workers.find((w) => w.id === 'leaver')?.alive === false);
    const { job } = await observer.call('jobs.enqueue', { queue: 'gone', kind: 'x' });
    // A later request is handled after any wake-up the enqueue caused.
    await observer.call('daemon.status');
    assert.equal((await observer.call('jobs.get', { id: job.id })).job.state, 'queued');
    assert.doesNotMatch(daemon.log(), /Could not mark a disconnected worker as gone/, 'an unregistered worker id has nothing to mark, and that is no warning');
  });

  test('cancel of a running remote job is reported by the next heartbeat', async () => {
    const worker = await daemon.client();
    const { job } = await worker.call('jobs.enqueue', { queue: 'cancel-remote', kind: 'long' });
    await worker.call('jobs.claim', { workerId: 'canceller', queues: ['cancel-remote'] });
    const requested = await worker.call('jobs.cancel', { id: job.id });
    assert.equal(requested.job.state, 'running');
    assert.equal(requested.job.cancelRequested, true);
    const beat = await worker.call('jobs.heartbeat', { id: job.id, workerId: 'canceller' });
    assert.equal(beat.cancelRequested, true);
  });
  test('jobs.completeMany completes a claimed batch in one call; a job another worker holds is listed, not completed', async () => {
    const worker = await daemon.client();
    const other = await daemon.client();
    const { results } = await worker.call('jobs.enqueueBatch', { jobs: Array.from({ length: 5 }, (_, i) => ({ queue: 'many', kind: 'k', payload: { i } })) });
    const mine = (await worker.call('jobs.claim', { workerId: 'batcher', queues: ['many'], max: 4 })).jobs;
    const theirs = (await other.call('jobs.claim', { workerId: 'someone', queues: ['many'], max: 1 })).jobs;
    assert.deepEqual([mine.length, theirs.length], [4, 1]);
    const answer = await worker.call('jobs.completeMany', {
      workerId: 'batcher',
      jobs: [...mine.map((j, i) => (i === 0 ? { id: j.id, result: { sent: true } } : { id: j.id })), { id: theirs[0]!.id }],
    });
    assert.equal(answer.completed, 4);
    assert.deepEqual(answer.failed.map((f) => [f.id, f.code]), [[theirs[0]!.id, ErrorCode.LeaseLost]]);
    assert.deepEqual(Object.keys(answer).sort(), ['completed', 'failed'], 'the completed jobs are not sent back');
    for (const j of mine) assert.equal((await worker.call('jobs.get', { id: j.id })).job.state, 'completed');
    assert.deepEqual((await worker.call('jobs.get', { id: mine[0]!.id })).job.result, { sent: true });
    assert.equal((await worker.call('jobs.get', { id: theirs[0]!.id })).job.state, 'running');
    assert.equal(results.length, 5);
    // Malformed input is refused as a whole, naming the field; the connection stays usable.
    await rejectsWith(worker.call('jobs.completeMany', { workerId: 'batcher', jobs: [{ id: theirs[0]!.id, extra: 1 }] } as never), ErrorCode.InvalidParams, 'jobs[0].extra');
    await rejectsWith(worker.call('jobs.completeMany', { workerId: 'batcher', jobs: 'all' } as never), ErrorCode.InvalidParams, 'jobs');
    assert.equal((await worker.call('jobs.get', { id: theirs[0]!.id })).job.state, 'running');
  });
  test('jobs.claim with fields sends only those fields of each job (and its id), now or after a wait', async () => {
    const worker = await daemon.client();
    await worker.call('jobs.enqueue', { queue: 'lean', kind: 'resize', payload: { w: 64 } });
    const { jobs } = await worker.call('jobs.claim', { workerId: 'lean', queues: ['lean'], fields: ['kind', 'payload', 'attempts'] });
    assert.equal(jobs.length, 1);
    assert.deepEqual(Object.keys(jobs[0]!).sort(), ['attempts', 'id', 'kind', 'payload']);
    assert.deepEqual([jobs[0]!.kind, jobs[0]!.payload, jobs[0]!.attempts], ['resize', { w: 64 }, 1]);
    assert.equal((await worker.call('jobs.get', { id: jobs[0]!.id })).job.state, 'running', 'claimed in full, only the answer is smaller');
    // A waiting claim's answer is cut the same way.
    const waiting = worker.call('jobs.claim', { workerId: 'lean', queues: ['lean'], fields: ['queue'], waitMs: 20_000 });
    await worker.call('daemon.status');
    const producer = await daemon.client();
    const { job } = await producer.call('jobs.enqueue', { queue: 'lean', kind: 'resize' });
    assert.deepEqual((await waiting).jobs, [{ id: job.id, queue: 'lean' }]);
    const refused = await rejectsWith(worker.call('jobs.claim', { workerId: 'lean', queues: ['lean'], fields: ['kind', 'colour'] } as never), ErrorCode.InvalidParams, 'fields');
    assert.match(refused.message, /fields\[1\] must be one of id, queue, kind, payload/);
  });
  test('jobs.enqueueBatch with fields sends only those fields of each job (and its id); the jobs are enqueued whole', async () => {
    const producer = await daemon.client();
    const { results } = await producer.call('jobs.enqueueBatch', { jobs: [{ queue: 'lean-batch', kind: 'a', payload: { n: 1 } }, { queue: 'lean-batch', kind: 'b', idempotencyKey: 'lean-batch-b' }], fields: ['id'] });
    assert.equal(results.length, 2);
    for (const result of results) {
      assert.deepEqual(Object.keys(result.job), ['id']);
      assert.equal(result.created, true);
    }
    const stored = (await producer.call('jobs.get', { id: results[0]!.job.id })).job;
    assert.deepEqual([stored.kind, stored.payload, stored.state], ['a', { n: 1 }, 'queued']);
    // An existing job (the same idempotency key) comes back cut the same way, with its reason.
    const again = await producer.call('jobs.enqueueBatch', { jobs: [{ queue: 'lean-batch', kind: 'b', idempotencyKey: 'lean-batch-b' }], fields: ['kind', 'state'] });
    assert.deepEqual(again.results, [{ job: { id: results[1]!.job.id, kind: 'b', state: 'queued' }, created: false, reason: 'key', existingState: 'queued' }]);
    const refused = await rejectsWith(producer.call('jobs.enqueueBatch', { jobs: [{ queue: 'lean-batch', kind: 'c' }], fields: ['colour'] } as never), ErrorCode.InvalidParams, 'fields');
    assert.match(refused.message, /fields\[0\] must be one of id, queue, kind, payload/);
    const unknown = await rejectsWith(producer.call('jobs.enqueueBatch', { jobs: [{ queue: 'lean-batch', kind: 'c' }], colour: 1 } as never), ErrorCode.InvalidParams, 'colour');
    assert.match(unknown.message, /Allowed: jobs, fields/);
  });
});
