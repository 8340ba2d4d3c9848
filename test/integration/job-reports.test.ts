/**
 * A job's command reports progress and checkpoints by printing `::spool progress 40 compiling`
 * and `::spool checkpoint {"step":3}`, in the daemon's shell jobs and under `spool work` alike:
 * the job shows the progress while it runs, the next attempt finds the checkpoint in
 * SPOOL_JOB_CHECKPOINT, the report lines are not kept in the output, and a `::spool` line that is
 * not understood is kept with a note saying why.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client';
import type { Job } from '../../shared/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { startCli, stopCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(() => daemon.dispose());

/**
 * The first attempt reports progress and a checkpoint, waits for `go` to exist, then fails; the
 * second prints the checkpoint it was given and succeeds.
 */
function reportingCommand(go: string): string {
  return [
    'if [ -z "$SPOOL_JOB_CHECKPOINT" ]; then',
    `  echo '::spool progress 40 compiling'; echo '::spool checkpoint {"step":3}'; echo '::spool progress lots'; echo 'first attempt';`,
    `  while [ ! -e '${go}' ]; do sleep 0.05; done; exit 1;`,
    'fi;',
    'echo "resumed from $SPOOL_JOB_CHECKPOINT"',
  ].join('\n');
}

async function getJob(id: string): Promise<Job> {
  return (await client.call('jobs.get', { id })).job;
}

/** Runs a job with reportingCommand through `enqueue` and checks everything the module comment says. */
async function checkReports(name: string, enqueue: (command: string) => Promise<Job>): Promise<void> {
  const go = path.join(daemon.dir, `${name}.go`);
  const job = await enqueue(reportingCommand(go));
  const running = await waitFor('the progress to show', async () => {
    const j = await getJob(job.id);
    return j.state === 'running' && j.progress !== null ? j : undefined;
  });
  assert.equal(running.progress, 40);
  assert.equal(running.progressMessage, 'compiling');
  await waitFor('the checkpoint to be saved', async () => ((await getJob(job.id)).checkpoint !== null ? true : undefined));
  assert.deepEqual((await getJob(job.id)).checkpoint, { step: 3 });
  fs.writeFileSync(go, '');
  const done = await waitFor(`job ${job.id} to finish`, async () => {
    const j = await getJob(job.id);
    return ['completed', 'dead', 'cancelled'].includes(j.state) ? j : undefined;
  });
  assert.equal(done.state, 'completed');
  assert.equal(done.attempts, 2);
  const lines = (await client.call('jobs.output', { id: job.id })).lines.map((l) => `${l.stream}:${l.text}`);
  assert.ok(lines.includes('stdout:resumed from {"step":3}'), lines.join('\n'));
  assert.ok(lines.includes('stdout:first attempt'), lines.join('\n'));
  assert.ok(!lines.includes('stdout:::spool progress 40 compiling') && !lines.includes('stdout:::spool checkpoint {"step":3}'), `report lines are not output:\n${lines.join('\n')}`);
  assert.ok(lines.includes('stdout:::spool progress lots'), 'a line not understood is kept');
  assert.ok(lines.some((l) => l.startsWith('log:') && l.includes('not understood as a report') && l.includes('::spool progress <0 to 100> [message]')), lines.join('\n'));
}

describe('::spool report lines', () => {
  test('in a shell job: progress shows, and the retry gets the checkpoint in SPOOL_JOB_CHECKPOINT', async () => {
    await checkReports('shell', async (command) => {
      const { job } = await client.call('jobs.enqueue', {
        queue: 'reports-shell',
        kind: 'shell',
        payload: { command },
        maxAttempts: 2,
        backoff: { strategy: 'fixed', baseMs: 100 },
      });
      return job;
    });
  });

  test('under spool work: the same', async (t) => {
    let cli: ReturnType<typeof startCli> | undefined;
    t.after(async () => {
      if (cli) await stopCli(cli);
    });
    await checkReports('work', async (command) => {
      cli = startCli(['work', 'reports-work', '--exec', command, '--quiet'], { socketPath: daemon.socketPath });
      const started = cli;
      await waitFor('the worker to start', () => started.stderr().includes('is taking jobs'));
      const { job } = await client.call('jobs.enqueue', { queue: 'reports-work', kind: 'build', maxAttempts: 2, backoff: { strategy: 'fixed', baseMs: 100 } });
      return job;
    });
  });
});
