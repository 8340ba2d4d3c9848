/**
 * Resource limits on shell jobs, with real processes in a real daemon: a command that allocates
 * past its memory limit, one that spins past its CPU time and one that opens too many files each
 * fail with the limit named in the run's error; limits are validated like every field; the CLI
 * sets them with --memory, --cpu, --open-files and --processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import type { Job, ResourceLimits } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli } from './cli-run';

const MiB = 1024 ** 2;

describe('shell job resource limits', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  before(async () => {
    daemon = await startDaemon();
    client = await daemon.client();
  });
  after(() => daemon.dispose());

  async function runToEnd(command: string, limits?: ResourceLimits, queue = 'limits'): Promise<Job> {
    const { job } = await client.call('jobs.enqueue', { queue, kind: 'shell', maxAttempts: 1, timeoutMs: 60_000, payload: { command, ...(limits ? { limits } : {}) } });
    return waitFor(`job ${job.id} to finish`, async () => {
      const j = (await client.call('jobs.get', { id: job.id })).job;
      return ['completed', 'dead', 'cancelled'].includes(j.state) ? j : undefined;
      // As long as the job's own timeout: a gigabyte allocated on a loaded machine takes a while.
    }, 60_000);
  }

  test('a command allocating past its memory limit fails with "Killed: memory limit …" in its run', async () => {
    const done = await runToEnd(`python3 -c 'x = bytearray(1024 ** 3)'`, { memoryBytes: 256 * MiB });
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /^Killed: memory limit 256 MiB\. The command exited with code 1\./);
    assert.match(done.lastError ?? '', /MemoryError/);
    const { runs } = await client.call('jobs.get', { id: done.id });
    assert.match(runs[runs.length - 1]?.error ?? '', /^Killed: memory limit 256 MiB/);
  });

  test('within the limit, the same command completes', async () => {
    const done = await runToEnd(`python3 -c 'x = bytearray(16 * 1024 ** 2)'`, { memoryBytes: 256 * MiB });
    assert.equal(done.state, 'completed', done.lastError ?? '');
  });

  test('a busy loop past its CPU time is killed with "Killed: CPU time limit 1s"', async () => {
    const done = await runToEnd('while :; do :; done', { cpuSeconds: 1 });
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /^Killed: CPU time limit 1s\. The command was killed by SIGXCPU\./);
  });

  test('too many open files fails with "Failed: open files limit 16"', async () => {
    const done = await runToEnd(`python3 -c "files = [open('/dev/null') for _ in range(100)]"`, { openFiles: 16 });
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /^Failed: open files limit 16\. The command exited with code 1\./);
    assert.match(done.lastError ?? '', /Too many open files/);
  });

  test('a failure unrelated to the limits is told as before', async () => {
    const done = await runToEnd('echo nope >&2; exit 3', { memoryBytes: 256 * MiB, cpuSeconds: 60, openFiles: 64 });
    assert.match(done.lastError ?? '', /^The command exited with code 3\./);
  });

  test('spool enqueue --shell … --memory 256MiB: the job gets the limit, and --wait tells what killed it', async () => {
    const result = await runCli(['enqueue', 'limits-cli', '--shell', `python3 -c 'x = bytearray(1024 ** 3)'`, '--memory', '256MiB', '--cpu', '1m', '--open-files', '64', '--processes', '5000', '--attempts', '1', '--wait'], { socketPath: daemon.socketPath });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /is dead after 1 attempt: Killed: memory limit 256 MiB/);
    const { jobs } = await client.call('jobs.list', { queue: 'limits-cli' });
    assert.deepEqual((jobs[0]?.payload as { limits?: unknown }).limits, { memoryBytes: 256 * MiB, cpuSeconds: 60, openFiles: 64, processes: 5000 });
  });

  test('the CLI refuses a bad limit in its own words, and limits without --shell', async () => {
    const cases: [string[], RegExp][] = [
      [['--memory', '512'], /Invalid size "512" for --memory: a number needs a unit .*e\.g\. 512MiB/],
      [['--memory', '1MiB'], /Invalid --memory "1MiB": from 16 MiB to/],
      [['--cpu', '1.5s'], /Invalid --cpu "1\.5s": CPU time is counted in whole seconds/],
      [['--open-files', 'lots'], /--open-files must be an integer from 4 to 1048576 \(got "lots"\)/],
    ];
    for (const [flags, message] of cases) {
      const result = await runCli(['enqueue', 'limits-cli', '--shell', 'true', ...flags], { socketPath: daemon.socketPath });
      assert.equal(result.code, 1, `${flags.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
    const notShell = await runCli(['enqueue', 'limits-cli', '--kind', 'x', '--memory', '1GiB'], { socketPath: daemon.socketPath });
    assert.match(notShell.stderr, /limit a shell job: use them with --shell/);
  });

  test("a queue's limits hold its shell jobs; a job's own override them field by field (spool queue <name> set)", async () => {
    const set = await runCli(['queue', 'limits-q', 'set', '--memory', '256MiB', '--open-files', '32', '--cpu', '1h'], { socketPath: daemon.socketPath });
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /shell limits:\s+memory 256 MiB, CPU time 1h, open files 32/);
    const allocate = `python3 -c 'x = bytearray(1024 ** 3)'`;
    const held = await runToEnd(allocate, undefined, 'limits-q');
    assert.match(held.lastError ?? '', /^Killed: memory limit 256 MiB\./);
    // The job's own memory limit replaces the queue's; the queue's open-files limit still holds.
    const own = await runToEnd(`${allocate} && python3 -c "files = [open('/dev/null') for _ in range(100)]"`, { memoryBytes: 4096 * MiB }, 'limits-q');
    assert.match(own.lastError ?? '', /^Failed: open files limit 32\./);
    const removed = await runCli(['queue', 'limits-q', 'set', '--memory', 'none', '--cpu', 'none', '--json'], { socketPath: daemon.socketPath });
    assert.deepEqual((JSON.parse(removed.stdout) as { queue: { limits: unknown } }).queue.limits, { openFiles: 32 });
    const free = await runToEnd(allocate, undefined, 'limits-q');
    assert.equal(free.state, 'completed', free.lastError ?? '');
  });

  test('limits are validated like every field, naming it and what is allowed', async () => {
    const cases: [unknown, RegExp][] = [
      [{ memoryBytes: 1024 }, /payload\.limits\.memoryBytes must be an integer bytes, from 16 MiB/],
      [{ cpuSeconds: 1.5 }, /payload\.limits\.cpuSeconds must be an integer whole seconds/],
      [{ openFiles: 'many' }, /payload\.limits\.openFiles must be an integer from 4 to 1048576 \(got "many"\)/],
      [{ processes: 0 }, /payload\.limits\.processes must be an integer from 1/],
      [{ swap: 1 }, /Unknown field "payload\.limits\.swap"\. Allowed: memoryBytes, cpuSeconds, openFiles, processes/],
      ['512M', /payload\.limits must be an object/],
    ];
    for (const [limits, message] of cases) {
      await assert.rejects(
        client.call('jobs.enqueue', { queue: 'limits', kind: 'shell', payload: { command: 'true', limits } }),
        (error: unknown) => error instanceof SpoolError && error.code === ErrorCode.InvalidParams && message.test(error.message),
        String(message),
      );
    }
  });
});
