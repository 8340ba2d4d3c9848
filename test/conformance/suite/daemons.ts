import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeEngine, type TestStoreFactory } from '../harness';

const A = { id: 'daemon-a', host: 'box', pid: 101, processStart: '5000', socketPath: '/run/a.sock', executorId: 'builtin:box:a' };
const B = { id: 'daemon-b', host: 'box', pid: 202, processStart: null, socketPath: '/run/b.sock', executorId: 'builtin:box:b' };

/** The daemon-instance tests, run against the store `store` makes. */
export function defineDaemons(store: TestStoreFactory): void {
  test('daemons record themselves with pid, process start, host, socket and executor id, seen by every daemon on the store', async (t) => {
    const { engine, clock, openShared } = makeEngine(t, store);
    const a = await engine.registerDaemon(A);
    assert.deepEqual(a, { ...A, startedAt: clock.ms, heartbeatAt: clock.ms, stoppedAt: null });
    clock.advance(10);
    const other = openShared();
    await other.registerDaemon(B);
    assert.deepEqual((await engine.listDaemons()).map((d) => [d.id, d.pid, d.processStart, d.startedAt]), [
      ['daemon-a', 101, '5000', clock.ms - 10],
      ['daemon-b', 202, null, clock.ms],
    ]);
  });

  test("a daemon's heartbeat refreshes its own and its executors' seen time; a stopped or forgotten daemon's executors show as gone", async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.registerDaemon(A);
    await engine.registerWorker({ workerId: A.executorId, host: 'box', pid: A.pid }, 'builtin');
    await engine.registerDaemon(B);
    await engine.registerWorker({ workerId: B.executorId, host: 'box', pid: B.pid }, 'builtin');
    clock.advance(2000);
    await engine.markWorkerGone(A.executorId);
    assert.equal(await engine.daemonHeartbeat(A.id, A.pid), true);
    const seen = (await engine.listWorkers()).find((w) => w.id === A.executorId);
    assert.deepEqual([seen?.alive, seen?.lastHeartbeatAt], [true, clock.ms], 'alive again and seen now, as long as its daemon is');
    assert.equal((await engine.listDaemons()).find((d) => d.id === A.id)?.heartbeatAt, clock.ms);

    // The executor id now belongs to another process (a daemon that took the socket over): the
    // old daemon's heartbeat and stop leave that row alone.
    await engine.registerWorker({ workerId: A.executorId, host: 'box', pid: 999 }, 'builtin');
    clock.advance(1000);
    assert.equal(await engine.daemonHeartbeat(A.id, A.pid), true);
    assert.notEqual((await engine.listWorkers()).find((w) => w.id === A.executorId)?.lastHeartbeatAt, clock.ms);
    assert.equal(await engine.daemonStopped(A.id, A.pid), true);
    assert.equal((await engine.listWorkers()).find((w) => w.id === A.executorId)?.alive, true);

    const stopped = (await engine.listDaemons()).find((d) => d.id === A.id);
    assert.deepEqual([stopped?.stoppedAt, stopped?.heartbeatAt], [clock.ms, clock.ms], 'kept until a successor has recovered what it left');
    assert.equal(await engine.daemonHeartbeat(A.id, A.pid), false, 'a stopped daemon beats no more');

    assert.equal(await engine.daemonStopped(B.id, B.pid), true);
    assert.equal((await engine.listWorkers()).find((w) => w.id === B.executorId)?.alive, false, 'a stopped daemon leaves no executor listed alive');
    assert.equal(await engine.forgetDaemon(B.id, B.pid), true);
    assert.deepEqual((await engine.listDaemons()).map((d) => d.id), [A.id]);
    assert.equal(await engine.forgetDaemon(B.id, B.pid), false);
    assert.equal(await engine.daemonHeartbeat('never-registered', 1), false);
  });
}
