/**
 * No process a shell job starts outlives it: not even one that leaves the job's process group
 * and session (`setsid`) and drops SPOOL_JOB_ID from its environment, by which the /proc scan
 * would have found it. Where the daemon may make a cgroup per job (root here, or a delegated
 * subtree), such a process is stopped with its job's cancel, and with the recovery after the
 * daemon was killed; `spool daemon status` says which containment is in force.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';

/** Escapees a failing test left: killed at the end whatever happened. */
const started = new Set<number>();
process.once('exit', () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
});

/**
 * Enqueues a shell job that starts `sleep 300` in a session of its own, without SPOOL_JOB_ID,
 * which writes its pid to a file; waits until it runs, and returns the job and that pid.
 */
async function startHiddenEscapee(daemon: TestDaemon, client: SpoolClient, name: string): Promise<{ job: Job; pid: number }> {
  const pidFile = path.join(daemon.dir, `${name}.pid`);
  const command = `setsid env -u SPOOL_JOB_ID sh -c 'echo $$ > ${pidFile}; exec sleep 300' > /dev/null 2>&1 < /dev/null & sleep 300`;
  const { job } = await client.call('jobs.enqueue', { queue: 'contained', kind: 'shell', payload: { command }, maxAttempts: 1, timeoutMs: 600_000 });
  const pid = await waitFor('the escapee to start', () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) || undefined : undefined));
  started.add(pid);
  // It really left: another session, and no SPOOL_JOB_ID to be found by.
  const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
  assert.ok(!environ.includes('SPOOL_JOB_ID='), 'the escapee dropped SPOOL_JOB_ID');
  return { job, pid };
}

/** Where the job's cgroup is, from the daemon's status. */
let cgroupRoot = '';
function cgroupOf(jobId: string): string {
  return path.join(cgroupRoot, `job-${jobId}`);
}

async function daemonWithContainment(t: { after(fn: () => Promise<void>): void; skip(reason: string): void }): Promise<{ daemon: TestDaemon; client: SpoolClient } | null> {
  const daemon = await startDaemon({ args: ['--kill-after', '1s'] });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const { containment } = await client.call('daemon.status');
  assert.ok(containment !== undefined, 'daemon.status says how shell jobs are contained');
  if (containment.kind !== 'cgroup') {
    t.skip(`no cgroup per job on this machine: ${containment.reason}`);
    return null;
  }
  cgroupRoot = containment.path;
  return { daemon, client };
}

test('spool daemon status says how shell jobs are contained', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const status = await runCli(['daemon', 'status'], { socketPath: daemon.socketPath });
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /^processes: +(a cgroup per shell job, under \/.*\/spool|shell jobs held by process group and SPOOL_JOB_ID only \(.+\))$/m);
  assert.match(daemon.log(), /Spool daemon ready .*containment=/);
});

test('a setsid child that dropped SPOOL_JOB_ID is stopped when its job is cancelled', async (t) => {
  const ready = await daemonWithContainment(t);
  if (ready === null) return;
  const { daemon, client } = ready;
  const { job, pid } = await startHiddenEscapee(daemon, client, 'cancel');
  assert.match(fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8'), new RegExp(`/spool/job-${job.id}$`, 'm'), "the escapee is in its job's cgroup");
  await client.call('jobs.cancel', { id: job.id });
  await waitFor('the job to be cancelled', async () => (await client.call('jobs.get', { id: job.id })).job.state === 'cancelled');
  await waitFor('the escapee to be gone', () => !processAlive(pid), 20_000);
  await waitFor("the job's cgroup to be removed", () => !fs.existsSync(cgroupOf(job.id)), 20_000);
});

test("a killed daemon's escapee is stopped by the next daemon before its job runs again", async (t) => {
  const ready = await daemonWithContainment(t);
  if (ready === null) return;
  const { daemon, client } = ready;
  const { job, pid } = await startHiddenEscapee(daemon, client, 'recovered');
  await daemon.kill();
  assert.ok(processAlive(pid), 'the escapee outlived its daemon');
  await daemon.restart();
  await waitFor('the escapee to be gone', () => !processAlive(pid), 20_000);
  assert.match(daemon.log(), /Stopped what shell jobs of a daemon killed earlier had left running in their cgroups/);
  // The job runs again after the recovery; its cancel takes the new escapee with it.
  const again = await daemon.client();
  await again.call('jobs.cancel', { id: job.id });
  await waitFor('the job to be cancelled', async () => (await again.call('jobs.get', { id: job.id })).job.state === 'cancelled');
  await waitFor("the job's cgroup to be removed", () => !fs.existsSync(cgroupOf(job.id)), 20_000);
});
