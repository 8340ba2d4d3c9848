/**
 * Pausing a running shell job (jobs.pause, jobs.resume), store side: who may be paused and the
 * refusals that say why not, the frozen lease the reaper leaves alone, the lease moved on by the
 * paused time at resume, what a heartbeat tells the daemon running the job, and that a new
 * attempt starts unpaused. The processes themselves are stopped by the daemon's executors
 * (test/integration/cli-pause-job.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** The worker id of a daemon's own executors (daemon/executors/pool.ts, builtinWorkerId). */
const BUILTIN = 'builtin:host:0123456789ab';

export function definePauseRun(store: TestStoreFactory): void {
  test('pause: a running shell job is paused and resumed; its lease is frozen meanwhile and moved on by the paused time', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'shell', payload: 'sleep 60', timeoutMs: 10_000, backoff: { strategy: 'fixed', baseMs: 0, jitter: 0 } });
    const [claimed] = await engine.claim({ workerId: BUILTIN, builtinKinds: ['shell'] });
    const lease = claimed?.leaseExpiresAt ?? assert.fail('a claimed job has a lease');
    clock.advance(1000);
    const paused = await engine.pauseJob(job.id);
    assert.deepEqual([paused.state, paused.pausedAt], ['running', clock.ms]);
    assert.equal((await engine.heartbeat({ id: job.id, workerId: BUILTIN })).paused, true, 'the daemon running it hears of the pause at its heartbeat');

    // Long past its lease: the reaper leaves a paused job alone.
    clock.advance(60_000);
    assert.equal(await engine.reapExpiredLeases(), 0);
    assert.equal((await engine.getJob(job.id)).job.state, 'running');

    const resumed = await engine.resumeJob(job.id);
    assert.equal(resumed.pausedAt, null);
    // The heartbeat at the pause extended the lease by the timeout (10 s from 1 s after the claim).
    assert.equal(resumed.leaseExpiresAt, lease + 1000 + 60_000, 'the lease moved on by the 60 s it was paused');
    assert.equal((await engine.heartbeat({ id: job.id, workerId: BUILTIN, extendMs: 100 })).paused, false);

    // Running again, its lease runs out as any other.
    clock.advance(20_000);
    assert.equal(await engine.reapExpiredLeases(), 1);
    const reaped = (await engine.getJob(job.id)).job;
    assert.equal(reaped.state, 'retrying');
    assert.equal(reaped.pausedAt ?? null, null);
  });

  test('pause: refused with the reason for a job that is not running, not a shell job, or paused already; resume for one not paused', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job: waiting } = await engine.enqueue({ queue: 'waiting', kind: 'shell', payload: 'true' });
    const notRunning = await thrown(() => engine.pauseJob(waiting.id));
    assert.equal(notRunning.code, ErrorCode.InvalidState);
    assert.match(notRunning.message, /only a running shell job can be paused, and it is queued\. To keep a waiting job from starting, hold it/);

    const { job: http } = await engine.enqueue({ queue: 'web', kind: 'http', payload: 'https://example.com/' });
    await engine.claim({ workerId: BUILTIN, builtinKinds: ['http'] });
    assert.match((await thrown(() => engine.pauseJob(http.id))).message, /it is a http job; only shell jobs can be paused/);

    const { job } = await engine.enqueue({ queue: 'q', kind: 'shell', payload: 'sleep 60' });
    await engine.claim({ workerId: BUILTIN, builtinKinds: ['shell'], queues: ['q'] });
    const notPaused = await thrown(() => engine.resumeJob(job.id));
    assert.equal(notPaused.code, ErrorCode.InvalidState);
    assert.match(notPaused.message, /it is not paused/);
    await engine.pauseJob(job.id);
    assert.match((await thrown(() => engine.pauseJob(job.id))).message, /it is paused already/);
    assert.equal((await thrown(() => engine.resumeJob(waiting.id))).code, ErrorCode.InvalidState);
    assert.equal((await thrown(() => engine.pauseJob('01890000-0000-7000-8000-000000000000'))).code, ErrorCode.JobNotFound);
  });

  test('pause: a paused job cancelled ends as any cancelled job, and its retry starts unpaused', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'shell', payload: 'sleep 60' });
    await engine.claim({ workerId: BUILTIN, builtinKinds: ['shell'] });
    await engine.pauseJob(job.id);
    await engine.cancel(job.id);
    await engine.markCancelled(job.id, BUILTIN);
    const cancelled = (await engine.getJob(job.id)).job;
    assert.deepEqual([cancelled.state, cancelled.pausedAt ?? null], ['cancelled', null]);
    await engine.retry(job.id);
    const [again] = await engine.claim({ workerId: BUILTIN, builtinKinds: ['shell'] });
    assert.equal(again?.id, job.id);
    assert.equal(again?.pausedAt ?? null, null, 'a new attempt starts unpaused');
    assert.equal((await engine.getJob(job.id)).job.pausedAt ?? null, null);
  });
}
