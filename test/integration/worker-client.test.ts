/**
 * The typed client beneath the CLI, the extension and the worker helper, against a real
 * daemon: request timeouts, subscriptions, what happens when the daemon goes away, and
 * reconnection (with re-subscription and worker re-registration) when it comes back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConnectionLostError, SpoolClient, type ConnectionState } from '../../shared/client';
import type { JobChangedEvent } from '../../shared/protocol';
import { runWorker } from '../../shared/worker';
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
