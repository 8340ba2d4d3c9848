/**
 * The shell executor in a real daemon: success and failure, output captured and streamed in
 * order, and timeout and cancel stopping the whole process tree (a child that starts a sleeping
 * grandchild: the grandchild must be gone too).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client';
import { SpoolError } from '../../shared/errors';
import { ErrorCode, type JobOutputEvent } from '../../shared/protocol';
import type { Job } from '../../shared/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

async function finished(client: SpoolClient, id: string): Promise<Job> {
  return waitFor(`job ${id} to finish`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return ['completed', 'dead', 'cancelled', 'retrying'].includes(job.state) ? job : undefined;
  });
}

describe('shell executor', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  before(async () => {
    daemon = await startDaemon();
    client = await daemon.client();
  });
  after(() => daemon.dispose());

  /** A command whose child starts a grandchild that sleeps, writing the grandchild's pid to a file. */
  function treeCommand(name: string): { command: string; pidFile: string } {
    const pidFile = path.join(daemon.dir, `${name}.pid`);
    return { command: `echo started; sh -c 'sleep 300 & echo $! > ${pidFile}; wait'`, pidFile };
  }

  test('exit 0 completes the job', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'echo hello' } });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.result, { exitCode: 0 });
    const out = await client.call('jobs.output', { id: job.id });
    assert.deepEqual(out.lines.map((l) => [l.stream, l.text]), [['stdout', 'hello']]);
  });

  test('a non-zero exit fails with the exit code and the tail of stderr', async () => {
    const { job } = await client.call('jobs.enqueue', {
      queue: 'sh',
      kind: 'shell',
      maxAttempts: 1,
      payload: { command: 'echo first >&2; echo "it broke" >&2; exit 3' },
    });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /code 3/);
    assert.match(done.lastError ?? '', /it broke/);
    const { runs } = await client.call('jobs.get', { id: job.id });
    assert.equal(runs[0].exitCode, 3);
  });

  test('output is captured and streamed in order', async () => {
    const listener = await daemon.client();
    const events: JobOutputEvent[] = [];
    listener.on('jobs.output', (e) => events.push(e));
    await listener.call('events.subscribe', { topics: ['output'] });
    const { job } = await client.call('jobs.enqueue', {
      queue: 'sh',
      kind: 'shell',
      payload: { command: 'i=1; while [ $i -le 500 ]; do echo "line $i"; i=$((i+1)); done; echo done >&2' },
    });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'completed');
    const expected = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`);
    const stored = await client.call('jobs.output', { id: job.id, limit: 1000 });
    assert.deepEqual(
      stored.lines.filter((l) => l.stream === 'stdout').map((l) => l.text),
      expected,
    );
    assert.deepEqual(stored.lines.filter((l) => l.stream === 'stderr').map((l) => l.text), ['done']);
    const seqs = stored.lines.map((l) => l.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    await waitFor('every line streamed', () => events.filter((e) => e.id === job.id).flatMap((e) => e.lines).length >= 501);
    const streamed = events.filter((e) => e.id === job.id).flatMap((e) => e.lines);
    assert.deepEqual(
      streamed.filter((l) => l.stream === 'stdout').map((l) => l.text),
      expected,
    );
  });

  test('a burst of output larger than one wire call (3,000 lines at once) is stored whole and in order', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'seq 1 3000' } });
    assert.equal((await finished(client, job.id)).state, 'completed');
    const texts: string[] = [];
    let after = 0;
    for (;;) {
      const page = await client.call('jobs.output', { id: job.id, after, limit: 1000 });
      texts.push(...page.lines.map((l) => l.text));
      after = page.nextAfter;
      if (page.lines.length === 0 || page.done) break;
    }
    assert.equal(texts.length, 3000);
    assert.deepEqual(texts.slice(0, 2), ['1', '2']);
    assert.equal(texts[2999], '3000');
  });

  test('a timeout stops the whole process tree and fails the attempt', async () => {
    const { command, pidFile } = treeCommand('timeout');
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', timeoutMs: 1500, maxAttempts: 1, payload: { command } });
    const grandchild = await waitFor('the grandchild to start', () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) || undefined : undefined));
    assert.ok(processAlive(grandchild));
    const done = await finished(client, job.id);
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /Timed out after 1500 ms/);
    await waitFor('the grandchild to be gone', () => !processAlive(grandchild));
  });

  test('cancel stops the whole process tree and the job ends cancelled', async () => {
    const { command, pidFile } = treeCommand('cancel');
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', timeoutMs: 120_000, payload: { command } });
    const grandchild = await waitFor('the grandchild to start', () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) || undefined : undefined));
    const requested = await client.call('jobs.cancel', { id: job.id });
    assert.equal(requested.job.cancelRequested, true);
    const done = await finished(client, job.id);
    assert.equal(done.state, 'cancelled');
    await waitFor('the grandchild to be gone', () => !processAlive(grandchild));
  });

  test('a background process left behind by a successful command does not survive it', async () => {
    const pidFile = path.join(daemon.dir, 'orphan.pid');
    const { job } = await client.call('jobs.enqueue', {
      queue: 'sh',
      kind: 'shell',
      payload: { command: `sleep 300 & echo $! > ${pidFile}; exit 0` },
    });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'completed');
    const orphan = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitFor('the orphan to be gone', () => !processAlive(orphan));
  });

  test('an invalid payload is refused at enqueue with a message saying what is wrong', async () => {
    await assert.rejects(
      client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', maxAttempts: 5, payload: { cmd: 'ls' } }),
      (error: unknown) => error instanceof SpoolError && error.code === ErrorCode.InvalidParams && error.data.field === 'payload.cmd' && /Unknown field "payload\.cmd"/.test(error.message),
    );
  });

  test('jobs held back by a queue rate limit run when tokens come, with no other event to wake them', async () => {
    await client.call('queues.configure', { name: 'limited', rateLimit: { perSecond: 4, burst: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await client.call('jobs.enqueue', { queue: 'limited', kind: 'shell', payload: { command: 'true' } })).job.id);
    const jobs = await Promise.all(ids.map((id) => finished(client, id)));
    assert.ok(jobs.every((j) => j.state === 'completed'));
    const starts = jobs.map((j) => j.startedAt ?? 0).sort((a, b) => a - b);
    // One token every 250 ms: the four starts span at least ~0.75 s.
    assert.ok(starts[3] - starts[0] >= 600, `starts spread over ${starts[3] - starts[0]} ms`);
  });

  test('the global executor cap and per-queue concurrency bound the jobs running at once', async () => {
    const capped = await startDaemon({ args: ['--max-executors', '3'] });
    try {
      const c = await capped.client();
      await c.call('queues.configure', { name: 'one-at-a-time', concurrency: 1 });
      const marker = path.join(capped.dir, 'running');
      fs.mkdirSync(marker);
      // Each job registers itself in a folder while it runs; we sample the folder.
      const command = `touch ${marker}/$SPOOL_JOB_ID; sleep 0.3; rm ${marker}/$SPOOL_JOB_ID`;
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push((await c.call('jobs.enqueue', { queue: 'wide', kind: 'shell', payload: { command } })).job.id);
      for (let i = 0; i < 3; i++) ids.push((await c.call('jobs.enqueue', { queue: 'one-at-a-time', kind: 'shell', payload: { command } })).job.id);
      let most = 0;
      await waitFor('all jobs to complete', async () => {
        most = Math.max(most, fs.readdirSync(marker).length);
        const stats = await c.call('stats.get');
        return stats.totals.completed === ids.length;
      }, 60_000);
      assert.ok(most <= 3, `at most 3 at once, saw ${most}`);
      assert.ok(most >= 2, `jobs ran side by side (saw ${most})`);
    } finally {
      await capped.dispose();
    }
  });
});
