/**
 * Daemons on one database, as real processes on real sockets: a daemon started on another
 * socket recovers the shell jobs of a dead predecessor (stopping what they left running, and
 * recording the interrupted run as ending before the predecessor died), never those of a daemon
 * still alive; a daemon stopped beside another leaves its executors listed as gone; and built-in
 * executors stay alive and seen while their daemon runs, whoever used their worker id.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job, Worker } from '../../shared/protocol/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

async function daemonPair(t: { after: (fn: () => Promise<void>) => void }): Promise<{ a: TestDaemon; startB: () => Promise<TestDaemon> }> {
  const a = await startDaemon();
  t.after(() => a.dispose());
  return {
    a,
    startB: async () => {
      const b = await startDaemon({ dir: a.dir, socketPath: path.join(a.dir, 'other.sock'), dbPath: a.dbPath });
      t.after(() => b.dispose());
      return b;
    },
  };
}

async function running(client: SpoolClient, id: string): Promise<Job> {
  return waitFor(`job ${id} to run`, async () => {
    const job = (await client.call('jobs.get', { id })).job;
    return job.state === 'running' ? job : undefined;
  });
}

async function executorOf(client: SpoolClient, pid: number): Promise<Worker | undefined> {
  return (await client.call('workers.list', {})).workers.find((w) => w.type === 'builtin' && w.pid === pid);
}

test("a daemon restarted on another socket recovers a dead daemon's shell jobs, stopping what they left running", async (t) => {
  const { a, startB } = await daemonPair(t);
  const mark = path.join(a.dir, 'first-run');
  const pidFile = path.join(a.dir, 'sleeper.pid');
  const command = `if [ -e '${mark}' ]; then echo second run; else touch '${mark}'; sleep 300 & echo $! > '${pidFile}'; echo first run; wait; fi`;
  const clientA = await a.client();
  const { job } = await clientA.call('jobs.enqueue', { queue: 'q', kind: 'shell', payload: { command } });
  await running(clientA, job.id);
  await waitFor('the first run to print', async () => (await clientA.call('jobs.output', { id: job.id })).lines.some((l) => l.text === 'first run'));
  const sleeper = Number(fs.readFileSync(pidFile, 'utf8').trim());
  await a.kill();
  const killedAt = Date.now();

  const b = await startB();
  const clientB = await b.client();
  const done = await waitFor('the job to run again and complete under the new daemon', async () => {
    const got = await clientB.call('jobs.get', { id: job.id });
    return got.job.state === 'completed' ? got : undefined;
  });
  assert.deepEqual(done.runs.map((r) => r.outcome), ['interrupted', 'completed']);
  const interrupted = done.runs[0];
  assert.ok(interrupted?.finishedAt !== null && interrupted !== undefined && interrupted.finishedAt <= killedAt, 'the interrupted run ends before its daemon died, not at the recovery');
  assert.ok((await clientB.call('jobs.output', { id: job.id })).lines.some((l) => l.text === 'second run'));
  await waitFor('the process the first run left to be stopped', () => !processAlive(sleeper));
  const executors = (await clientB.call('workers.list', {})).workers.filter((w) => w.type === 'builtin');
  assert.deepEqual(
    executors.map((w) => [w.pid, w.alive]).sort(),
    [[a.pid, false], [b.pid, true]].sort(),
    "the dead daemon's executors are listed as gone",
  );
});

test('a daemon never recovers the jobs of one still running on the same database, and one stopped beside it leaves its executors gone', async (t) => {
  const { a, startB } = await daemonPair(t);
  const clientA = await a.client();
  const { job } = await clientA.call('jobs.enqueue', { queue: 'q', kind: 'shell', payload: { command: 'sleep 300' } });
  const before = await running(clientA, job.id);
  const b = await startB();
  const clientB = await b.client();
  const after = (await clientB.call('jobs.get', { id: job.id })).job;
  assert.deepEqual([after.state, after.workerId, after.attempts], ['running', before.workerId, 1], "the live daemon's job is left alone");
  assert.deepEqual((await clientB.call('jobs.get', { id: job.id })).runs.map((r) => r.outcome), ['running'], 'its run was not interrupted');
  assert.equal((await executorOf(clientA, b.pid))?.alive, true);

  await b.stop();
  assert.equal((await executorOf(clientA, b.pid))?.alive, false, 'the stopped daemon left no executor listed alive');
  assert.equal((await executorOf(clientA, a.pid))?.alive, true);
  assert.equal((await clientA.call('jobs.get', { id: job.id })).job.state, 'running');
  await clientA.call('jobs.cancel', { id: job.id });
});

test('built-in executors stay alive while their daemon runs, whoever used their worker id, and their seen time refreshes', async (t) => {
  const a = await startDaemon();
  t.after(() => a.dispose());
  const client = await a.client();
  const { job } = await client.call('jobs.enqueue', { queue: 'q', kind: 'shell', payload: { command: 'sleep 300' } });
  const claimed = await running(client, job.id);
  const executorId = claimed.workerId ?? '';
  // A client (as a shell job might) reports progress under the executors' worker id, then leaves.
  const other = await a.client();
  await other.call('jobs.progress', { id: job.id, workerId: executorId, percent: 40, message: 'halfway' });
  other.close();
  const first = await executorOf(client, a.pid);
  assert.ok(first);
  const later = await waitFor('the executors to be seen again', async () => {
    const w = await executorOf(client, a.pid);
    return w !== undefined && w.lastHeartbeatAt > first.lastHeartbeatAt ? w : undefined;
  });
  assert.equal(later.alive, true, 'not marked gone when that client closed');
  await client.call('jobs.cancel', { id: job.id });
});
