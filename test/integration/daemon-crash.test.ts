/**
 * kill -9 in the middle of work: 5,000 enqueues in flight and a running shell job. After a
 * restart every acknowledged enqueue is there, nothing is duplicated, and the interrupted shell
 * job runs again — after the processes its first run left behind have been stopped. And kill -9
 * while workers complete batches: every acknowledged complete holds, the rest run again once.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

async function allJobs(client: SpoolClient, queue: string): Promise<{ id: string; payload: unknown }[]> {
  const out: { id: string; payload: unknown }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await client.call('jobs.list', { queue, limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.jobs.map((j) => ({ id: j.id, payload: j.payload })));
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

/**
 * Kills `daemon` with SIGKILL once half of `total` is acknowledged. `run(step)` repeats `step`
 * (which adds what the daemon acknowledged to `acknowledged`, and says whether there is more)
 * until it has no more, or until it fails after the kill: requests in flight when the daemon
 * died fail, and were never acknowledged.
 */
function killHalfway(daemon: TestDaemon, total: number, acknowledged: Set<unknown>): { killed(): boolean; run(step: () => Promise<boolean>): Promise<void> } {
  let killed = false;
  return {
    killed: () => killed,
    async run(step) {
      for (;;) {
        try {
          if (!(await step())) return;
        } catch (error) {
          if (!killed) throw error;
          return;
        }
        if (acknowledged.size >= total / 2 && !killed) {
          killed = true;
          await daemon.kill();
        }
      }
    },
  };
}

test('kill -9 during 5,000 enqueues and a running shell job loses nothing acknowledged and reruns the job', async (t) => {
  const daemon = await startDaemon();
  const runsFile = path.join(daemon.dir, 'runs.txt');
  const childrenFile = path.join(daemon.dir, 'children.txt');
  const lines = (file: string): number[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  t.after(async () => {
    // Should the test fail before the restarted daemon stopped them, the processes of the run
    // the SIGKILLed daemon left behind would live on: end every group the job started.
    for (const pid of lines(runsFile)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone (stopped by the restarted daemon, or by the cancel at the end).
      }
    }
    await daemon.dispose();
  });

  const client = await daemon.client();
  const { job: shellJob } = await client.call('jobs.enqueue', {
    queue: 'crash-shell',
    kind: 'shell',
    timeoutMs: 600_000,
    // The shell records itself and a child it starts in the background, then waits.
    payload: { command: `echo $$ >> ${runsFile}; sleep 300 & echo $! >> ${childrenFile}; wait` },
  });
  await waitFor('the shell job to start its child', () => lines(runsFile).length === 1 && lines(childrenFile).length === 1);
  const [firstShell] = lines(runsFile);
  const [firstChild] = lines(childrenFile);

  // 5,000 enqueues, 64 in flight at a time; the daemon is killed halfway through.
  const total = 5000;
  const acknowledged = new Set<number>();
  let next = 0;
  const kill = killHalfway(daemon, total, acknowledged);
  const producer = (): Promise<void> =>
    kill.run(async () => {
      if (next >= total) return false;
      const i = next++;
      await client.call('jobs.enqueue', { queue: 'load', kind: 'item', payload: { i } });
      acknowledged.add(i);
      return true;
    });
  await Promise.all(Array.from({ length: 64 }, producer));
  assert.ok(kill.killed(), 'the daemon was killed mid-load');
  // SIGKILL gave the daemon no chance to stop its job: the first run's processes live on.
  assert.ok(firstShell !== undefined && processAlive(firstShell), 'the first run\'s shell outlived the daemon');
  assert.ok(firstChild !== undefined && processAlive(firstChild), 'the first run\'s child outlived the daemon');
  assert.ok(acknowledged.size >= total / 2 && acknowledged.size < total);

  await daemon.restart();
  const after = await daemon.client();
  const stored = await allJobs(after, 'load');
  const seen = new Map<number, number>();
  for (const job of stored) {
    const i = (job.payload as { i: number }).i;
    seen.set(i, (seen.get(i) ?? 0) + 1);
  }
  const missing = [...acknowledged].filter((i) => !seen.has(i));
  assert.deepEqual(missing, [], 'every acknowledged enqueue survived');
  const duplicated = [...seen].filter(([, n]) => n > 1);
  assert.deepEqual(duplicated, [], 'nothing was stored twice');
  assert.ok(stored.length <= total);

  // The shell job was running when the daemon died: it is recovered and runs again.
  await waitFor('the shell job to run a second time', () => lines(runsFile).length >= 2);
  // The restarted daemon stopped the first run's processes before running the job again.
  assert.equal(processAlive(firstShell), false, 'the first run\'s shell is gone');
  assert.equal(processAlive(firstChild), false, 'the first run\'s child is gone');
  const { job, runs } = await after.call('jobs.get', { id: shellJob.id });
  assert.equal(job.state, 'running');
  assert.ok(runs.length >= 2);
  assert.notEqual(runs[0].outcome, 'running');
  await after.call('jobs.cancel', { id: shellJob.id });
  await waitFor('the rerun to be cancelled', async () => (await after.call('jobs.get', { id: shellJob.id })).job.state === 'cancelled');
});

test('kill -9 while workers complete batches with jobs.completeMany: every acknowledged complete holds, and no job is lost or completed twice', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const producer = await daemon.client();
  const total = 3000;
  const job = (i: number) => ({ queue: 'done', kind: 'item', payload: { i }, timeoutMs: 5000 });
  for (let i = 0; i < total; i += 500) await producer.call('jobs.enqueueBatch', { jobs: Array.from({ length: 500 }, (_, k) => job(i + k)) });

  // Two workers claim 50 at a time and complete each batch in one call; the daemon is killed
  // once half the jobs are acknowledged as completed.
  const acknowledged = new Set<string>();
  const kill = killHalfway(daemon, total, acknowledged);
  const worker = async (workerId: string): Promise<void> => {
    const client = await daemon.client();
    await kill.run(async () => {
      const { jobs } = await client.call('jobs.claim', { workerId, queues: ['done'], max: 50, fields: ['attempts'] });
      if (jobs.length === 0) return false;
      const answer = await client.call('jobs.completeMany', { workerId, jobs: jobs.map((j) => ({ id: j.id })) });
      assert.deepEqual(answer.failed, []);
      for (const j of jobs) acknowledged.add(j.id);
      return true;
    });
  };
  await Promise.all([worker('batch-1'), worker('batch-2')]);
  assert.ok(kill.killed(), 'the daemon was killed mid-drain');

  await daemon.restart();
  const client = await daemon.client();
  const states = new Map<string, string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await client.call('jobs.list', { queue: 'done', limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const j of page.jobs) states.set(j.id, j.state);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  assert.equal(states.size, total, 'no job lost');
  const notCompleted = [...acknowledged].filter((id) => states.get(id) !== 'completed');
  assert.deepEqual(notCompleted, [], 'every complete the daemon acknowledged survived');
  // The rest were queued or running for a worker that is gone: they run again, once each.
  const left = [...states].filter(([, state]) => state !== 'completed').map(([id]) => id);
  // Jobs the killed workers held come back when their 5 s lease runs out, after a retry's backoff.
  const again = new Set<string>();
  const deadline = Date.now() + 90_000;
  while (again.size < left.length) {
    assert.ok(Date.now() < deadline, `${left.length - again.size} of ${left.length} jobs never came back`);
    const { jobs } = await client.call('jobs.claim', { workerId: 'after', queues: ['done'], max: 500, waitMs: 5000 });
    for (const j of jobs) {
      assert.ok(!again.has(j.id), `job ${j.id} claimed twice`);
      assert.ok(!acknowledged.has(j.id), `job ${j.id} was completed before the kill`);
      again.add(j.id);
    }
    if (jobs.length > 0) await client.call('jobs.completeMany', { workerId: 'after', jobs: jobs.map((j) => ({ id: j.id })) });
  }
  const stats = await client.call('stats.get');
  assert.equal(stats.totals.completed, total, 'the counters agree: every job completed once');
});
