/**
 * The launcher of shell jobs (daemon/executors/launcher.ts), a small process the daemon starts
 * to start its shell jobs' processes, in its failure modes, with real processes: killed while a
 * job runs (the job's command is killed and the job fails saying why; the next job gets a new
 * launcher), stopped (killed after START_TIMEOUT_MS, the same follows), and a daemon killed with
 * SIGKILL (its launcher exits with it). Linux only (/proc).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

const linux = fs.existsSync('/proc/self/stat');

/** The daemon's launcher: its child process whose command line names launcher.js. */
function launcherOf(daemonPid: number): number | undefined {
  const children = fs.readFileSync(`/proc/${daemonPid}/task/${daemonPid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  return children.find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('launcher.js');
    } catch {
      return false;
    }
  });
}

/** The pid a command wrote to `file`, once it has written it. */
function pidIn(file: string): number | undefined {
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) || undefined : undefined;
}

async function finished(client: SpoolClient, id: string): Promise<Job> {
  return waitFor(`job ${id} to finish`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return ['completed', 'dead', 'cancelled', 'retrying'].includes(job.state) ? job : undefined;
  });
}

/** Enqueues a job whose command writes its pid to `<name>.pid` and sleeps; waits until it runs. */
async function startSleeper(daemon: TestDaemon, client: SpoolClient, name: string): Promise<{ job: Job; pid: number }> {
  const pidFile = path.join(daemon.dir, `${name}.pid`);
  const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', maxAttempts: 1, payload: { command: `echo $$ > ${pidFile}; echo started; exec sleep 300` } });
  const pid = await waitFor(`the command of ${name} to start`, () => pidIn(pidFile));
  return { job, pid };
}

describe('the launcher of shell jobs', { skip: !linux && 'needs /proc' }, () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  const sleepers: number[] = [];
  before(async () => {
    daemon = await startDaemon();
    client = await daemon.client();
  });
  after(async () => {
    for (const pid of sleepers) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    await daemon.dispose();
  });

  test("starts a job's processes, not the daemon", async () => {
    const { job, pid } = await startSleeper(daemon, client, 'parent');
    sleepers.push(pid);
    const launcher = launcherOf(daemon.pid);
    assert.ok(launcher !== undefined, 'the daemon has a launcher');
    // The command's parent is the launcher (the shell executed sleep in place: the pid is the shell's).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    assert.equal(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), launcher);
    await client.call('jobs.cancel', { id: job.id });
    assert.equal((await finished(client, job.id)).state, 'cancelled');
    await waitFor('the cancelled command to be gone', () => !processAlive(pid));
  });

  test('killed while a job runs: the command is killed, the job fails saying why, and the next job gets a new launcher', async () => {
    const { job, pid } = await startSleeper(daemon, client, 'orphan');
    sleepers.push(pid);
    // Its first line has come through the launcher and been stored.
    await waitFor('the first line of output', async () => (await client.call('jobs.output', { id: job.id })).lines.length > 0);
    const launcher = launcherOf(daemon.pid);
    assert.ok(launcher !== undefined);
    process.kill(launcher, 'SIGKILL');

    const done = await finished(client, job.id);
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /killed by SIGKILL/);
    await waitFor('the command to be killed with its launcher', () => !processAlive(pid));
    const out = await client.call('jobs.output', { id: job.id });
    const lines = out.lines.map((l) => [l.stream, l.text]);
    assert.deepEqual(lines[0], ['stdout', 'started']);
    assert.ok(
      lines.some(([stream, text]) => stream === 'log' && /^The launcher process that started the command exited \(killed by SIGKILL\); the command was killed\.$/.test(text ?? '')),
      JSON.stringify(lines),
    );

    const { job: next } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'echo again' } });
    assert.equal((await finished(client, next.id)).state, 'completed');
    const second = launcherOf(daemon.pid);
    assert.ok(second !== undefined && second !== launcher, 'a new launcher started');
    assert.match(daemon.log(), /The launcher of shell jobs exited; the next job starts another/);
  });

  test('a launcher that does not start a command in time (stopped) is killed, the job fails saying why, and the next job gets a new launcher', async () => {
    // A first job makes sure a launcher runs.
    const { job: first } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'true' } });
    assert.equal((await finished(client, first.id)).state, 'completed');
    const launcher = launcherOf(daemon.pid);
    assert.ok(launcher !== undefined);
    process.kill(launcher, 'SIGSTOP');
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', maxAttempts: 1, payload: { command: 'echo never' } });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'dead');
    assert.equal(done.lastError, 'Could not start /bin/sh: the launcher process exited (killed by SIGKILL) before the command started');
    assert.equal(processAlive(launcher), false);
    assert.match(daemon.log(), /The launcher of shell jobs did not start a command in time; killing it/);
    const { job: next } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'true' } });
    assert.equal((await finished(client, next.id)).state, 'completed');
  });

  test('a daemon killed with SIGKILL leaves no launcher behind; the next daemon recovers the job', async () => {
    const { job, pid } = await startSleeper(daemon, client, 'crash');
    sleepers.push(pid);
    const launcher = launcherOf(daemon.pid);
    assert.ok(launcher !== undefined);
    await daemon.kill();
    await waitFor('the launcher to exit with its daemon', () => !processAlive(launcher), 10_000);

    // As with a daemon that started the command itself: the next start kills what the job left
    // and runs it again.
    await daemon.restart();
    client = await daemon.client();
    await waitFor('the command left running to be stopped by recovery', () => !processAlive(pid), 20_000);
    // Put back and run again, by the new daemon's launcher.
    const pidFile = path.join(daemon.dir, 'crash.pid');
    const rerun = await waitFor('the job to run again', () => {
      const now = pidIn(pidFile);
      return now !== pid ? now : undefined;
    }, 20_000);
    sleepers.push(rerun);
    assert.ok(launcherOf(daemon.pid) !== undefined);
    await client.call('jobs.cancel', { id: job.id });
    assert.equal((await finished(client, job.id)).state, 'cancelled');
    await waitFor('the command run again to be stopped by the cancel', () => !processAlive(rerun));
  });
});
