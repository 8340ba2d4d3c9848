/**
 * The typed client beneath the CLI, the extension and the worker helper, against a real
 * daemon: request timeouts, subscriptions, what happens when the daemon goes away, and
 * reconnection (with re-subscription and worker re-registration) when it comes back. Drops at
 * moments a real daemon cannot be made to hit on cue come from a small mock server instead.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ConnectionLostError, SpoolClient, type ConnectionState } from '../../shared/client/client';
import type { JobChangedEvent } from '../../shared/protocol';
import { RetryLaterError, runWorker, SnoozeError } from '../../shared/client/worker';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

let daemon: TestDaemon;

before(async () => {
  daemon = await startDaemon();
});
after(async () => {
  await daemon.dispose();
});

async function connect(t: { after: (fn: () => void) => void }, options: { reconnect?: boolean; requestTimeoutMs?: number } = {}): Promise<SpoolClient> {
  const client = await SpoolClient.connect({ socketPath: daemon.socketPath, ...options });
  t.after(() => client.close());
  return client;
}

test('handshake returns the status of a daemon speaking this protocol', async (t) => {
  const client = await connect(t);
  const status = await client.handshake();
  assert.equal(status.pid, daemon.pid);
  assert.equal(status.socketPath, daemon.socketPath);
});

test('a request that gets no answer in time fails with a message naming the method', async (t) => {
  const client = await connect(t);
  const started = Date.now();
  await assert.rejects(
    client.call('jobs.claim', { workerId: 'timeout-test', queues: ['never-filled'], waitMs: 10_000 }, { timeoutMs: 300 }),
    /The daemon did not answer jobs\.claim within 300 ms\./,
  );
  assert.ok(Date.now() - started < 9000, 'it did not wait for the long poll');
  // The connection still works afterwards.
  assert.equal((await client.call('daemon.status')).pid, daemon.pid);
});

test('subscribe delivers only its own subscription\'s notifications, until unsubscribed', async (t) => {
  const client = await connect(t);
  const mine: JobChangedEvent[] = [];
  const other: JobChangedEvent[] = [];
  const sub = await client.subscribe({ topics: ['jobs'], queues: ['sub-a'] }, { 'jobs.changed': (e) => mine.push(e) });
  await client.subscribe({ topics: ['jobs'], queues: ['sub-b'] }, { 'jobs.changed': (e) => other.push(e) });
  const a = await client.call('jobs.enqueue', { queue: 'sub-a', kind: 'x' });
  const b = await client.call('jobs.enqueue', { queue: 'sub-b', kind: 'x' });
  await waitFor('both notifications', () => mine.length > 0 && other.length > 0);
  assert.ok(mine.every((e) => e.queue === 'sub-a' && e.subscriptionId === sub.id));
  assert.ok(other.every((e) => e.queue === 'sub-b'));
  assert.equal(mine[0]?.id, a.job.id);
  assert.equal(other[0]?.id, b.job.id);
  await sub.unsubscribe();
  const count = mine.length;
  await client.call('jobs.enqueue', { queue: 'sub-a', kind: 'x' });
  const c = await client.call('jobs.enqueue', { queue: 'sub-b', kind: 'x' });
  await waitFor('the other subscription to see its job', () => other.some((e) => e.id === c.job.id));
  assert.equal(mine.length, count, 'no notification after unsubscribe');
});

test('without reconnect, the client closes with the daemon and later calls fail clearly', async (t) => {
  const own = await startDaemon();
  t.after(() => own.dispose());
  const client = await SpoolClient.connect({ socketPath: own.socketPath });
  t.after(() => client.close());
  let closed = false;
  client.onClose(() => (closed = true));
  await own.stop();
  await waitFor('the client to notice', () => closed);
  assert.equal(client.isClosed, true);
  assert.equal(client.state, 'closed');
  await assert.rejects(client.call('daemon.status'), (e: unknown) => e instanceof ConnectionLostError && /client is closed/.test(e.message));
});

test('with reconnect, the client comes back after a daemon restart, re-subscribes, and waiting calls go through', async (t) => {
  const own = await startDaemon();
  t.after(() => own.dispose());
  const client = await SpoolClient.connect({ socketPath: own.socketPath, reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
  t.after(() => client.close());
  const states: ConnectionState[] = [];
  client.onStateChange((s) => states.push(s));
  const events: JobChangedEvent[] = [];
  await client.subscribe({ topics: ['jobs'] }, { 'jobs.changed': (e) => events.push(e) });

  await own.stop();
  await waitFor('the client to report the drop', () => states.includes('disconnected'));
  assert.equal(client.state, 'disconnected');
  // A call made while the daemon is down waits for it instead of failing.
  const pending = client.call('daemon.status', undefined, { timeoutMs: 30_000 });
  await own.restart();
  const status = await pending;
  assert.equal(status.pid, own.pid);
  await waitFor('the client to report it is back', () => states.includes('connected'));
  assert.deepEqual(states, ['disconnected', 'connected']);

  const enq = await client.call('jobs.enqueue', { queue: 'after-restart', kind: 'x' });
  await waitFor('a notification on the new connection', () => events.some((e) => e.id === enq.job.id));
});

test('a worker keeps taking jobs after the daemon restarts', async (t) => {
  const own = await startDaemon();
  t.after(() => own.dispose());
  const done: string[] = [];
  const w = await runWorker({ socketPath: own.socketPath, queues: ['survivor'], pollWaitMs: 500, onError: () => undefined, handler: (j) => void done.push(j.id) });
  t.after(() => w.stop());
  const client = await SpoolClient.connect({ socketPath: own.socketPath, reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
  t.after(() => client.close());
  const first = await client.call('jobs.enqueue', { queue: 'survivor', kind: 'x' });
  await waitFor('the first job', () => done.includes(first.job.id));
  await own.restart();
  const second = await client.call('jobs.enqueue', { queue: 'survivor', kind: 'x' }, { timeoutMs: 30_000 });
  await waitFor('the second job, after the restart', () => done.includes(second.job.id), 30_000);
  await waitFor('it to be completed', async () => (await client.call('jobs.get', { id: second.job.id })).job.state === 'completed');
  const workers = await client.call('workers.list');
  assert.ok(workers.workers.some((x) => x.id === w.workerId && x.alive), 'registered again on the new daemon');
});

test('a handler that throws SnoozeError puts the job off without using an attempt; RetryLaterError sets the next attempt time', async (t) => {
  const client = await connect(t);
  const seen = new Map<string, number>();
  const w = await runWorker({
    socketPath: daemon.socketPath,
    queues: ['later'],
    pollWaitMs: 200,
    onError: () => undefined,
    handler: (job) => {
      const n = (seen.get(job.id) ?? 0) + 1;
      seen.set(job.id, n);
      const mode = (job.payload as { mode: string }).mode;
      if (n === 1 && mode === 'snooze') throw new SnoozeError(300);
      if (n === 1 && mode === 'later') throw new RetryLaterError('come back in a moment', Date.now() + 300);
      return { n };
    },
  });
  t.after(() => w.stop());
  const backoff = { strategy: 'fixed' as const, baseMs: 60_000, capMs: 60_000, jitter: 0 };
  const snoozed = (await client.call('jobs.enqueue', { queue: 'later', kind: 'x', payload: { mode: 'snooze' }, maxAttempts: 1 })).job;
  const later = (await client.call('jobs.enqueue', { queue: 'later', kind: 'x', payload: { mode: 'later' }, maxAttempts: 2, backoff })).job;
  const ended = async (id: string) => waitFor(`job ${id} to complete`, async () => {
    const r = await client.call('jobs.get', { id });
    return r.job.state === 'completed' ? r : undefined;
  });
  const a = await ended(snoozed.id);
  assert.equal(a.job.attempts, 1, 'a job of one attempt ran twice: the snooze used none');
  assert.deepEqual(a.runs.map((r) => r.outcome), ['interrupted', 'completed']);
  // The backoff alone would wait a minute: completing within the wait shows retryAt was used.
  const b = await ended(later.id);
  assert.equal(b.job.attempts, 2);
  assert.deepEqual(b.runs.map((r) => [r.outcome, r.error]), [['failed', 'come back in a moment'], ['completed', null]]);
});

/**
 * A stand-in daemon on a real Unix socket that drops connections on cue: the first right after
 * answering `daemon.status`, the second when it receives `workers.register` (so mid-reconnect),
 * and from the third on it answers `workers.register` only after `registerDelayMs`, which leaves
 * a second, concurrent reconnect attempt ample time to dial in if the client makes one.
 */
async function startDroppingServer(socketPath: string, registerDelayMs: number): Promise<{ connections: () => number; close: () => void }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = net.createServer((socket) => {
    const n = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that goes away mid-write resets the socket; 'close' follows and is all that matters here.
    socket.on('error', () => sockets.delete(socket));
    const answer = (id: unknown, result: unknown, then?: 'end'): void => {
      const line = JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n';
      if (then === 'end') socket.end(line);
      else socket.write(line);
    };
    let buffered = '';
    socket.on('data', (data: Buffer) => {
      buffered += data.toString('utf8');
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const request: unknown = JSON.parse(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
        if (typeof request !== 'object' || request === null || !('method' in request) || !('id' in request)) continue;
        if (n === 1 && request.method === 'daemon.status') {
          answer(request.id, {}, 'end');
        } else if (n === 2 && request.method === 'workers.register') {
          socket.destroy();
        } else if (request.method === 'workers.register') {
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (!socket.destroyed) answer(request.id, { worker: { id: 'reconnecting-client' } });
          }, registerDelayMs);
          timers.add(timer);
        } else {
          answer(request.id, {});
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    connections: () => connections,
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

test('a reconnect whose new socket drops during re-registration makes one attempt at a time, and close() lets the process exit', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-client-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 'mock.sock');
  const server = await startDroppingServer(socketPath, 500);
  t.after(() => server.close());

  // The client runs in its own process: whether that process exits is the one reliable sign
  // that no socket or timer of the closed client is left holding the event loop.
  const fixture = path.resolve(__dirname, '..', 'fixtures', 'reconnecting-client.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, socketPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const states = (): string[] => stdout.split('\n').filter((line) => line !== '');

  await waitFor('the client to reconnect and close itself', () => states().includes('closed') || child.exitCode !== null, 30_000);
  await waitFor('the client process to exit after close() (a socket or timer of the client is keeping it alive)', () => child.exitCode !== null, 5000);
  assert.equal(child.exitCode, 0, `the client process failed: ${stderr}`);
  assert.deepEqual(states(), ['disconnected', 'connected', 'closed']);
  assert.equal(server.connections(), 3, 'after the second drop the client dialled once, not once per scheduled retry');
});
