import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** The core tests, run against the store `store` makes. */
export function defineCore(store: TestStoreFactory): void {
  test('an enqueued job is stored queued with the queue defaults, and its queue is created on first use', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job, created } = await engine.enqueue({ queue: 'emails', kind: 'send', payload: { to: 'a@example.com' }, tags: ['x'] });
    assert.equal(created, true);
    assert.equal(job.state, 'queued');
    assert.equal(job.runAt, clock.ms);
    assert.equal(job.maxAttempts, 3);
    assert.deepEqual(job.payload, { to: 'a@example.com' });
    assert.deepEqual(job.tags, ['x']);
    assert.match(job.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const queue = await engine.getQueue('emails');
    assert.equal(queue.counts.queued, 1);
    assert.equal(queue.paused, false);
    assert.deepEqual((await engine.getJob(job.id)).job, job);
  });

  test('a repeated idempotency key returns the first job, unchanged, with created false', async (t) => {
    const { engine } = makeEngine(t, store);
    const first = await engine.enqueue({ queue: 'q', kind: 'k', payload: 1, idempotencyKey: 'order-42' });
    const second = await engine.enqueue({ queue: 'q', kind: 'k', payload: 2, priority: 9, idempotencyKey: 'order-42' });
    assert.equal(second.created, false);
    assert.equal(second.job.id, first.job.id);
    assert.equal(second.job.payload, 1);
    assert.equal(second.job.priority, 0);
    const batch = await engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k', idempotencyKey: 'b' }, { queue: 'q', kind: 'k', idempotencyKey: 'b' }] });
    assert.deepEqual(batch.results.map((r) => r.created), [true, false]);
    assert.equal(batch.results[0]?.job.id, batch.results[1]?.job.id);
    assert.equal((await engine.getQueue('q')).counts.queued, 2);
  });

  test('a batch is all or nothing: one invalid job enqueues none', async (t) => {
    const { engine } = makeEngine(t, store);
    const error = await thrown(() => engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k' }, { queue: 'q', kind: 'k', priority: 1.5 }] }));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data['field'], 'jobs[1].priority');
    assert.deepEqual(await engine.listQueues(), []);
  });

  test('claims take the highest priority first, then the earliest run time, then the oldest', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const low = (await engine.enqueue({ queue: 'q', kind: 'k', priority: -5 })).job;
    clock.advance(1);
    const highLate = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 10 })).job;
    clock.advance(1);
    const mid1 = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 3 })).job;
    const mid2 = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 3 })).job;
    const midEarly = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 3, runAt: clock.ms - 100 })).job;
    clock.advance(1);
    // Fewer than are waiting, so the database's choice is what is checked, not a re-sort of all
    // five: first two of five (the multi-job statement), then one at a time (the single-job one).
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 2 })).map((j) => j.id), [highLate.id, midEarly.id]);
    const rest: string[][] = [];
    for (let i = 0; i < 3; i++) rest.push((await engine.claim({ workerId: 'w', max: 1 })).map((j) => j.id));
    assert.deepEqual(rest, [[mid1.id], [mid2.id], [low.id]]);
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 1 }), []);
  });

  test('a claim across queues follows the same order over all of them', async (t) => {
    const { engine } = makeEngine(t, store);
    const a = (await engine.enqueue({ queue: 'a', kind: 'k', priority: 1 })).job;
    const b = (await engine.enqueue({ queue: 'b', kind: 'k', priority: 7 })).job;
    const c = (await engine.enqueue({ queue: 'c', kind: 'k', priority: 4 })).job;
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 2 })).map((j) => j.id), [b.id, c.id]);
    assert.deepEqual((await engine.claim({ workerId: 'w', queues: ['a', 'b'] })).map((j) => j.id), [a.id]);
  });

  test('a delayed job is not claimed before its run time, and is claimed once it comes', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 5000 });
    assert.equal(job.runAt, clock.ms + 5000);
    assert.equal((await engine.getQueue('q')).delayed, 1);
    assert.equal(await engine.nextWakeAt(), job.runAt);
    clock.advance(4999);
    assert.deepEqual(await engine.claim({ workerId: 'w' }), []);
    clock.advance(1);
    assert.equal((await engine.claim({ workerId: 'w' }))[0]?.id, job.id);
  });

  test('a paused queue gives no jobs until it is resumed', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.enqueue({ queue: 'q', kind: 'k' });
    assert.equal((await engine.pauseQueue('q')).paused, true);
    assert.deepEqual(await engine.claim({ workerId: 'w' }), []);
    assert.deepEqual(await engine.claim({ workerId: 'w', queues: ['q'] }), []);
    await engine.resumeQueue('q');
    assert.equal((await engine.claim({ workerId: 'w' })).length, 1);
  });

  test('a queue can be paused before its first job, which it then holds; resuming an unknown queue is refused', async (t) => {
    const { engine } = makeEngine(t, store);
    const paused = await engine.pauseQueue('fresh');
    assert.deepEqual([paused.name, paused.paused, paused.concurrency], ['fresh', true, null]);
    await engine.enqueue({ queue: 'fresh', kind: 'k' });
    assert.deepEqual(await engine.claim({ workerId: 'w' }), [], 'the job waits in the paused queue');
    assert.equal((await engine.resumeQueue('fresh')).paused, false);
    assert.equal((await engine.claim({ workerId: 'w' })).length, 1);
    assert.equal((await thrown(() => engine.resumeQueue('never'))).code, ErrorCode.QueueNotFound);
    assert.equal((await engine.listQueues()).some((q) => q.name === 'never'), false);
  });

  test('a claim never exceeds the queue concurrency, and a finished job frees a slot', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', concurrency: 2 });
    for (let i = 0; i < 5; i++) await engine.enqueue({ queue: 'q', kind: 'k' });
    const first = await engine.claim({ workerId: 'w', max: 5 });
    assert.equal(first.length, 2);
    assert.deepEqual(await engine.claim({ workerId: 'w2', max: 5 }), []);
    await engine.complete({ id: first[0]?.id ?? '', workerId: 'w' });
    assert.equal((await engine.claim({ workerId: 'w2', max: 5 })).length, 1);
    assert.equal((await engine.getQueue('q')).counts.running, 2);
  });

  test('remote workers never get built-in kinds; the executors get only the built-in kinds they ask for', async (t) => {
    const { engine } = makeEngine(t, store);
    const shell = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'true' } })).job;
    const http = (await engine.enqueue({ queue: 'q', kind: 'http', payload: { url: 'http://x' } })).job;
    const custom = (await engine.enqueue({ queue: 'q', kind: 'resize' })).job;
    assert.deepEqual(await engine.claim({ workerId: 'w', kinds: ['shell'] }), []);
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 10 })).map((j) => j.id), [custom.id]);
    assert.deepEqual((await engine.claim({ workerId: 'exec', builtinKinds: ['shell'], max: 10 })).map((j) => j.id), [shell.id]);
    assert.deepEqual((await engine.claim({ workerId: 'exec', builtinKinds: ['shell', 'http'], max: 10 })).map((j) => j.id), [http.id]);
  });

  test('a claim for some custom kinds takes only those, even when another kind is first in claim order', async (t) => {
    const { engine } = makeEngine(t, store);
    const a = (await engine.enqueue({ queue: 'q', kind: 'a', priority: 5 })).job;
    const b1 = (await engine.enqueue({ queue: 'q', kind: 'b' })).job;
    const b2 = (await engine.enqueue({ queue: 'q', kind: 'b' })).job;
    assert.deepEqual((await engine.claim({ workerId: 'w', kinds: ['b'], max: 1 })).map((j) => j.id), [b1.id]);
    assert.deepEqual((await engine.claim({ workerId: 'w', kinds: ['b'], max: 10 })).map((j) => j.id), [b2.id]);
    assert.deepEqual(await engine.claim({ workerId: 'w', kinds: ['b'], max: 10 }), [], 'the waiting "a" job is not given instead');
    assert.equal((await engine.getJob(a.id)).job.state, 'queued');
    assert.deepEqual((await engine.claim({ workerId: 'w', kinds: ['a', 'b'] })).map((j) => j.id), [a.id]);
  });

  test('a claim sets the lease, worker and attempt, and its run shows as running', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 30_000 });
    const [claimed] = await engine.claim({ workerId: 'w1' });
    assert.ok(claimed);
    assert.equal(claimed.state, 'running');
    assert.equal(claimed.workerId, 'w1');
    assert.equal(claimed.attempts, 1);
    assert.equal(claimed.leaseExpiresAt, clock.ms + 30_000);
    assert.equal(claimed.startedAt, clock.ms);
    const { runs } = await engine.getJob(job.id);
    assert.equal(runs.length, 1);
    assert.deepEqual({ attempt: runs[0]?.attempt, workerId: runs[0]?.workerId, outcome: runs[0]?.outcome }, { attempt: 1, workerId: 'w1', outcome: 'running' });
  });

  test('claims and completes answer with each job exactly as stored, whichever statement ran', async (t) => {
    // Each claim statement (single, batch, batch with the answer budget; kinds included or
    // excluded) and both completes build their answer from RETURNING: it must be the stored job,
    // field for field.
    const { engine, clock } = makeEngine(t, store);
    // On SQLite the claim of 100 below takes the budgeted statement, the smaller ones the other
    // (test/unit/sqlite-claim.test.ts holds the threshold below 100); every store must answer alike.
    const enqueue = async (n: number, kind: string): Promise<string[]> =>
      (await engine.enqueueBatch({ jobs: Array.from({ length: n }, (_, i) => ({ queue: 'q', kind, payload: { i }, tags: ['t'], priority: i % 3, timeoutMs: 1000 + i })) })).results.map((r) => r.job.id);
    // A job with a past attempt that left progress, a checkpoint and an error behind.
    const [used] = await enqueue(1, 'used');
    await engine.claim({ workerId: 'w0', kinds: ['used'] });
    await engine.progress({ id: used ?? '', workerId: 'w0', percent: 40, message: 'half' });
    await engine.checkpoint({ id: used ?? '', workerId: 'w0', checkpoint: { step: 2 } });
    await engine.fail({ id: used ?? '', workerId: 'w0', error: 'boom' });
    clock.advance(60_000);
    await enqueue(120, 'bulk');
    const claims = [
      await engine.claim({ workerId: 'w1', kinds: ['used'] }),
      await engine.claim({ workerId: 'w2', max: 1 }),
      await engine.claim({ workerId: 'w3', max: 10, kinds: ['bulk'] }),
      await engine.claim({ workerId: 'w4', max: 100 }),
    ];
    assert.deepEqual(claims.map((c) => c.length), [1, 1, 10, 100]);
    const retried = claims[0]?.[0];
    assert.deepEqual([retried?.checkpoint, retried?.lastError, retried?.attempts, retried?.progress], [{ step: 2 }, 'boom', 2, null], 'a retried job keeps its checkpoint and last error');
    for (const job of claims.flat()) assert.deepEqual(job, (await engine.getJob(job.id)).job);
    clock.advance(5);
    const [first, ...rest] = claims.flat();
    assert.ok(first);
    const single = await engine.complete({ id: first.id, workerId: first.workerId ?? '', result: { ok: true } });
    assert.deepEqual(single, (await engine.getJob(first.id)).job);
    for (const outcome of await engine.completeMany(rest.map((j) => ({ id: j.id, workerId: j.workerId ?? '' })))) {
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.job, (await engine.getJob(outcome.job.id)).job);
    }
  });

  test('heartbeat extends the lease to max(current, now + extension) and reports a requested cancel', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 10_000 });
    await engine.claim({ workerId: 'w' });
    const start = clock.ms;
    clock.advance(5000);
    assert.deepEqual(await engine.heartbeat({ id: job.id, workerId: 'w' }), { leaseExpiresAt: start + 15_000, cancelRequested: false, paused: false });
    assert.equal((await engine.heartbeat({ id: job.id, workerId: 'w', extendMs: 1000 })).leaseExpiresAt, start + 15_000);
    await engine.cancel(job.id);
    assert.equal((await engine.heartbeat({ id: job.id, workerId: 'w' })).cancelRequested, true);
  });

  test('complete stores the result and ends the run; fail with attempts left goes to retrying after the backoff', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const a = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    const b = (await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 2000, jitter: 0 } })).job;
    await engine.claim({ workerId: 'w', max: 2 });
    const done = await engine.complete({ id: a.id, workerId: 'w', result: { ok: 1 } });
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.result, { ok: 1 });
    assert.equal(done.finishedAt, clock.ms);
    assert.equal(done.leaseExpiresAt, null);
    assert.equal((await engine.getJob(a.id)).runs[0]?.outcome, 'completed');
    const failed = await engine.fail({ id: b.id, workerId: 'w', error: 'disk full', exitCode: 3 });
    assert.equal(failed.state, 'retrying');
    assert.equal(failed.runAt, clock.ms + 2000);
    assert.equal(failed.lastError, 'disk full');
    const run = (await engine.getJob(b.id)).runs[0];
    assert.deepEqual({ outcome: run?.outcome, error: run?.error, exitCode: run?.exitCode }, { outcome: 'failed', error: 'disk full', exitCode: 3 });
    const s = await engine.stats();
    assert.equal(s.completedLastMinute, 1);
    assert.equal(s.failedLastMinute, 1);
  });

  test('a permanent failure, or the last attempt failing, makes the job dead', async (t) => {
    const { engine } = makeEngine(t, store);
    const p = (await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 5 })).job;
    const last = (await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 1 })).job;
    await engine.claim({ workerId: 'w', max: 2 });
    assert.equal((await engine.fail({ id: p.id, workerId: 'w', error: 'bad input', permanent: true })).state, 'dead');
    const dead = await engine.fail({ id: last.id, workerId: 'w', error: 'boom' });
    assert.equal(dead.state, 'dead');
    assert.notEqual(dead.finishedAt, null);
    assert.equal((await engine.getQueue('q')).counts.dead, 2);
  });

  test('queues are listed with counts, configured, and report settings', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.enqueue({ queue: 'b', kind: 'k' });
    await engine.enqueue({ queue: 'a', kind: 'k' });
    const configured = await engine.configureQueue({
      name: 'a',
      concurrency: 4,
      rateLimit: { perSecond: 2, burst: 5 },
      defaultMaxAttempts: 7,
      defaultBackoff: { strategy: 'linear', baseMs: 500 },
      defaultTimeoutMs: 60_000,
      retentionMs: null,
    });
    assert.equal(configured.concurrency, 4);
    assert.deepEqual(configured.rateLimit, { perSecond: 2, burst: 5 });
    assert.deepEqual(configured.defaultBackoff, { strategy: 'linear', baseMs: 500, capMs: 3_600_000, jitter: 0.3 });
    assert.equal(configured.retentionMs, null);
    assert.equal((await engine.enqueue({ queue: 'a', kind: 'k' })).job.maxAttempts, 7);
    assert.deepEqual((await engine.listQueues()).map((q) => [q.name, q.counts.queued]), [['a', 2], ['b', 1]]);
    assert.equal((await engine.configureQueue({ name: 'a', concurrency: null })).concurrency, null);
    assert.equal((await thrown(() => engine.getQueue('nope'))).code, ErrorCode.QueueNotFound);
  });

  test("a queue's resource limits are set, changed field by field, removed, kept with the queue, and validated", async (t) => {
    const { engine } = makeEngine(t, store);
    const MiB = 1024 * 1024;
    assert.deepEqual((await engine.configureQueue({ name: 'q' })).limits, {}, 'a new queue has none');
    assert.deepEqual((await engine.configureQueue({ name: 'q', limits: { memoryBytes: 512 * MiB, cpuSeconds: 30 } })).limits, { memoryBytes: 512 * MiB, cpuSeconds: 30 });
    // Other settings leave the limits alone; a field given replaces one, null removes one.
    await engine.configureQueue({ name: 'q', concurrency: 2 });
    assert.deepEqual((await engine.configureQueue({ name: 'q', limits: { cpuSeconds: null, openFiles: 64 } })).limits, { memoryBytes: 512 * MiB, openFiles: 64 });
    assert.deepEqual((await engine.getQueue('q')).limits, { memoryBytes: 512 * MiB, openFiles: 64 });
    assert.deepEqual((await engine.listQueues()).find((q) => q.name === 'q')?.limits, { memoryBytes: 512 * MiB, openFiles: 64 });
    await engine.configureQueue({ name: 'q', limits: { processes: 100 } });
    assert.deepEqual((await engine.configureQueue({ name: 'q', limits: null })).limits, {}, 'null removes them all');
    const cases: [unknown, string, RegExp][] = [
      [{ memoryBytes: 1 }, 'limits.memoryBytes', /limits\.memoryBytes must be an integer bytes, from 16 MiB/],
      [{ openFiles: 2 }, 'limits.openFiles', /from 4 to 1048576 \(got 2\)/],
      [{ swap: 1 }, 'limits.swap', /Unknown field "limits\.swap"/],
      ['512M', 'limits', /limits must be an object/],
    ];
    for (const [limits, field, message] of cases) {
      const error = await thrown(() => engine.configureQueue({ name: 'q', limits } as never));
      assert.equal(error.code, ErrorCode.InvalidParams, error.message);
      assert.equal(error.data['field'], field);
      assert.match(error.message, message);
    }
  });

  test('a new job takes the queue\'s default timeout and backoff, and its own values win over them', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', defaultTimeoutMs: 45_000, defaultBackoff: { strategy: 'linear', baseMs: 500, capMs: 20_000, jitter: 0.1 } });
    const plain = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
    assert.equal(plain.timeoutMs, 45_000);
    assert.deepEqual(plain.backoff, { strategy: 'linear', baseMs: 500, capMs: 20_000, jitter: 0.1 });
    const [batched] = (await engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'k' }] })).results;
    assert.deepEqual([batched?.job.timeoutMs, batched?.job.backoff], [45_000, plain.backoff]);
    // A job's own values win; what it leaves out of its backoff still comes from the queue.
    const own = (await engine.enqueue({ queue: 'q', kind: 'k', priority: 1, timeoutMs: 2000, backoff: { strategy: 'fixed', baseMs: 700 } })).job;
    assert.equal(own.timeoutMs, 2000);
    assert.deepEqual(own.backoff, { strategy: 'fixed', baseMs: 700, capMs: 20_000, jitter: 0.1 });
    // The stored values are the ones used: the lease of a claim and the wait after a failure.
    const [claimed] = await engine.claim({ workerId: 'w', max: 1 });
    assert.deepEqual([claimed?.id, claimed?.leaseExpiresAt], [own.id, clock.ms + 2000]);
    assert.equal((await engine.fail({ id: own.id, workerId: 'w', error: 'x' })).runAt, clock.ms + 700);
  });

  test('stats read the counters and totals over every queue', async (t) => {
    const { engine } = makeEngine(t, store);
    for (let i = 0; i < 3; i++) await engine.enqueue({ queue: 'a', kind: 'k' });
    await engine.enqueue({ queue: 'b', kind: 'k', delayMs: 60_000 });
    await engine.claim({ workerId: 'w', queues: ['a'] });
    const s = await engine.stats();
    assert.deepEqual(s.totals, { blocked: 0, queued: 3, running: 1, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 });
    assert.deepEqual(s.queues.map((q) => [q.name, q.counts.queued, q.counts.running, q.delayed]), [['a', 2, 1, 0], ['b', 1, 0, 1]]);
  });
}
