/**
 * The examples in examples/, each run as its user would run it, against a real daemon: the
 * Node resize worker, the standard-library Python worker, and the shell script that enqueues
 * with `spool rpc` and raw socat.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { cliEnv, ROOT, SPOOL_BIN } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

interface Proc {
  stderr(): string;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

function run(t: { after: (fn: () => Promise<void>) => void }, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const proc = spawn(command, args, { cwd: ROOT, env: cliEnv(daemon.socketPath, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stderr += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  t.after(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
  });
  return { stderr: () => stderr, exited, kill: (s) => proc.kill(s) };
}

async function finished(id: string): Promise<Job> {
  return waitFor(`job ${id} to finish`, async () => {
    const j = (await client.call('jobs.get', { id })).job;
    return ['completed', 'dead', 'cancelled'].includes(j.state) ? j : undefined;
  });
}

test('the Node resize worker completes resize jobs with progress, and sends impossible ones to dead at once', async (t) => {
  const worker = run(t, process.execPath, ['--import', 'tsx', path.join('examples', 'resize-worker.ts'), '--queue', 'images']);
  await waitFor('the worker to start', () => worker.stderr().includes('is taking "resize" jobs from images'), 30_000);
  const ok = await client.call('jobs.enqueue', { queue: 'images', kind: 'resize', payload: { width: 640, height: 480, scale: 0.5 } });
  const bad = await client.call('jobs.enqueue', { queue: 'images', kind: 'resize', payload: { width: -1, height: 480 }, maxAttempts: 5 });
  const done = await finished(ok.job.id);
  assert.equal(done.state, 'completed');
  assert.equal(done.progress, 100);
  assert.deepEqual(done.checkpoint, { row: 240 });
  assert.ok(typeof done.result === 'object' && done.result !== null && 'width' in done.result && done.result.width === 320);
  const output = await client.call('jobs.output', { id: ok.job.id });
  assert.deepEqual(output.lines.map((l) => l.text), ['resized 640×480 to 320×240']);
  const dead = await finished(bad.job.id);
  assert.equal(dead.state, 'dead');
  assert.equal(dead.attempts, 1);
  assert.match(dead.lastError ?? '', /width and height must be positive/);

  // Slowed down with stepDelayMs, a job can be watched and cancelled between steps. (Its short
  // lease makes the worker heartbeat every second, so it learns of the cancel soon.)
  const slow = await client.call('jobs.enqueue', { queue: 'images', kind: 'resize', payload: { width: 64, height: 64, stepDelayMs: 1000 }, timeoutMs: 3000 });
  await waitFor('the slow job to make progress', async () => ((await client.call('jobs.get', { id: slow.job.id })).job.progress ?? 0) >= 10);
  await client.call('jobs.cancel', { id: slow.job.id });
  const cancelled = await finished(slow.job.id);
  assert.equal(cancelled.state, 'cancelled');
  assert.ok((cancelled.progress ?? 0) < 100, `stopped part way, at ${cancelled.progress ?? 0}%`);

  worker.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr());
});

test('the Python worker (standard library only) claims, heartbeats and completes jobs', async (t) => {
  const python = spawnSync('python3', ['--version']);
  if (python.error || python.status !== 0) {
    t.skip('python3 is not installed on this machine, so the Python example cannot run');
    return;
  }
  const jobs = await Promise.all([
    client.call('jobs.enqueue', { queue: 'text', kind: 'upper', payload: { text: 'hello' } }),
    client.call('jobs.enqueue', { queue: 'text', kind: 'reverse', payload: { text: 'spool' } }),
    client.call('jobs.enqueue', { queue: 'text', kind: 'upper', payload: { wrong: true }, maxAttempts: 4 }),
  ]);
  const worker = run(t, 'python3', [path.join('examples', 'python-worker.py'), '--queue', 'text', '--max-jobs', '3']);
  assert.equal(await worker.exited, 0, worker.stderr());
  const [upper, reverse, wrong] = await Promise.all(jobs.map((j) => finished(j.job.id)));
  assert.equal(upper?.state, 'completed');
  assert.deepEqual(upper?.result, { text: 'HELLO' });
  assert.deepEqual(reverse?.result, { text: 'loops' });
  assert.equal(wrong?.state, 'dead');
  assert.equal(wrong?.attempts, 1);
  const log = await client.call('jobs.output', { id: jobs[0].job.id });
  assert.deepEqual(log.lines.map((l) => l.text), ['upper: {"text": "HELLO"}']);
  const workers = await client.call('workers.list');
  assert.ok(workers.workers.some((w) => w.name === 'python-worker example'));
});

test('the Python worker finishes its job on the first SIGTERM, and hands it back on a second; a cancel stops a long job', async (t) => {
  const python = spawnSync('python3', ['--version']);
  if (python.error || python.status !== 0) {
    t.skip('python3 is not installed on this machine, so the Python example cannot run');
    return;
  }
  const start = async (): Promise<Proc> => {
    const worker = run(t, 'python3', [path.join('examples', 'python-worker.py'), '--queue', 'py-stop']);
    await waitFor('the worker to connect', () => worker.stderr().includes('connected to Spool'));
    return worker;
  };
  const running = (id: string) => waitFor(`job ${id} to run`, async () => (await client.call('jobs.get', { id })).job.state === 'running');
  // Running on the daemon is not yet inside the job on the worker: a stop between the claim's
  // answer and the job hands it straight back (on a loaded machine the worker may not have read
  // that answer yet when the test sees the job running). Its first heartbeat, which extends the
  // lease, says the worker has begun the job; a job that has already ended has begun too.
  const begun = async (id: string): Promise<void> => {
    await running(id);
    const claimedLease = (await client.call('jobs.get', { id })).job.leaseExpiresAt ?? 0;
    await waitFor(`the worker to begin job ${id} (its first heartbeat)`, async () => {
      const { job } = await client.call('jobs.get', { id });
      return job.state !== 'running' || (job.leaseExpiresAt ?? 0) > claimedLease;
    });
  };

  // One SIGTERM: the running job finishes, then the worker exits 0.
  let worker = await start();
  const short = await client.call('jobs.enqueue', { queue: 'py-stop', kind: 'sleep', payload: { seconds: 2 } });
  await begun(short.job.id);
  worker.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr());
  assert.equal((await client.call('jobs.get', { id: short.job.id })).job.state, 'completed');

  // Two: the running job is handed back at once, its attempt given back.
  worker = await start();
  const long = await client.call('jobs.enqueue', { queue: 'py-stop', kind: 'sleep', payload: { seconds: 300 } });
  await begun(long.job.id);
  worker.kill('SIGINT');
  await waitFor('the worker to say it is finishing', () => worker.stderr().includes('SIGINT received'));
  worker.kill('SIGINT');
  assert.equal(await worker.exited, 130, worker.stderr());
  const back = (await client.call('jobs.get', { id: long.job.id })).job;
  assert.deepEqual([back.state, back.attempts, back.lastError], ['retrying', 0, 'Interrupted: the python worker was stopped']);

  // Claimed again, it heartbeats while it sleeps and stops when cancelled.
  worker = await start();
  await running(long.job.id);
  await client.call('jobs.cancel', { id: long.job.id });
  assert.equal((await finished(long.job.id)).state, 'cancelled');
  worker.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr());
});

test('the shell script enqueues with spool rpc and socat and waits for both jobs', async (t) => {
  const hasSocat = spawnSync('sh', ['-c', 'command -v socat']).status === 0;
  const script = run(t, 'bash', [path.join('examples', 'enqueue-and-wait.sh'), 'scripted'], { SPOOL: `${process.execPath} ${SPOOL_BIN}` });
  const code = await script.exited;
  const out = script.stderr();
  assert.equal(code, 0, out);
  assert.match(out, /hello from spool rpc/);
  if (hasSocat) {
    assert.match(out, /hello from socat/);
    assert.equal(out.match(/: completed$/gm)?.length, 2, out);
  } else {
    t.diagnostic('socat is not installed: the script skipped its raw-socket part, as it says');
    assert.match(out, /socat is not installed: skipping the raw socket part/);
    assert.equal(out.match(/: completed$/gm)?.length, 1, out);
  }
  const list = await client.call('jobs.list', { queue: 'scripted' });
  assert.equal(list.jobs.length, hasSocat ? 2 : 1);
  assert.ok(list.jobs.every((j) => j.state === 'completed'));
});
