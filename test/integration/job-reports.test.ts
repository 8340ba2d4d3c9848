/**
 * A job's command reports progress and checkpoints by printing `::spool progress 40 compiling`
 * and `::spool checkpoint {"step":3}`, in the daemon's shell jobs and under `spool work` alike:
 * the job shows the progress while it runs, the next attempt finds the checkpoint in
 * SPOOL_JOB_CHECKPOINT, the report lines are not kept in the output, and a `::spool` line that is
 * not understood is kept, followed by a note that quotes it and says why. Both give the command
 * the same environment.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { JOB_ENV } from '../../shared/client/jobEnv';
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
  // The note follows the line it quotes, in the same words under both runners.
  const kept = lines.indexOf('stdout:::spool progress lots');
  assert.equal(
    lines[kept + 1],
    'log:The line "::spool progress lots" was not understood as a report: write "::spool progress <0 to 100> [message]", e.g. "::spool progress 40 compiling".',
    lines.join('\n'),
  );
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

describe("the job's environment", () => {
  const PRINT_ENV = 'env | grep ^SPOOL_ | sort';

  /** The job's variables (JOB_ENV's names) its command printed, by name. */
  async function variables(id: string): Promise<Map<string, string>> {
    await waitFor(`job ${id} to complete`, async () => ((await getJob(id)).state === 'completed' ? true : undefined));
    const names: string[] = Object.values(JOB_ENV);
    const lines = (await client.call('jobs.output', { id })).lines.filter((l) => l.stream === 'stdout').map((l) => l.text);
    return new Map(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]).filter(([name]) => names.includes(name)));
  }

  test('a shell job and a spool work command get the same variables; the payload env cannot change them', async (t) => {
    const { job: shellJob } = await client.call('jobs.enqueue', {
      queue: 'env-shell',
      kind: 'shell',
      maxAttempts: 4,
      payload: { command: PRINT_ENV, env: { SPOOL_JOB_ID: 'not-mine', OTHER: 'x' } },
    });
    const shell = await variables(shellJob.id);
    assert.equal(shell.get('SPOOL_JOB_ID'), shellJob.id);
    assert.equal(shell.get('SPOOL_JOB_QUEUE'), 'env-shell');
    assert.equal(shell.get('SPOOL_JOB_KIND'), 'shell');
    assert.equal(shell.get('SPOOL_JOB_ATTEMPT'), '1');
    assert.equal(shell.get('SPOOL_JOB_MAX_ATTEMPTS'), '4');
    assert.deepEqual(JSON.parse(shell.get('SPOOL_JOB_PAYLOAD') ?? 'null'), shellJob.payload);
    assert.equal(shell.get('SPOOL_SOCKET'), daemon.socketPath);
    assert.match(shell.get('SPOOL_WORKER_ID') ?? '', /^builtin:/);

    const cli = startCli(['work', 'env-work', '--exec', PRINT_ENV, '--quiet'], { socketPath: daemon.socketPath });
    t.after(() => stopCli(cli));
    await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
    const { job: workJob } = await client.call('jobs.enqueue', { queue: 'env-work', kind: 'k', payload: { a: 1 } });
    const work = await variables(workJob.id);
    assert.deepEqual([...work.keys()].sort(), [...shell.keys()].sort(), 'the same names');
    assert.equal(work.get('SPOOL_JOB_ID'), workJob.id);
  });
});
