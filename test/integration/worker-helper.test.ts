/**
 * The worker helper (`runWorker`) against a real daemon: results, progress, logs and
 * checkpoints reach the job; failures retry or go straight to dead; a result the daemon refuses
 * fails the job; heartbeats keep a long job's lease; a cancel aborts the handler's signal; stop()
 * drains, and does not wait for a daemon that is down; a second signal hands the running jobs
 * back and exits; concurrency is respected.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ConnectionLostError, DaemonNotRunningError, SpoolClient } from '../../shared/client/client';
import { LIMITS } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import { PermanentError, runWorker, type RunWorkerOptions, type WorkerHandle } from '../../shared/client/worker';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

let daemon: TestDaemon;
let client: SpoolClient;
let queues = 0;

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

/** A queue of its own per test, so tests do not take each other's jobs. */
function freshQueue(): string {
  return `wq-${++queues}`;
}

/** A promise the test resolves by hand: handlers wait on it instead of sleeping. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function worker(t: { after: (fn: () => Promise<void>) => void }, options: Omit<RunWorkerOptions, 'socketPath'>): Promise<WorkerHandle> {
  const errors: Error[] = [];
  const w = await runWorker({ socketPath: daemon.socketPath, pollWaitMs: 1000, onError: (e) => errors.push(e), ...options });
  t.after(() => w.stop());
  return w;
}

async function job(id: string): Promise<Job> {
  return (await client.call('jobs.get', { id })).job;
}

async function enqueue(queue: string, payload: unknown, extra: { maxAttempts?: number; timeoutMs?: number } = {}): Promise<string> {
  return (await client.call('jobs.enqueue', { queue, kind: 'test', payload, ...extra })).job.id;
}

test('a handler\'s result completes the job; progress, log lines and checkpoint reach the daemon', async (t) => {
  const queue = freshQueue();
  const seen: unknown[] = [];
  await worker(t, {
    queues: [queue],
    kinds: ['test'],
    handler: async (j, ctx) => {
      seen.push(j.payload);
      await ctx.progress(40, 'forty');
      await ctx.log('first line', 'second line');
      await ctx.checkpoint({ step: 2 });
      const mid = await job(j.id);
      assert.equal(mid.progress, 40);
      assert.equal(mid.progressMessage, 'forty');
      assert.deepEqual(mid.checkpoint, { step: 2 });
      return { doubled: 42 };
    },
  });
  const id = await enqueue(queue, { n: 21 });
  const done = await waitFor('the job to complete', async () => {
    const j = await job(id);
    return j.state === 'completed' ? j : undefined;
  });
  assert.deepEqual(done.result, { doubled: 42 });
  assert.deepEqual(seen, [{ n: 21 }]);
  const output = await client.call('jobs.output', { id });
  assert.deepEqual(
    output.lines.map((l) => [l.stream, l.text]),
    [
      ['log', 'first line'],
      ['log', 'second line'],
    ],
  );
});

test('an error retries the job; a PermanentError sends it to dead at once', async (t) => {
  const queue = freshQueue();
  await worker(t, {
    queues: [queue],
    handler: (j) => {
      if (j.payload === 'permanent') throw new PermanentError('this can never work');
      throw Object.assign(new Error('flaky'), { exitCode: 7 });
    },
  });
  const permanent = await enqueue(queue, 'permanent', { maxAttempts: 5 });
  const flaky = await enqueue(queue, 'flaky', { maxAttempts: 5 });
  const dead = await waitFor('the permanent failure to be dead', async () => {
    const j = await job(permanent);
    return j.state === 'dead' ? j : undefined;
  });
  assert.equal(dead.attempts, 1);
  assert.equal(dead.lastError, 'this can never work');
  const retrying = await waitFor('the flaky job to be retried', async () => {
    const r = await client.call('jobs.get', { id: flaky });
    return r.runs.length >= 1 && r.runs[0]?.outcome === 'failed' ? r : undefined;
  });
  assert.equal(retrying.runs[0]?.error, 'flaky');
  assert.equal(retrying.runs[0]?.exitCode, 7);
  assert.ok(retrying.runs[0]?.stack?.includes('worker-helper.test.ts'), 'the stack is kept with the run');
});

test('a result the daemon refuses, or one JSON cannot carry, fails the job for good and says why', async (t) => {
  const queue = freshQueue();
  await worker(t, {
    queues: [queue],
    handler: (j) => (j.payload === 'too big' ? 'x'.repeat(LIMITS.maxPayloadBytes) : { count: BigInt(1) }),
  });
  const tooBig = await enqueue(queue, 'too big', { maxAttempts: 5 });
  const notJson = await enqueue(queue, 'bigint', { maxAttempts: 5 });
  const dead = async (id: string): Promise<Job> =>
    waitFor(`job ${id} to be dead`, async () => {
      const j = await job(id);
      return j.state === 'dead' ? j : undefined;
    }, 10_000);
  const big = await dead(tooBig);
  assert.equal(big.attempts, 1, 'not retried: the same result would be refused again');
  assert.match(big.lastError ?? '', /^The daemon refused the result: result is \d+ bytes as JSON; the limit is 1048576 bytes/);
  const bigint = await dead(notJson);
  assert.equal(bigint.attempts, 1);
  assert.match(bigint.lastError ?? '', /^The result cannot be sent as JSON: .*BigInt/);
});

test('handlers that finish together are completed by one jobs.completeMany; a refused result still fails only its own job', async (t) => {
  const queue = freshQueue();
  // A client of the test's own, its calls recorded (it is the real client, talking to the daemon).
  const own = await daemon.client();
  const methods: string[] = [];
  const call = own.call.bind(own);
  own.call = ((method: string, ...rest: unknown[]) => {
    methods.push(method);
    return (call as (m: string, ...r: unknown[]) => Promise<unknown>)(method, ...rest);
  }) as typeof own.call;
  const release = gate();
  await worker(t, {
    client: own,
    queues: [queue],
    concurrency: 10,
    handler: async (j) => {
      await release.promise;
      return j.payload === 'too big' ? 'x'.repeat(LIMITS.maxPayloadBytes) : { n: j.payload };
    },
  });
  const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => enqueue(queue, i)));
  await waitFor('all 8 jobs running', async () => (await Promise.all(ids.map(job))).every((j) => j.state === 'running'));
  release.open();
  const done = await waitFor('all 8 completed', async () => {
    const jobs = await Promise.all(ids.map(job));
    return jobs.every((j) => j.state === 'completed') ? jobs : undefined;
  });
  assert.deepEqual(done.map((j) => j.result), [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({ n })));
  assert.ok(methods.includes('jobs.completeMany'), `one jobs.completeMany: ${methods.join(', ')}`);
  assert.ok(methods.filter((m) => m === 'jobs.complete').length < 8, `not one jobs.complete each: ${methods.join(', ')}`);

  // A batch with a result over the limit is refused as a whole: each job is then sent alone, and
  // only the one with that result fails.
  const second = gate();
  const again = freshQueue();
  await worker(t, {
    queues: [again],
    concurrency: 5,
    handler: async (j) => {
      await second.promise;
      return j.payload === 'too big' ? 'x'.repeat(LIMITS.maxPayloadBytes) : 'fine';
    },
  });
  const mixed = await Promise.all(['a', 'too big', 'c'].map((p) => enqueue(again, p, { maxAttempts: 5 })));
  await waitFor('the 3 jobs running', async () => (await Promise.all(mixed.map(job))).every((j) => j.state === 'running'));
  second.open();
  const ends = await waitFor('the 3 jobs ended', async () => {
    const jobs = await Promise.all(mixed.map(job));
    return jobs.every((j) => j.state === 'completed' || j.state === 'dead') ? jobs : undefined;
  });
  assert.deepEqual(ends.map((j) => j.state), ['completed', 'dead', 'completed']);
  assert.match(ends[1]?.lastError ?? '', /^The daemon refused the result/);
});

test('stop() does not wait for a daemon that is down', async (t) => {
  const own = await startDaemon();
  t.after(() => own.dispose());
  const ownClient = await SpoolClient.connect({ socketPath: own.socketPath, reconnect: true });
  t.after(() => ownClient.close());
  const errors: Error[] = [];
  const w = await runWorker({ client: ownClient, queues: [freshQueue()], pollWaitMs: 1000, onError: (e) => errors.push(e), handler: () => undefined });
  await own.kill();
  await waitFor('the worker to lose its claim in flight', () => errors.some((e) => e instanceof ConnectionLostError));
  // The worker pauses 500 ms after a failed claim before it claims again. Four failed reconnects
  // (100, 200, 400 and 800 ms apart, give or take a fifth) take well over that, so by then the
  // worker is back in its loop, waiting for the daemon.
  const reconnectErrors = new Set<Error>();
  await waitFor('four failed reconnects', () => {
    if (ownClient.lastReconnectError) reconnectErrors.add(ownClient.lastReconnectError);
    return reconnectErrors.size >= 4;
  });
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    w.stop().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
  ]);
  clearTimeout(timer);
  assert.ok(stopped, `stop() was still waiting after ${Date.now() - started} ms`);
});

test('a job that a claim in flight brings after stop() is handed back, not started', async (t) => {
  const queue = freshQueue();
  // The worker's own connection, watched (not replaced): the test learns when the claim is sent.
  const own = await daemon.client();
  t.after(() => own.close());
  const claimSent = gate();
  const call = own.call.bind(own);
  Reflect.set(own, 'call', (...args: Parameters<typeof own.call>) => {
    if (args[0] === 'jobs.claim') claimSent.open();
    return call(...args);
  });
  let started = 0;
  const w = await runWorker({ socketPath: daemon.socketPath, client: own, queues: [queue], pollWaitMs: 20_000, onError: () => undefined, handler: () => void started++ });
  await claimSent.promise;
  // stop() comes while the claim waits in the daemon; the job the claim then gets is leased to
  // this worker, which must not start it.
  const stopped = w.stop();
  const id = await enqueue(queue, null, { maxAttempts: 1 });
  await stopped;
  assert.equal(started, 0);
  const r = await client.call('jobs.get', { id });
  assert.deepEqual([r.job.state, r.job.attempts], ['retrying', 0]);
  assert.deepEqual(r.runs.map((run) => [run.outcome, run.error]), [['interrupted', `Worker ${w.workerId} was stopping when the claim returned.`]]);
});

test('a second SIGTERM hands back the job of a handler that ignores its signal, then exits with 143', async (t) => {
  const queue = freshQueue();
  const fixture = path.resolve(__dirname, '..', 'fixtures', 'stubborn-worker.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', fixture, daemon.socketPath, queue], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  t.after(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  });
  const id = await enqueue(queue, null, { maxAttempts: 1 });
  await waitFor('the handler to start', () => stdout.includes(`started ${id}`));
  proc.kill('SIGTERM');
  await waitFor('the worker to say it is draining', () => stderr.includes('SIGTERM received, finishing 1 running job(s)'));
  proc.kill('SIGTERM');
  assert.equal(await exited, 143, stderr);
  const r = await client.call('jobs.get', { id });
  // Not left running for its lease, and not dead though it had one attempt: it runs again.
  assert.deepEqual([r.job.state, r.job.attempts], ['retrying', 0]);
  assert.equal(r.runs[0]?.outcome, 'interrupted');
  assert.match(r.runs[0]?.error ?? '', /was stopped by a second SIGTERM before the job finished/);
});

test('heartbeats keep the lease of a job that runs longer than its timeout', async (t) => {
  const queue = freshQueue();
  const release = gate();
  await worker(t, { queues: [queue], handler: () => release.promise.then(() => 'finished') });
  const timeoutMs = 2000;
  const id = await enqueue(queue, null, { timeoutMs, maxAttempts: 1 });
  // Running well past three lease lengths proves the lease was extended again and again.
  const running = await waitFor('the job to run past three lease lengths', async () => {
    const j = await job(id);
    assert.notEqual(j.state, 'dead', 'the lease must not expire');
    return j.state === 'running' && j.startedAt !== null && Date.now() > j.startedAt + 3 * timeoutMs ? j : undefined;
  }, 30_000);
  assert.ok(running.leaseExpiresAt !== null && running.leaseExpiresAt > (running.startedAt ?? 0) + 3 * timeoutMs);
  release.open();
  const done = await waitFor('the job to complete', async () => {
    const r = await client.call('jobs.get', { id });
    return r.job.state === 'completed' ? r : undefined;
  });
  assert.equal(done.job.attempts, 1);
  assert.equal(done.runs.length, 1);
});

test('a cancel aborts the handler\'s signal and the job ends cancelled', async (t) => {
  const queue = freshQueue();
  let aborted = false;
  const started = gate();
  await worker(t, {
    queues: [queue],
    heartbeatIntervalMs: 100,
    handler: (_j, ctx) =>
      new Promise((_resolve, reject) => {
        started.open();
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('stopped by cancel'));
        });
      }),
  });
  const id = await enqueue(queue, null);
  await started.promise;
  const cancelled = await client.call('jobs.cancel', { id });
  assert.equal(cancelled.job.cancelRequested, true);
  const final = await waitFor('the job to be cancelled', async () => {
    const j = await job(id);
    return j.state === 'cancelled' ? j : undefined;
  });
  assert.equal(aborted, true);
  assert.equal(final.attempts, 1);
});

test('no more jobs run at once than the concurrency', async (t) => {
  const queue = freshQueue();
  const release = gate();
  let active = 0;
  let most = 0;
  await worker(t, {
    queues: [queue],
    concurrency: 2,
    handler: async () => {
      active++;
      most = Math.max(most, active);
      await release.promise;
      active--;
    },
  });
  const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => enqueue(queue, n)));
  await waitFor('two jobs to run', () => active === 2);
  const list = await client.call('jobs.list', { queue, states: ['running'] });
  assert.equal(list.jobs.length, 2);
  release.open();
  await waitFor('every job to complete', async () => {
    const states = await Promise.all(ids.map(async (id) => (await job(id)).state));
    return states.every((s) => s === 'completed');
  });
  assert.equal(most, 2);
});

test('stop() lets running jobs finish, claims nothing more, then resolves', async (t) => {
  const queue = freshQueue();
  const release = gate();
  const started: string[] = [];
  const w = await worker(t, {
    queues: [queue],
    concurrency: 2,
    handler: async (j) => {
      started.push(j.id);
      await release.promise;
      return 'drained';
    },
  });
  const first = await enqueue(queue, 1);
  const second = await enqueue(queue, 2);
  await waitFor('both jobs to start', () => started.length === 2);
  let stopped = false;
  const stopping = w.stop().then(() => (stopped = true));
  const third = await enqueue(queue, 3);
  assert.equal(stopped, false, 'stop() waits for the running jobs');
  release.open();
  await stopping;
  assert.equal(w.running, 0);
  assert.equal((await job(first)).state, 'completed');
  assert.equal((await job(second)).state, 'completed');
  assert.equal((await job(third)).state, 'queued', 'a stopping worker claims no new job');
  assert.deepEqual(started.sort(), [first, second].sort());
});

test('an AbortSignal passed in stops the worker like stop()', async () => {
  const controller = new AbortController();
  const w = await runWorker({ socketPath: daemon.socketPath, queues: [freshQueue()], pollWaitMs: 500, signal: controller.signal, handler: () => undefined });
  controller.abort();
  await w.done;
  assert.equal(w.running, 0);
});

test('the worker registers itself and shows in workers.list while it runs', async (t) => {
  const w = await worker(t, { queues: [freshQueue()], kinds: ['a', 'b'], concurrency: 3, name: 'listed worker', handler: () => undefined });
  const list = await client.call('workers.list');
  const me = list.workers.find((x) => x.id === w.workerId);
  assert.ok(me, 'registered');
  assert.equal(me.type, 'remote');
  assert.equal(me.name, 'listed worker');
  assert.deepEqual(me.kinds, ['a', 'b']);
  assert.equal(me.concurrency, 3);
  assert.equal(me.pid, process.pid);
});

test('runWorker fails with the "No Spool daemon" error when nothing listens', async () => {
  const socketPath = path.join(os.tmpdir(), `spool-none-${process.pid}.sock`);
  await assert.rejects(
    runWorker({ socketPath, handler: () => undefined }),
    (error: unknown) => error instanceof DaemonNotRunningError && error.message === `No Spool daemon at ${socketPath} (ENOENT). Start one with \`spool daemon --detach\`.`,
  );
});
