/**
 * `spool work <queue> --exec "<command>"` as a real process: the payload on stdin and in the
 * environment, output captured (long lines split, not cut), exit status to outcome, permanent
 * exit codes, the same failure messages as the daemon's shell executor, a cancel that stops the
 * command, a graceful drain on SIGTERM, and a second signal that kills the commands and hands
 * their jobs back before exiting.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { LIMITS } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli, startCli, stopCli, type RunningCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

function work(t: { after: (fn: () => Promise<void>) => void }, args: string[]): RunningCli {
  const cli = startCli(['work', ...args], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  return cli;
}

async function finished(id: string): Promise<Job> {
  return waitFor(`job ${id} to finish`, async () => {
    const j = (await client.call('jobs.get', { id })).job;
    return ['completed', 'dead', 'cancelled'].includes(j.state) ? j : undefined;
  });
}

async function outputOf(id: string): Promise<string[]> {
  return (await client.call('jobs.output', { id })).lines.map((l) => `${l.stream}:${l.text}`);
}

test('the command gets the payload on stdin and the job in its environment; exit 0 completes', async (t) => {
  const cli = work(t, ['work-env', '--exec', 'read -r body; echo "stdin=$body"; echo "id=$SPOOL_JOB_ID kind=$SPOOL_JOB_KIND attempt=$SPOOL_JOB_ATTEMPT/$SPOOL_JOB_MAX_ATTEMPTS"; echo "payload=$SPOOL_JOB_PAYLOAD"; echo warn >&2']);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs from work-env'));
  const { job } = await client.call('jobs.enqueue', { queue: 'work-env', kind: 'greet', payload: { name: 'ada' }, maxAttempts: 2 });
  const done = await finished(job.id);
  assert.equal(done.state, 'completed');
  assert.deepEqual(done.result, { exitCode: 0 });
  const out = await outputOf(job.id);
  assert.ok(out.includes('stdout:stdin={"name":"ada"}'), out.join('\n'));
  assert.ok(out.includes(`stdout:id=${job.id} kind=greet attempt=1/2`), out.join('\n'));
  assert.ok(out.includes('stdout:payload={"name":"ada"}'));
  assert.ok(out.includes('stderr:warn'));
  // One line per finished job on the worker's stderr.
  await waitFor('the worker to report the job', () => cli.stderr().includes(`spool work: job ${job.id} (greet, attempt 1 of 2): the command succeeded in `));
});

test('what the command leaves running is killed when it exits, and the job completes then', async (t) => {
  const pidFile = path.join(daemon.dir, 'leftover.pid');
  const cli = work(t, ['work-leftover', '--exec', `sleep 300 & echo $! > '${pidFile}'; echo started`]);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  const { job } = await client.call('jobs.enqueue', { queue: 'work-leftover', kind: 'x', timeoutMs: 60_000 });
  const done = await finished(job.id);
  assert.equal(done.state, 'completed', 'not held until the background process ends, nor timed out');
  const leftover = Number(fs.readFileSync(pidFile, 'utf8').trim());
  await waitFor('the background process to be gone', () => !processAlive(leftover));
});

test('a non-zero exit fails the attempt with the status; a --permanent-exit status goes to dead at once', async (t) => {
  const cli = work(t, ['work-fail', '--exec', 'echo "bad input" >&2; exit "$(cat)"', '--permanent-exit', '2,64', '--quiet']);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  const retried = await client.call('jobs.enqueue', { queue: 'work-fail', kind: 'x', payload: 3, maxAttempts: 2, backoff: { strategy: 'fixed', baseMs: 100 } });
  const permanent = await client.call('jobs.enqueue', { queue: 'work-fail', kind: 'x', payload: 64, maxAttempts: 5 });
  const dead = await finished(retried.job.id);
  assert.equal(dead.state, 'dead');
  assert.equal(dead.attempts, 2, 'retried once, then dead');
  assert.equal(dead.lastError, 'The command exited with code 3.\nLast lines of stderr:\nbad input');
  const runs = (await client.call('jobs.get', { id: retried.job.id })).runs;
  assert.deepEqual(runs.map((r) => r.exitCode), [3, 3]);
  const perm = await finished(permanent.job.id);
  assert.equal(perm.state, 'dead');
  assert.equal(perm.attempts, 1, 'a permanent exit status is not retried');
  assert.doesNotMatch(cli.stderr(), /spool work: job /, '--quiet prints no line per job');
});

test('the same failed command gives the same message under spool work as under the daemon\'s shell executor', async (t) => {
  // An exit code with stderr, a signal, and the timeout: each run by both.
  const commands = ['echo "bad input" >&2; echo >&2; exit 3', 'echo dying >&2; kill -KILL $$', 'echo slow >&2; sleep 300'];
  const pairs = await Promise.all(
    commands.map(async (command, i) => {
      const cli = work(t, [`work-same-${i}`, '--exec', command, '--quiet']);
      await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
      // The timeout is what ends the third; the others end by themselves, and a loaded machine
      // must not make their lease run out first.
      const options = { maxAttempts: 1, timeoutMs: i === 2 ? 1500 : 60_000 };
      const [shell, worked] = await Promise.all([
        client.call('jobs.enqueue', { queue: 'work-same-shell', kind: 'shell', payload: { command }, ...options }),
        client.call('jobs.enqueue', { queue: `work-same-${i}`, kind: 'x', ...options }),
      ]);
      return { command, shell: await finished(shell.job.id), worked: await finished(worked.job.id) };
    }),
  );
  for (const { command, shell, worked } of pairs) {
    assert.equal(shell.state, 'dead', command);
    assert.equal(worked.state, 'dead', command);
    assert.equal(worked.lastError, shell.lastError, command);
  }
  assert.deepEqual(
    pairs.map((p) => p.shell.lastError),
    [
      'The command exited with code 3.\nLast lines of stderr:\nbad input',
      'The command was killed by SIGKILL.\nLast lines of stderr:\ndying',
      'The command was killed by SIGTERM after the 1.5s timeout.\nLast lines of stderr:\nslow',
    ],
  );
});

test('a cancel stops the running command and its children; the job ends cancelled', async (t) => {
  const pidFile = path.join(daemon.dir, 'child.pid');
  const cli = work(t, ['work-cancel', '--exec', `sleep 300 & echo $! > '${pidFile}'; wait`, '--kill-after', '2s']);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  const { job } = await client.call('jobs.enqueue', { queue: 'work-cancel', kind: 'x' });
  const childPid = await waitFor('the command to start its child', () => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8').trim()));
  await client.call('jobs.cancel', { id: job.id });
  const done = await finished(job.id);
  assert.equal(done.state, 'cancelled');
  await waitFor('the child to be gone', () => !processAlive(childPid));
});

test('a command running past the job\'s timeout is stopped with its children, and the attempt fails saying so', async (t) => {
  const pidFile = path.join(daemon.dir, 'timeout-child.pid');
  const cli = work(t, ['work-timeout', '--exec', `sleep 300 & echo $! > '${pidFile}'; wait`, '--kill-after', '2s']);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  // The worker's heartbeats keep the lease alive; the timeout must stop the command all the same.
  const { job } = await client.call('jobs.enqueue', { queue: 'work-timeout', kind: 'x', timeoutMs: 1500, maxAttempts: 1 });
  const childPid = await waitFor('the command to start its child', () => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8').trim()));
  const done = await finished(job.id);
  assert.equal(done.state, 'dead');
  assert.equal(done.lastError, 'The command was killed by SIGTERM after the 1.5s timeout.');
  await waitFor('the child to be gone', () => !processAlive(childPid));
  await waitFor('the worker to report the failure', () => cli.stderr().includes(`spool work: job ${job.id} (x, attempt 1 of 1): the command failed after `));
  assert.match(cli.stderr(), /the command failed after \S+: The command was killed by SIGTERM after the 1\.5s timeout\./);
});

test('SIGTERM lets the running job finish, then the worker exits 0', async (t) => {
  const gateFile = path.join(daemon.dir, 'work-gate');
  const cli = work(t, ['work-drain', '--exec', `echo started; i=0; while [ ! -e '${gateFile}' ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done; echo finished`]);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  const { job } = await client.call('jobs.enqueue', { queue: 'work-drain', kind: 'x' });
  await waitFor('the job to start', async () => (await outputOf(job.id)).includes('stdout:started'));
  cli.process.kill('SIGTERM');
  await waitFor('the worker to say it is draining', () => cli.stderr().includes('SIGTERM received, finishing 1 running job(s)'));
  const next = await client.call('jobs.enqueue', { queue: 'work-drain', kind: 'x' });
  fs.writeFileSync(gateFile, '');
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await finished(job.id)).state, 'completed');
  assert.equal((await client.call('jobs.get', { id: next.job.id })).job.state, 'queued', 'nothing new was claimed while draining');
});

test('output lines are kept whole up to the per-line limit and split into pieces beyond it, never inside a character', async (t) => {
  // 5000 ASCII characters, then 10000 two-byte characters (20000 bytes, over the 8 KiB limit).
  const cli = work(t, ['work-long-lines', '--exec', `head -c 5000 /dev/zero | tr '\\0' a; echo; awk 'BEGIN { s = ""; for (i = 0; i < 10000; i++) s = s "é"; print s }'`]);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  const { job } = await client.call('jobs.enqueue', { queue: 'work-long-lines', kind: 'x' });
  assert.equal((await finished(job.id)).state, 'completed');
  const lines = (await client.call('jobs.output', { id: job.id })).lines.filter((l) => l.stream === 'stdout').map((l) => l.text);
  // Compared with assert.ok: a failing assert.equal would print both 5000-character strings.
  assert.ok(lines[0] === 'a'.repeat(5000), `a line within the limit is kept whole; got ${lines[0]?.length ?? 0} characters`);
  const pieces = lines.slice(1);
  assert.ok(pieces.length > 1, `the long line is split; got ${pieces.length} line(s)`);
  assert.ok(pieces.join('') === 'é'.repeat(10000), `nothing of the long line is lost; got ${pieces.join('').length} of 10000 characters`);
  for (const piece of pieces) assert.ok(Buffer.byteLength(piece) <= LIMITS.maxOutputLineBytes, `a piece of ${Buffer.byteLength(piece)} bytes is over the limit`);
});

test('a second SIGINT kills the running command and its children, hands the job back, and exits 130', async (t) => {
  const pidFile = path.join(daemon.dir, 'hard-stop.pids');
  const cli = work(t, ['work-hard-stop', '--exec', `echo started; sleep 300 & echo "$$ $!" > '${pidFile}'; wait`]);
  await waitFor('the worker to start', () => cli.stderr().includes('is taking jobs'));
  const { job } = await client.call('jobs.enqueue', { queue: 'work-hard-stop', kind: 'x', maxAttempts: 1 });
  const [groupPid, childPid] = await waitFor('the command to start its child', () => {
    const text = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : '';
    return /^\d+ \d+$/.test(text) ? text.split(' ').map(Number) : undefined;
  });
  // The command runs in its own process group (led by the shell), so it survives the worker unless killed.
  t.after(() => killGroup(groupPid));
  cli.process.kill('SIGINT');
  await waitFor('the worker to say it is draining', () => cli.stderr().includes('SIGINT received, finishing 1 running job(s)'));
  cli.process.kill('SIGINT');
  const r = await cli.exited;
  assert.equal(r.code, 130, r.stderr);
  await waitFor('the command and its child to be gone', () => !processAlive(groupPid) && !processAlive(childPid), 5000);
  const after = await client.call('jobs.get', { id: job.id });
  // Not left running for its lease, and not dead either, though it had one attempt: stopping the
  // worker is not the job failing.
  assert.deepEqual([after.job.state, after.job.attempts], ['retrying', 0]);
  assert.equal(after.runs[0]?.outcome, 'interrupted');
  assert.match(after.runs[0]?.error ?? '', /was stopped by a second SIGINT/);
  const output = await outputOf(job.id);
  assert.ok(output.includes('stdout:started'), 'the output written before the stop is kept');
  assert.match(output.at(-1) ?? '', /^log:Attempt 1 was interrupted \(Worker .* was stopped by a second SIGINT before the job finished\.\); it runs again/);
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    // ESRCH: the group is gone already, which is what the test expects.
    if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
  }
}

test('a queue name the daemon would refuse is refused before the worker starts, in the CLI\'s words', async () => {
  const r = await runCli(['work', 'ok,bad name!', '--exec', 'true'], { socketPath: daemon.socketPath });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `spool: "bad name!" is not a queue name: use 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit.\n`);
});

test('--kill-after past an hour is refused before the worker starts', async () => {
  const r = await runCli(['work', 'work-kill', '--exec', 'true', '--kill-after', '25d'], { socketPath: daemon.socketPath });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'spool: --kill-after 25d is too long: at most 1h.\n');
});

test('a queue that does not exist yet is pointed out, with the closest one that does', async (t) => {
  await client.call('jobs.enqueue', { queue: 'work-images', kind: 'x', delayMs: 600_000 });
  const cli = work(t, ['work-imgaes', '--exec', 'true']);
  await waitFor('the worker to point out the queue', () => cli.stderr().includes('There is no queue named "work-imgaes" yet; did you mean "work-images"? It waits for that queue\'s first job.'));
  // Idle, a SIGTERM stops it at once, and it says it has nothing to finish.
  cli.process.kill('SIGTERM');
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /SIGTERM received, stopping \(no job is running\)\n/);
});
