/**
 * Dependencies between shell jobs in a real daemon: a `::spool result` line becomes the job's
 * result and reaches the job that depends on it through SPOOL_DEPENDENCIES; and a chain killed
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
  });
  const { job: deploy } = await client.call('jobs.enqueue', {
    queue: 'deps',
    kind: 'shell',
    payload: { command: `cp "$SPOOL_DEPENDENCIES" ${seen}; echo "$SPOOL_DEPENDENCIES $(stat -c %a "$SPOOL_DEPENDENCIES") $(stat -c %a "$(dirname "$SPOOL_DEPENDENCIES")")" > ${where}` },
    dependsOn: [build.id],
  });
  assert.equal(deploy.state, 'blocked');
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
