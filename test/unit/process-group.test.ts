/**
 * The process-group runner the daemon's shell executor and `spool work` share
 * (shared/client/processGroup.ts), with real processes: exit codes and signals reported, stdin
 * and output, SIGTERM then SIGKILL after the grace period for a command that ignores SIGTERM,
 * the timeout, an immediate kill, and what a command leaves running in its group killed when the
 * shell exits.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { runProcessGroup, type ProcessGroupOptions, type ProcessGroupRun } from '../../shared/client/processGroup';
import { processAlive } from '../helpers/daemon';
import { waitFor } from '../helpers/wait';

type Reason = 'cancel' | 'shutdown';

/** A run with collected output; every process it started is killed after the test. */
function run(
  t: { after: (fn: () => void) => void },
  command: string,
  options: Partial<ProcessGroupOptions> = {},
): { group: ProcessGroupRun<Reason>; output: { stdout: string; stderr: string }; problems: string[] } {
  const output = { stdout: '', stderr: '' };
  const problems: string[] = [];
  const group = runProcessGroup<Reason>({
    command,
    env: { PATH: process.env.PATH },
    timeoutMs: 60_000,
    killGraceMs: 60_000,
    onOutput: (stream, chunk) => (output[stream] += chunk.toString('utf8')),
    onProblem: (message) => problems.push(message),
    ...options,
  });
  t.after(() => group.kill());
  return { group, output, problems };
}

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-process-group-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The pid a command wrote to `file`, once it has written it. */
function pidIn(file: string): number | undefined {
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) || undefined : undefined;
}

test('the exit code of a command that ends by itself is reported, with its stdout and stderr', async (t) => {
  const { group, output, problems } = run(t, 'echo out; echo err >&2; exit 3');
  const exit = await group.done;
  assert.deepEqual(exit, { code: 3, signal: null, stoppedFor: null, spawnError: null });
  assert.equal(output.stdout, 'out\n');
  assert.equal(output.stderr, 'err\n');
  assert.deepEqual(problems, []);
});

test('a command killed by a signal reports the signal and no exit code', async (t) => {
  const { group } = run(t, 'kill -USR1 $$');
  const exit = await group.done;
  assert.equal(exit.code, null);
  assert.equal(exit.signal, 'SIGUSR1');
  assert.equal(exit.stoppedFor, null);
});

test('stdin carries the text given and is then closed; without it, stdin is empty', async (t) => {
  const withInput = run(t, 'cat', { stdin: '{"n":1}' });
  assert.equal((await withInput.group.done).code, 0);
  assert.equal(withInput.output.stdout, '{"n":1}');
  const without = run(t, 'cat; echo end');
  assert.equal((await without.group.done).code, 0);
  assert.equal(without.output.stdout, 'end\n');
});

test('a command that does not read its stdin is not a problem', async (t) => {
  const { group, problems } = run(t, 'exec 0<&-; exit 0', { stdin: 'x'.repeat(1 << 20) });
  assert.equal((await group.done).code, 0);
  assert.deepEqual(problems, []);
});

test('a stop sends SIGTERM to the group: a command that honours it ends at once, reporting the reason', async (t) => {
  const { group, output } = run(t, 'echo ready; while :; do sleep 0.05; done', { killGraceMs: 30_000 });
  await waitFor('the command to start', () => output.stdout === 'ready\n');
  const stoppedAt = performance.now();
  group.stop('cancel');
  const exit = await group.done;
  assert.ok(performance.now() - stoppedAt < 10_000, 'well before the 30 s grace period');
  assert.equal(exit.signal, 'SIGTERM');
  assert.equal(exit.stoppedFor, 'cancel');
});

test('a command that ignores SIGTERM gets SIGKILL after the grace period, not before', async (t) => {
  const graceMs = 600;
  const { group, output } = run(t, `trap '' TERM; echo ready; while :; do sleep 0.05; done`, { killGraceMs: graceMs });
  await waitFor('the command to start', () => output.stdout === 'ready\n');
  const stoppedAt = performance.now();
  group.stop('shutdown');
  // A second stop neither sends another SIGTERM nor restarts the grace period, nor changes the reason.
  group.stop('cancel');
  const exit = await group.done;
  const took = performance.now() - stoppedAt;
  assert.equal(exit.signal, 'SIGKILL');
  assert.equal(exit.stoppedFor, 'shutdown');
  assert.ok(took >= graceMs - 50, `SIGKILL came ${Math.round(took)} ms after the stop, before the ${graceMs} ms grace`);
  assert.ok(took < graceMs + 10_000, `SIGKILL came ${Math.round(took)} ms after the stop`);
});

test('kill() sends SIGKILL at once, even while a stop is being given its grace period', async (t) => {
  const { group, output } = run(t, `trap '' TERM; echo ready; while :; do sleep 0.05; done`, { killGraceMs: 60_000 });
  await waitFor('the command to start', () => output.stdout === 'ready\n');
  group.stop('cancel');
  group.kill();
  const exit = await group.done;
  assert.equal(exit.signal, 'SIGKILL');
  assert.equal(exit.stoppedFor, 'cancel');
});

test('a command running past its timeout is stopped with the reason timeout', async (t) => {
  const { group } = run(t, 'sleep 30', { timeoutMs: 200 });
  const exit = await group.done;
  assert.equal(exit.stoppedFor, 'timeout');
  assert.equal(exit.signal, 'SIGTERM');
});

test('a background process the command left in its group is killed when the shell exits', async (t) => {
  const dir = tempDir(t);
  const pidFile = path.join(dir, 'bg.pid');
  // The background sleep keeps stdout open: the run could only end at once if it is killed.
  const { group } = run(t, `sleep 30 & echo $! > ${pidFile}; exit 0`, { pipeCloseWaitMs: 60_000 });
  const startedAt = performance.now();
  const exit = await group.done;
  assert.deepEqual(exit, { code: 0, signal: null, stoppedFor: null, spawnError: null });
  assert.ok(performance.now() - startedAt < 20_000, 'the run ended without waiting for the background sleep');
  const pid = pidIn(pidFile);
  assert.ok(pid !== undefined, 'the command wrote the background pid');
  await waitFor('the background process to be gone', () => !processAlive(pid));
});

test('a stop that comes after the shell exited changes nothing about how it ended', async (t) => {
  const { group } = run(t, 'exit 0');
  const exit = await group.done;
  group.stop('cancel');
  assert.equal(exit.stoppedFor, null);
  assert.equal(exit.code, 0);
});

test('a process that left the group and holds the output pipes does not hold the run open past the pipe wait', async (t) => {
  const dir = tempDir(t);
  const pidFile = path.join(dir, 'escaped.pid');
  t.after(() => {
    const pid = pidIn(pidFile);
    if (pid !== undefined && processAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  const { group } = run(t, `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & while [ ! -s ${pidFile} ]; do sleep 0.01; done; exit 0`, { pipeCloseWaitMs: 300 });
  const exit = await group.done;
  assert.equal(exit.code, 0);
  const pid = pidIn(pidFile);
  assert.ok(pid !== undefined && processAlive(pid), 'the escaped process is still running: it was not in the group');
});

test('a command that cannot be started reports the error instead of an exit', async (t) => {
  const { group } = run(t, 'true', { cwd: path.join(os.tmpdir(), 'spool-no-such-folder', String(process.pid)) });
  const exit = await group.done;
  assert.ok(exit.spawnError instanceof Error, 'a spawn error');
  assert.equal(exit.code, null);
  assert.equal(group.pid, undefined);
});

test('with a container the shell writes its own pid to it first, then runs the command in itself as /bin/sh -c would', async (t) => {
  // A plain file stands for cgroup.procs: what is checked is what the shell writes and runs.
  const dir = path.join(tempDir(t), "it's a folder");
  fs.mkdirSync(dir);
  const procsFile = path.join(dir, 'cgroup.procs');
  const container = { procsFile, signal: () => undefined, close: async () => undefined };
  const { group, output } = run(t, 'echo "$0 $# $$"\necho second line; exit 4', { container });
  const exit = await group.done;
  assert.equal(exit.code, 4);
  assert.equal(output.stdout, `/bin/sh 0 ${group.pid}\nsecond line\n`);
  assert.equal(pidIn(procsFile), group.pid);
});

test('with a container the command does not run when the shell cannot move itself in', async (t) => {
  const container = { procsFile: path.join(tempDir(t), 'no-such-folder', 'cgroup.procs'), signal: () => undefined, close: async () => undefined };
  const { group, output } = run(t, 'echo ran', { container });
  const exit = await group.done;
  assert.equal(exit.code, 125);
  assert.equal(output.stdout, '');
});
