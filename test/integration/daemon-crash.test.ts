/**
 * kill -9 in the middle of work: 5,000 enqueues in flight and a running shell job. After a
 * restart every acknowledged enqueue is there, nothing is duplicated, and the interrupted shell
 * job runs again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SpoolClient } from '../../shared/client';
import { startDaemon, waitFor } from '../helpers/daemon';

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

test('kill -9 during 5,000 enqueues and a running shell job loses nothing acknowledged and reruns the job', async (t) => {
  const daemon = await startDaemon();
  const runsFile = path.join(daemon.dir, 'runs.txt');
  t.after(async () => {
    // The daemon was killed with SIGKILL while the shell job ran, so that job's process group
    // outlived it; end every group the job started.
    if (fs.existsSync(runsFile)) {
      for (const pid of fs.readFileSync(runsFile, 'utf8').split('\n').filter(Boolean).map(Number)) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Already gone (the restarted daemon stopped it when the job was cancelled).
        }
      }
    }
    await daemon.dispose();
  });

  const client = await daemon.client();
  const { job: shellJob } = await client.call('jobs.enqueue', {
    queue: 'crash-shell',
    kind: 'shell',
    timeoutMs: 600_000,
    payload: { command: `echo $$ >> ${runsFile}; sleep 300` },
  });
  await waitFor('the shell job to start', () => fs.existsSync(runsFile) && fs.readFileSync(runsFile, 'utf8').trim().split('\n').length === 1);

  // 5,000 enqueues, 64 in flight at a time; the daemon is killed halfway through.
  const total = 5000;
  const acknowledged = new Set<number>();
  let next = 0;
  let killed = false;
  const producer = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      try {
        await client.call('jobs.enqueue', { queue: 'load', kind: 'item', payload: { i } });
        acknowledged.add(i);
      } catch (error) {
        // Requests in flight when the daemon died fail; they were never acknowledged.
        if (!killed) throw error;
        return;
      }
      if (acknowledged.size >= total / 2 && !killed) {
        killed = true;
        await daemon.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, producer));
  assert.ok(killed, 'the daemon was killed mid-load');
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
  await waitFor('the shell job to run a second time', () => fs.readFileSync(runsFile, 'utf8').trim().split('\n').length >= 2);
  const { job, runs } = await after.call('jobs.get', { id: shellJob.id });
  assert.equal(job.state, 'running');
  assert.ok(runs.length >= 2);
  assert.notEqual(runs[0].outcome, 'running');
  await after.call('jobs.cancel', { id: shellJob.id });
  await waitFor('the rerun to be cancelled', async () => (await after.call('jobs.get', { id: shellJob.id })).job.state === 'cancelled');
});
