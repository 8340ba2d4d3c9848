/**
 * Pausing a running shell job through `spool job pause` / `spool job resume` against real
 * daemons: the job's own counter (a file it rewrites every 20 ms) stops growing while it is paused
 * and grows again once resumed; its timeout does not run while paused; the refusals say why. On
 * SQLite with one daemon, and on PostgreSQL with two daemons, the pause asked of the daemon that
 * does not run the job.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { builtinWorkerId } from '../../daemon/executors/pool';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { tempDir } from '../helpers/engineTest';
import { sharedPostgres } from '../helpers/postgres';
import { runCli } from './cli-run';

const daemons: TestDaemon[] = [];
after(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
});

/** A shell command that rewrites `file` with a growing count every 20 ms, forever. */
function counterCommand(file: string): string {
  return `i=0; while true; do i=$((i+1)); echo $i > "${file}.tmp" && mv "${file}.tmp" "${file}"; sleep 0.02; done`;
}

function count(file: string): number {
  try {
    return Number(fs.readFileSync(file, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}

/** Waits until the counter has grown by `by` from now; how long that took (ms), the job's own pace. */
async function grows(file: string, by: number, what: string): Promise<number> {
  const from = count(file);
  const started = Date.now();
  await waitFor(what, () => count(file) >= from + by, 30_000);
  return Date.now() - started;
}

/** Waits until the counter has stopped (the same value twice 100 ms apart), then checks it stays for `forMs`. */
async function staysStopped(file: string, forMs: number): Promise<number> {
  let last = count(file);
  const stopped = await waitFor(
    'the counter to stop',
    async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = count(file);
      const same = now === last ? now : undefined;
      last = now;
      return same;
    },
    30_000,
  );
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(count(file), stopped, 'a paused job writes nothing');
  }
  return stopped;
}

async function jobOf(client: SpoolClient, id: string) {
  return (await client.call('jobs.get', { id })).job;
}

test('SQLite: spool job pause stops a running shell job, its timeout with it; resume lets it go on; refusals say why', async (t) => {
  const daemon = await startDaemon();
  daemons.push(daemon);
  const client = await daemon.client();
  const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });
  const file = path.join(tempDir(t, 'spool-pause-'), 'count');
  // A timeout the job would pass while paused: only its running time counts.
  const timeoutMs = 8000;
  const { job } = await client.call('jobs.enqueue', { queue: 'pause-q', kind: 'shell', payload: counterCommand(file), timeoutMs });

  const queued = await client.call('jobs.enqueue', { queue: 'pause-waiting', kind: 'shell', payload: 'true', delayMs: 3_600_000 });
  const refused = await spool(['job', 'pause', queued.job.id]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot pause job .*: only a running shell job can be paused, and it is queued\. To keep a waiting job from starting, hold it/);

  const pace = await grows(file, 25, 'the job to count');
  const paused = await spool(['job', 'pause', job.id]);
  assert.equal(paused.code, 0, paused.stderr);
  assert.equal(paused.stdout, `Job ${job.id} is paused: its processes stop until you resume it (spool job resume ${job.id}).\n`);
  const pausedAt = Date.now();
  // Twice the time the job took to count 25 before: it would have counted 50 more by then.
  await staysStopped(file, Math.max(500, 2 * pace));
  const shown = await jobOf(client, job.id);
  assert.equal(shown.state, 'running');
  assert.notEqual(shown.pausedAt ?? null, null);
  assert.match((await spool(['job', 'pause', job.id])).stderr, /it is paused already/);

  // Paused past its whole timeout: resumed, it runs on.
  await waitFor('the timeout to pass while paused', () => Date.now() - pausedAt > timeoutMs + 500, 30_000);
  assert.equal((await jobOf(client, job.id)).state, 'running');
  const resumed = await spool(['job', 'resume', job.id]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, `Job ${job.id} runs on.\n`);
  await grows(file, 25, 'the job to count again');
  assert.equal((await jobOf(client, job.id)).state, 'running', 'the paused time did not count towards its timeout');
  assert.match((await spool(['job', 'resume', job.id])).stderr, /it is not paused/);

  // Paused and cancelled: it ends cancelled (a stopped process is continued to take its SIGTERM).
  assert.equal((await spool(['job', 'pause', job.id])).code, 0);
  await staysStopped(file, 200);
  await client.call('jobs.cancel', { id: job.id });
  await waitFor('the paused job to end cancelled', async () => (await jobOf(client, job.id)).state === 'cancelled', 30_000);
});

test('PostgreSQL, two daemons: the job is paused and resumed through the daemon that does not run it', async (t) => {
  const url = await (await sharedPostgres()).database();
  const two = [await startDaemon({ args: ['--store', url] }), await startDaemon({ args: ['--store', url] })];
  daemons.push(...two);
  const clients = await Promise.all(two.map((d) => d.client()));
  const file = path.join(tempDir(t, 'spool-pause-pg-'), 'count');
  // A heartbeat every 2 s (a third of the timeout): how soon the daemon running it hears of a pause asked elsewhere.
  const { job } = await (clients[0] as SpoolClient).call('jobs.enqueue', { queue: 'pause-pg', kind: 'shell', payload: counterCommand(file), timeoutMs: 6000 });
  const running = await waitFor('the job to start', async () => {
    const j = await jobOf(clients[0] as SpoolClient, job.id);
    return j.state === 'running' ? j : undefined;
  });
  const runner = two.findIndex((d) => builtinWorkerId(d.socketPath) === running.workerId);
  assert.ok(runner >= 0, `one of the two daemons runs it (${running.workerId})`);
  const other = two[1 - runner] as TestDaemon;
  const spool = (args: string[]) => runCli(args, { socketPath: other.socketPath });

  const pace = await grows(file, 25, 'the job to count');
  const paused = await spool(['job', 'pause', job.id]);
  assert.equal(paused.code, 0, paused.stderr);
  await staysStopped(file, Math.max(500, 2 * pace));
  assert.equal((await jobOf(clients[runner] as SpoolClient, job.id)).state, 'running');
  assert.equal((await spool(['job', 'resume', job.id])).code, 0);
  await grows(file, 25, 'the job to count again');
  await (clients[1 - runner] as SpoolClient).call('jobs.cancel', { id: job.id });
  await waitFor('the job to end cancelled', async () => (await jobOf(clients[0] as SpoolClient, job.id)).state === 'cancelled', 30_000);
});
