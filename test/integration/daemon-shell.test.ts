/**
 * The shell executor in a real daemon: success and failure, the payload's cwd and env, output
 * captured and streamed in order, timeout and cancel stopping the whole process tree (a child
 * that starts a sleeping grandchild: the grandchild must be gone too) with SIGKILL after the
 * grace period when the tree ignores SIGTERM, and the limits on jobs running at once (the global
 * executor cap, its default, and a queue's concurrency).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode, type JobOutputEvent } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

async function finished(client: SpoolClient, id: string): Promise<Job> {
  return waitFor(`job ${id} to finish`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return ['completed', 'dead', 'cancelled', 'retrying'].includes(job.state) ? job : undefined;
  });
}

/** The pid a command wrote to `file`, once it has written it. */
function pidIn(file: string): number | undefined {
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) || undefined : undefined;
}

/** Whether the process ignores SIGTERM, from the SigIgn mask in /proc (bit 14 is signal 15). */
function ignoresSigterm(pid: number): boolean {
  const mask = /^SigIgn:\s*([0-9a-f]+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return mask !== undefined && (parseInt(mask.slice(-8), 16) & 0x4000) !== 0;
}

/**
 * The most jobs running at once according to a log of "start <queue> <id>" and "end <queue> <id>"
 * lines, appended by the jobs themselves (of `queue` only, when given). A job writes its start
 * after its process began and its end before the process exits, so two jobs overlapping in the
 * log really did run at the same time.
 */
function mostAtOnce(log: string[], queue?: string): number {
  let running = 0;
  let most = 0;
  for (const line of log) {
    const [event, q] = line.split(' ');
    if (queue !== undefined && q !== queue) continue;
    running += event === 'start' ? 1 : -1;
    most = Math.max(most, running);
  }
  return most;
}

/**
 * The daemon below gives a stopped job's process group this long between SIGTERM and SIGKILL
 * (--kill-after): shorter than the 5 s default, so that the stubborn-tree tests can tell the
 * option took effect, and wait less.
 */
const KILL_GRACE_MS = 2000;

describe('shell executor', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  before(async () => {
    daemon = await startDaemon({ args: ['--kill-after', `${KILL_GRACE_MS}ms`] });
    client = await daemon.client();
  });
  after(() => daemon.dispose());

  /** A command whose child starts a grandchild that sleeps, writing the grandchild's pid to a file. */
  function treeCommand(name: string): { command: string; pidFile: string } {
    const pidFile = path.join(daemon.dir, `${name}.pid`);
    return { command: `echo started; sh -c 'sleep 300 & echo $! > ${pidFile}; wait'`, pidFile };
  }

  test('exit 0 completes the job', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'echo hello' } });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.result, { exitCode: 0 });
    const out = await client.call('jobs.output', { id: job.id });
    assert.deepEqual(out.lines.map((l) => [l.stream, l.text]), [['stdout', 'hello']]);
  });

  test('the command runs in the payload cwd and sees the payload env', async () => {
    // realpath: the temporary folder may sit behind a symlink, and `pwd -P` prints the real path.
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'spool-cwd-')));
    try {
      const value = 'two words & a $dollar';
      const { job } = await client.call('jobs.enqueue', {
        queue: 'sh',
        kind: 'shell',
        payload: { command: 'pwd -P; echo "$SPOOL_TEST_VAR"; echo "$SPOOL_JOB_ID $SPOOL_QUEUE"; echo made > made-here.txt', cwd, env: { SPOOL_TEST_VAR: value } },
      });
      const done = await finished(client, job.id);
      assert.equal(done.state, 'completed');
      const out = await client.call('jobs.output', { id: job.id });
      assert.deepEqual(out.lines.map((l) => [l.stream, l.text]), [
        ['stdout', cwd],
        ['stdout', value],
        ['stdout', `${job.id} sh`],
      ]);
      // A relative path written by the command lands in the cwd too.
      assert.equal(fs.readFileSync(path.join(cwd, 'made-here.txt'), 'utf8'), 'made\n');
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  test('a non-zero exit fails with the exit code and the tail of stderr', async () => {
    const { job } = await client.call('jobs.enqueue', {
      queue: 'sh',
      kind: 'shell',
      maxAttempts: 1,
      payload: { command: 'echo first >&2; echo "it broke" >&2; exit 3' },
    });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /code 3/);
    assert.match(done.lastError ?? '', /it broke/);
    const { runs } = await client.call('jobs.get', { id: job.id });
    assert.equal(runs[0].exitCode, 3);
  });

  test('output is captured and streamed in order', async () => {
    const listener = await daemon.client();
    const events: JobOutputEvent[] = [];
    listener.on('jobs.output', (e) => events.push(e));
    await listener.call('events.subscribe', { topics: ['output'] });
    const { job } = await client.call('jobs.enqueue', {
      queue: 'sh',
      kind: 'shell',
      payload: { command: 'i=1; while [ $i -le 500 ]; do echo "line $i"; i=$((i+1)); done; echo done >&2' },
    });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'completed');
    const expected = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`);
    const stored = await client.call('jobs.output', { id: job.id, limit: 1000 });
    assert.deepEqual(
      stored.lines.filter((l) => l.stream === 'stdout').map((l) => l.text),
      expected,
    );
    assert.deepEqual(stored.lines.filter((l) => l.stream === 'stderr').map((l) => l.text), ['done']);
    const seqs = stored.lines.map((l) => l.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    await waitFor('every line streamed', () => events.filter((e) => e.id === job.id).flatMap((e) => e.lines).length >= 501);
    const streamed = events.filter((e) => e.id === job.id).flatMap((e) => e.lines);
    assert.deepEqual(
      streamed.filter((l) => l.stream === 'stdout').map((l) => l.text),
      expected,
    );
  });

  test('a burst of output larger than one wire call (3,000 lines at once) is stored whole and in order', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', payload: { command: 'seq 1 3000' } });
    assert.equal((await finished(client, job.id)).state, 'completed');
    const texts: string[] = [];
    let after = 0;
    for (;;) {
      const page = await client.call('jobs.output', { id: job.id, after, limit: 1000 });
      texts.push(...page.lines.map((l) => l.text));
      after = page.nextAfter;
      if (page.lines.length === 0 || page.done) break;
    }
    assert.equal(texts.length, 3000);
    assert.deepEqual(texts.slice(0, 2), ['1', '2']);
    assert.equal(texts[2999], '3000');
  });

  test('a timeout stops the whole process tree and fails the attempt', async () => {
    const { command, pidFile } = treeCommand('timeout');
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', timeoutMs: 1500, maxAttempts: 1, payload: { command } });
    const grandchild = await waitFor('the grandchild to start', () => pidIn(pidFile));
    assert.ok(processAlive(grandchild));
    const done = await finished(client, job.id);
    assert.equal(done.state, 'dead');
    assert.match(done.lastError ?? '', /^The command was killed by SIGTERM after the 1\.5s timeout\./);
    await waitFor('the grandchild to be gone', () => !processAlive(grandchild));
  });

  test('cancel stops the whole process tree and the job ends cancelled', async () => {
    const { command, pidFile } = treeCommand('cancel');
    const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', timeoutMs: 120_000, payload: { command } });
    const grandchild = await waitFor('the grandchild to start', () => pidIn(pidFile));
    const requested = await client.call('jobs.cancel', { id: job.id });
    assert.equal(requested.job.cancelRequested, true);
    const done = await finished(client, job.id);
    assert.equal(done.state, 'cancelled');
    await waitFor('the grandchild to be gone', () => !processAlive(grandchild));
  });

  // Each of these waits out the kill grace period, so the two run side by side; the daemon runs
  // as many jobs as there are CPUs.
  describe('a command tree that ignores SIGTERM', { concurrency: true }, () => {
    /**
     * A shell that ignores SIGTERM, whose child shell ignores it too and starts a sleeping
     * grandchild (which inherits the ignored signal); each writes its pid to a file.
     */
    function stubbornTree(name: string): { command: string; started(): Promise<number[]>; killLeftovers(): void } {
      const files = ['shell', 'child', 'grandchild'].map((p) => path.join(daemon.dir, `${name}-${p}.pid`));
      const [shellFile, childFile, grandchildFile] = files;
      return {
        command: `trap '' TERM; echo $$ > ${shellFile}; sh -c 'trap "" TERM; echo $$ > ${childFile}; sleep 30 & echo $! > ${grandchildFile}; wait'`,
        async started() {
          const pids = await waitFor('the three processes to start', () => {
            const found = files.map(pidIn);
            return found.every((pid): pid is number => pid !== undefined) ? found : undefined;
          });
          // Otherwise SIGTERM alone would end the tree and SIGKILL would never be needed.
          for (const pid of pids) assert.ok(ignoresSigterm(pid), `process ${pid} ignores SIGTERM`);
          return pids;
        },
        // Whatever a failed test left behind goes with SIGKILL (these processes ignore SIGTERM).
        // The shell leads the process group the daemon made for the job, which holds the tree.
        killLeftovers() {
          const shell = pidIn(shellFile);
          if (shell === undefined) return;
          try {
            process.kill(-shell, 'SIGKILL');
          } catch (error) {
            // ESRCH: the group is empty, as it should be once the job has ended.
            if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
          }
        },
      };
    }

    test('cancel kills it with SIGKILL after the grace period and the job ends cancelled', async () => {
      const tree = stubbornTree('stubborn-cancel');
      try {
        const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', timeoutMs: 120_000, payload: { command: tree.command } });
        const pids = await tree.started();
        const cancelledAt = Date.now();
        await client.call('jobs.cancel', { id: job.id });
        const done = await finished(client, job.id);
        assert.equal(done.state, 'cancelled');
        const took = (done.finishedAt ?? 0) - cancelledAt;
        // Not before the grace period (SIGTERM did nothing), and well before the 5 s default
        // would have ended it.
        assert.ok(took >= KILL_GRACE_MS - 50 && took < KILL_GRACE_MS + 2500, `ended ${took} ms after the cancel`);
        await waitFor('every process of the tree to be gone', () => pids.every((pid) => !processAlive(pid)), 3000);
      } finally {
        tree.killLeftovers();
      }
    });

    test('a timeout kills it with SIGKILL after the grace period and fails the attempt', async () => {
      const tree = stubbornTree('stubborn-timeout');
      try {
        const { job } = await client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', timeoutMs: 1000, maxAttempts: 1, payload: { command: tree.command } });
        const pids = await tree.started();
        const done = await finished(client, job.id);
        assert.equal(done.state, 'dead');
        assert.match(done.lastError ?? '', /^The command was killed by SIGKILL after the 1s timeout\./);
        const took = (done.finishedAt ?? 0) - (done.startedAt ?? 0);
        assert.ok(took >= 1000 + KILL_GRACE_MS - 50 && took < 1000 + KILL_GRACE_MS + 2500, `ended ${took} ms after it started`);
        await waitFor('every process of the tree to be gone', () => pids.every((pid) => !processAlive(pid)), 3000);
      } finally {
        tree.killLeftovers();
      }
    });
  });

  test('a background process left behind by a successful command does not survive it', async () => {
    const pidFile = path.join(daemon.dir, 'orphan.pid');
    const { job } = await client.call('jobs.enqueue', {
      queue: 'sh',
      kind: 'shell',
      payload: { command: `sleep 300 & echo $! > ${pidFile}; exit 0` },
    });
    const done = await finished(client, job.id);
    assert.equal(done.state, 'completed');
    const orphan = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitFor('the orphan to be gone', () => !processAlive(orphan));
  });

  test('an invalid payload is refused at enqueue with a message saying what is wrong', async () => {
    await assert.rejects(
      client.call('jobs.enqueue', { queue: 'sh', kind: 'shell', maxAttempts: 5, payload: { cmd: 'ls' } }),
      (error: unknown) => error instanceof SpoolError && error.code === ErrorCode.InvalidParams && error.data.field === 'payload.cmd' && /Unknown field "payload\.cmd"/.test(error.message),
    );
  });

  test('jobs held back by a queue rate limit run when tokens come, with no other event to wake them', async () => {
    await client.call('queues.configure', { name: 'limited', rateLimit: { perSecond: 4, burst: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await client.call('jobs.enqueue', { queue: 'limited', kind: 'shell', payload: { command: 'true' } })).job.id);
    const jobs = await Promise.all(ids.map((id) => finished(client, id)));
    assert.ok(jobs.every((j) => j.state === 'completed'));
    const starts = jobs.map((j) => j.startedAt ?? 0).sort((a, b) => a - b);
    // One token every 250 ms: the four starts span at least ~0.75 s.
    assert.ok(starts[3] - starts[0] >= 600, `starts spread over ${starts[3] - starts[0]} ms`);
  });

  test('without --max-executors, the global executor cap is the number of CPUs available', async () => {
    const status = await client.call('daemon.status');
    assert.equal(status.executors.cap, os.availableParallelism());
  });

  test('the global executor cap and per-queue concurrency bound the jobs running at once', async () => {
    const capped = await startDaemon({ args: ['--max-executors', '3'] });
    try {
      const c = await capped.client();
      await c.call('queues.configure', { name: 'one-at-a-time', concurrency: 1 });
      // Each job appends its start and end to one log (O_APPEND: lines never interleave).
      const log = path.join(capped.dir, 'log');
      const command = `echo "start $SPOOL_QUEUE $SPOOL_JOB_ID" >> ${log}; sleep 0.3; echo "end $SPOOL_QUEUE $SPOOL_JOB_ID" >> ${log}`;
      const ids: string[] = [];
      // The one-at-a-time jobs come first and rank first, so that without the queue's limit the
      // daemon would start all three at once: the cap has room for them.
      for (let i = 0; i < 3; i++) ids.push((await c.call('jobs.enqueue', { queue: 'one-at-a-time', kind: 'shell', priority: 10, payload: { command } })).job.id);
      for (let i = 0; i < 8; i++) ids.push((await c.call('jobs.enqueue', { queue: 'wide', kind: 'shell', payload: { command } })).job.id);
      await waitFor('all jobs to complete', async () => (await c.call('stats.get')).totals.completed === ids.length, 60_000);
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      assert.equal(lines.length, 2 * ids.length);
      const most = mostAtOnce(lines);
      assert.ok(most <= 3, `at most 3 at once, saw ${most}`);
      assert.ok(most >= 2, `jobs ran side by side (saw ${most})`);
      assert.equal(mostAtOnce(lines, 'one-at-a-time'), 1, `one-at-a-time ran one job at a time:\n${lines.join('\n')}`);
      assert.ok(mostAtOnce(lines, 'wide') >= 2, 'the queue without a limit ran jobs side by side');
    } finally {
      await capped.dispose();
    }
  });
});
