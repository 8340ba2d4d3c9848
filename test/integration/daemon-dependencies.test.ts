/**
 * Dependencies between shell jobs in a real daemon: a `::spool result` line becomes the job's
 * result and reaches the job that depends on it through SPOOL_DEPENDENCIES; a worker waiting in
 * jobs.claim gets a child as soon as its parent completes (woken, not at the end of its wait);
 * and a chain killed
 * with -9 in the middle finishes after a restart, each step once to its end, in order, the
 * interrupted step's first run stopped before its second starts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { processAlive, startDaemon, waitFor } from '../helpers/daemon';

async function stateOf(client: SpoolClient, id: string): Promise<string> {
  return (await client.call('jobs.get', { id })).job.state;
}

test('a shell job reports its result with ::spool result, and the job depending on it reads it from SPOOL_DEPENDENCIES', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const seen = path.join(daemon.dir, 'seen.json');
  const where = path.join(daemon.dir, 'where.txt');
  const { job: build } = await client.call('jobs.enqueue', {
    queue: 'deps',
    kind: 'shell',
    payload: { command: `echo '::spool result "first"'; echo building; echo '::spool result {"version":"1.2","ok":true}'` },
    // Held back until the dependent job is in: the built-in executor could otherwise finish it first.
    delayMs: 600_000,
  });
  const { job: deploy } = await client.call('jobs.enqueue', {
    queue: 'deps',
    kind: 'shell',
    payload: { command: `cp "$SPOOL_DEPENDENCIES" ${seen}; echo "$SPOOL_DEPENDENCIES $(stat -c %a "$SPOOL_DEPENDENCIES") $(stat -c %a "$(dirname "$SPOOL_DEPENDENCIES")")" > ${where}` },
    dependsOn: [build.id],
  });
  assert.equal(deploy.state, 'blocked');
  await client.call('jobs.runNow', { id: build.id });
  await waitFor('the dependent job to complete', async () => (await stateOf(client, deploy.id)) === 'completed');
  const built = await client.call('jobs.get', { id: build.id });
  assert.deepEqual(built.job.result, { version: '1.2', ok: true }, 'the last result line wins');
  const handed: unknown = JSON.parse(fs.readFileSync(seen, 'utf8'));
  assert.deepEqual(handed, [{ id: build.id, on: 'succeeded', state: 'completed', step: null, queue: 'deps', kind: 'shell', result: { version: '1.2', ok: true } }]);
  const [file, fileMode, folderMode] = fs.readFileSync(where, 'utf8').trim().split(' ');
  assert.deepEqual([fileMode, folderMode], ['600', '700']);
  assert.equal(fs.existsSync(path.dirname(file ?? '')), false, 'the file and its folder are removed when the command ends');
  const got = await client.call('jobs.get', { id: deploy.id });
  assert.deepEqual(got.dependencies.map((d) => [d.id, d.state]), [[build.id, 'completed']]);
  assert.deepEqual((await client.call('jobs.get', { id: build.id })).dependents.map((d) => [d.id, d.state]), [[deploy.id, 'completed']]);
});

test('a worker waiting in jobs.claim gets the child the moment its parent completes, on another connection, with no poll between', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const parents = await daemon.client();
  const children = await daemon.client();
  const times: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const { job: parent } = await parents.call('jobs.enqueue', { queue: 'parents', kind: 'parent' });
    const { job: child } = await parents.call('jobs.enqueue', { queue: 'children', kind: 'child', dependsOn: [parent.id] });
    await parents.call('jobs.claim', { workerId: 'parent-worker', queues: ['parents'], kinds: ['parent'] });
    // Waits far longer than the test allows: only a wake-up can answer it in time.
    const waiting = children.call('jobs.claim', { workerId: 'child-worker', queues: ['children'], kinds: ['child'], waitMs: 30_000 }, { timeoutMs: 60_000 });
    // A call after it on the same connection is answered once the daemon has read the claim.
    assert.equal((await children.call('jobs.get', { id: child.id })).job.state, 'blocked');
    const started = performance.now();
    await parents.call('jobs.complete', { id: parent.id, workerId: 'parent-worker' });
    const { jobs } = await waiting;
    times.push(performance.now() - started);
    assert.ok((times[i] ?? Infinity) < 10_000, `the waiting claim was answered by a wake-up, not at the end of its 30 s wait (${Math.round(times[i] ?? 0)} ms)`);
    assert.deepEqual(
      jobs.map((j) => j.id),
      [child.id],
    );
    await children.call('jobs.complete', { id: child.id, workerId: 'child-worker' });
  }
  times.sort((a, b) => a - b);
  console.log(`parent complete sent → waiting claim answered with the child: median ${times[5]?.toFixed(1)} ms, slowest ${times[9]?.toFixed(1)} ms`);
});

test('kill -9 in the middle of a chain of shell jobs: after a restart the chain finishes, each step once to its end, in order', async (t) => {
  const daemon = await startDaemon();
  const log = path.join(daemon.dir, 'chain.log');
  const marker = path.join(daemon.dir, 'step3-started');
  const lines = (): string[][] => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')) : []);
  t.after(async () => {
    for (const [, , pid] of lines()) {
      try {
        process.kill(-Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await daemon.dispose();
  });
  const client = await daemon.client();
  const ids: string[] = [];
  for (let step = 1; step <= 5; step += 1) {
    // Step 3's first run waits long enough to be caught by the kill; its rerun does not.
    const wait = step === 3 ? `if [ -e ${marker} ]; then sleep 0.2; else touch ${marker}; sleep 60; fi` : 'sleep 0.2';
    const command = `echo "start ${step} $$" >> ${log}; ${wait}; echo "end ${step} $$" >> ${log}; echo '::spool result ${step}'`;
    const { job } = await client.call('jobs.enqueue', { queue: 'chain', kind: 'shell', timeoutMs: 600_000, payload: { command }, dependsOn: ids.slice(-1) });
    ids.push(job.id);
  }
  await waitFor('step 3 to start', () => lines().some(([what, step]) => what === 'start' && step === '3'));
  await daemon.kill();
  const firstRun = lines().find(([what, step]) => what === 'start' && step === '3')?.[2];
  await daemon.restart();
  const after = await daemon.client();
  await waitFor('the chain to finish', async () => (await stateOf(after, ids[4] ?? '')) === 'completed', 60_000);
  const done = lines();
  for (let step = 1; step <= 5; step += 1) {
    const ends = done.filter(([what, s]) => what === 'end' && s === String(step));
    assert.equal(ends.length, 1, `step ${step} ran to its end once`);
    // Each step started only after the one before it ended.
    const firstStart = done.findIndex(([what, s]) => what === 'start' && s === String(step));
    const previousEnd = done.findIndex(([what, s]) => what === 'end' && s === String(step - 1));
    if (step > 1) assert.ok(previousEnd >= 0 && previousEnd < firstStart, `step ${step} waited for step ${step - 1}`);
  }
  // The run the killed daemon left behind was stopped before the rerun: it never reached its end.
  assert.equal(done.filter(([what, s]) => what === 'start' && s === '3').length, 2, 'step 3 ran again after the restart');
  assert.ok(firstRun !== undefined && !processAlive(Number(firstRun)), 'the first run of step 3 is gone');
  assert.equal(done.filter(([what, s, pid]) => what === 'end' && s === '3' && pid === firstRun).length, 0, 'the first run of step 3 never reached its end');
  for (const id of ids) assert.equal(await stateOf(after, id), 'completed');
  assert.deepEqual((await after.call('jobs.get', { id: ids[4] ?? '' })).job.result, 5);
});
