/**
 * Processes a shell job started with `setsid` (so outside the process group the daemon signals)
 * are stopped too when the job is cancelled, times out or ends: they are found by the
 * SPOOL_JOB_ID in their environment. The same holds for `spool work`, which runs its commands
 * with the same runner. Linux only (/proc).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { findJobProcesses, stopJobProcesses } from '../../shared/client/jobProcesses';
import type { Job } from '../../shared/protocol/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { startCli, stopCli } from './cli-run';

const linux = fs.existsSync('/proc/self/environ');

async function finished(client: SpoolClient, id: string): Promise<Job> {
  return waitFor(`job ${id} to finish`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return ['completed', 'dead', 'cancelled', 'retrying'].includes(job.state) ? job : undefined;
  });
}

describe('shell jobs stop what they started with setsid', { skip: !linux && 'needs /proc' }, () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  const jobIds = new Set<string>();
  before(async () => {
    daemon = await startDaemon({ args: ['--kill-after', '1s'] });
    client = await daemon.client();
  });
  after(async () => {
    // Whatever a failing test left running goes with its job's test.
    await stopJobProcesses(findJobProcesses(jobIds), 500);
    await daemon.dispose();
  });

  /**
   * Enqueues a shell job whose command starts `sleep 300` in a session (and group) of its own,
   * which writes its pid to a file, and waits until it runs.
   */
  function escapeeCommand(name: string, tail: string): string {
    return `setsid sh -c 'echo $$ > ${path.join(daemon.dir, `${name}.pid`)}; exec sleep 300' > /dev/null 2>&1 < /dev/null & ${tail}`;
  }

  async function startEscapee(name: string, tail: string, timeoutMs = 120_000, queue = 'sh'): Promise<{ job: Job; pid: number }> {
    const pidFile = path.join(daemon.dir, `${name}.pid`);
    const command = escapeeCommand(name, tail);
    const enqueued = queue === 'sh' ? { kind: 'shell', payload: { command } } : { kind: 'k' };
    const { job } = await client.call('jobs.enqueue', { queue, timeoutMs, maxAttempts: 1, ...enqueued });
    jobIds.add(job.id);
    const pid = await waitFor('the setsid process to start', () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) || undefined : undefined));
    // It really left the job's group: a signal to the group would not reach it.
    assert.equal(findJobProcesses(new Set([job.id])).find((p) => p.pid === pid)?.pgid, pid);
    return { job, pid };
  }

  async function noneLeft(job: Job, pid: number): Promise<void> {
    await waitFor(`no process with SPOOL_JOB_ID=${job.id} to remain`, () => findJobProcesses(new Set([job.id])).length === 0, 10_000);
    assert.equal(processAlive(pid), false);
  }

  test('a cancel stops it', async () => {
    const { job, pid } = await startEscapee('cancel', 'sleep 300');
    await client.call('jobs.cancel', { id: job.id });
    assert.equal((await finished(client, job.id)).state, 'cancelled');
    await noneLeft(job, pid);
  });

  test('a timeout stops it', async () => {
    const { job, pid } = await startEscapee('timeout', 'sleep 300', 2000);
    const done = await finished(client, job.id);
    // The shell executor's timeout message (shared/client/shellJob.ts). The signal is SIGTERM
    // unless the shell was too slow to die within --kill-after, as on a loaded machine.
    assert.match(done.lastError ?? '', /^The command was killed by SIG(TERM|KILL) after the 2s timeout\./);
    await noneLeft(job, pid);
  });

  test('the end of the command stops it', async () => {
    const { job, pid } = await startEscapee('finish', `while [ ! -s ${path.join(daemon.dir, 'finish.pid')} ]; do sleep 0.05; done`);
    assert.equal((await finished(client, job.id)).state, 'completed');
    await noneLeft(job, pid);
  });

  test('under spool work, a cancel stops it too', async (t) => {
    const cli = startCli(['work', 'escapees-work', '--exec', escapeeCommand('work', 'sleep 300'), '--quiet'], { socketPath: daemon.socketPath });
    t.after(() => stopCli(cli));
    await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
    const { job, pid } = await startEscapee('work', '', 120_000, 'escapees-work');
    await client.call('jobs.cancel', { id: job.id });
    assert.equal((await finished(client, job.id)).state, 'cancelled');
    await noneLeft(job, pid);
  });
});
