/**
 * The CLI commands that follow a job or the queue live: `spool enqueue --wait`, `spool logs -f`
 * and `spool stats --watch`. Jobs wait on a "gate" file the test creates, so the test can see
 * output arrive while the job is still running, without sleeping.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { EnqueueResult, JobWithRuns, Stats } from '../../shared/protocol';
import type { OutputLine } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { cliEnv, parseJson, runCli, SPOOL_BIN, startCli, stopCli, UUID } from './cli-run';

let daemon: TestDaemon;
let gates = 0;
const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });

before(async () => {
  daemon = await startDaemon();
});
after(async () => {
  await daemon.dispose();
});

/** A shell fragment that waits until the test opens the gate, and the function that opens it. */
function gate(): { wait: string; open: () => void } {
  const file = path.join(daemon.dir, `gate-${++gates}`);
  // Bounded (60 s): a test that fails before opening it must not leave the loop running forever.
  return { wait: `i=0; while [ ! -e '${file}' ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done`, open: () => fs.writeFileSync(file, '') };
}

test('enqueue --wait streams the output while the job runs and exits 0 when it completes', async (t) => {
  const g = gate();
  const cli = startCli(['enqueue', 'follow', '--shell', `echo first; ${g.wait}; echo second`, '--wait'], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  await waitFor('the first line', () => cli.stdout().includes('first\n'));
  assert.equal(cli.stdout(), 'first\n', 'the second line is not there before the gate opens');
  assert.equal(cli.process.exitCode, null, 'still waiting for the job');
  g.open();
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'first\nsecond\n');
  assert.match(r.stderr, /Job \S+ completed in /);
});

test('enqueue --wait exits 1 when the job ends dead, and says why', async () => {
  const r = await spool(['enqueue', 'follow', '--shell', 'echo trying; echo broken >&2; exit 3', '--attempts', '1', '--wait']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'trying\n');
  assert.match(r.stderr, /^broken$/m);
  assert.match(r.stderr, /Job \S+ is dead after 1 attempt: .*3/);
});

test('enqueue --wait follows retries to the end, marking each new attempt', async () => {
  const marker = path.join(daemon.dir, 'second-try');
  // Fails the first time, succeeds the second.
  const command = `if [ -e '${marker}' ]; then echo ok; else touch '${marker}'; echo fail; exit 1; fi`;
  const r = await spool(['enqueue', 'follow', '--shell', command, '--attempts', '2', '--backoff', 'fixed:100ms', '--wait']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'fail\nok\n');
  assert.match(r.stderr, /^--- run 2 \(attempt 2\) ---$/m);
});

test('enqueue --wait exits 1 when the job is cancelled', async (t) => {
  const cli = startCli(['enqueue', 'follow-cancel', '--kind', 'nobody-claims-this', '--wait', '--json'], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  const id = await waitFor('the job to be enqueued', async () => {
    const r = await spool(['jobs', '-q', 'follow-cancel', '--json']);
    return parseJson<{ jobs: { id: string }[] }>(r.stdout).jobs[0]?.id;
  });
  assert.equal((await spool(['cancel', id])).code, 0);
  const r = await cli.exited;
  assert.equal(r.code, 1);
  assert.equal(parseJson<JobWithRuns>(r.stdout).job.state, 'cancelled');
});

test('enqueue --key --wait with a key of a running job in another queue follows that job to its end, and says where it is', async (t) => {
  const g = gate();
  const first = parseJson<EnqueueResult>((await spool(['enqueue', 'follow-key-a', '--shell', `echo from-a; ${g.wait}; echo end-a`, '--key', 'follow-key-1', '--json'])).stdout).job;
  // A queue name one edit from the job's: before, this printed a new-queue note for a queue it did not make.
  const cli = startCli(['enqueue', 'follow-key-b', '--shell', 'echo never-runs', '--key', 'follow-key-1', '--wait'], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  await waitFor('the output of the existing job', () => cli.stdout().includes('from-a\n'));
  assert.match(cli.stderr(), new RegExp(`^A job with key follow-key-1 exists already: ${first.id} on queue follow-key-a \\((queued|running)\\); nothing new was enqueued\\. Waiting for that job to finish`, 'm'));
  g.open();
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'from-a\nend-a\n');
  assert.doesNotMatch(r.stderr, /Enqueued|made a new queue/);
  assert.match(r.stderr, new RegExp(`Job ${first.id} completed in `));
  // Nothing was enqueued on the queue named in the command.
  assert.equal(parseJson<{ jobs: unknown[] }>((await spool(['jobs', '-q', 'follow-key-b', '--json'])).stdout).jobs.length, 0);
});

test('enqueue --key --wait with a key of a finished job in the same queue prints its output and outcome, not "Enqueued"', async () => {
  const made = await spool(['enqueue', 'follow-key-same', '--shell', 'echo once', '--key', 'follow-key-2', '--wait']);
  assert.equal(made.code, 0, made.stderr);
  const id = /Enqueued (\S+) on follow-key-same/.exec(made.stderr)?.[1];
  assert.ok(id, made.stderr);
  const again = await spool(['enqueue', 'follow-key-same', '--shell', 'echo once', '--key', 'follow-key-2', '--wait']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, 'once\n');
  assert.doesNotMatch(again.stderr, /Enqueued/);
  assert.match(again.stderr, new RegExp(`^A job with key follow-key-2 exists already: ${id} on queue follow-key-same \\(completed\\)`, 'm'));
  assert.match(again.stderr, new RegExp(`Job ${id} completed in `));
});

test('logs -f shows the lines of a running job as they come, then ends with the job', async (t) => {
  const g = gate();
  const enq = await spool(['enqueue', 'follow', '--shell', `echo one; echo two >&2; ${g.wait}; echo three`, '--json']);
  const id = parseJson<EnqueueResult>(enq.stdout).job.id;
  const cli = startCli(['logs', '-f', id], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  await waitFor('the lines written so far', () => cli.stdout().includes('one\n') && cli.stderr().includes('two\n'));
  assert.equal(cli.stdout(), 'one\n');
  assert.equal(cli.process.exitCode, null, 'still following');
  g.open();
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'one\nthree\n');
  assert.equal(r.stderr, 'two\n');
});

test('logs -f exits 1 when the job it followed ended dead or cancelled, as enqueue --wait does, and says how it ended', async (t) => {
  const failing = parseJson<EnqueueResult>((await spool(['enqueue', 'follow-ends', '--shell', 'echo trying; exit 3', '--attempts', '1', '--json'])).stdout).job.id;
  const dead = await spool(['logs', '-f', failing]);
  assert.equal(dead.code, 1, dead.stderr);
  assert.equal(dead.stdout, 'trying\n');
  assert.match(dead.stderr, new RegExp(`^Job ${failing} is dead after 1 attempt: .*exit.*3`, 'm'));

  const g = gate();
  const long = parseJson<EnqueueResult>((await spool(['enqueue', 'follow-ends', '--shell', `echo started; ${g.wait}`, '--json'])).stdout).job.id;
  t.after(() => g.open());
  const cli = startCli(['logs', '-f', long], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  await waitFor('the running job\'s first line', () => cli.stdout().includes('started\n'));
  assert.equal((await spool(['cancel', long])).code, 0);
  const cancelled = await cli.exited;
  assert.equal(cancelled.code, 1, cancelled.stderr);
  assert.match(cancelled.stderr, new RegExp(`^Job ${long} is cancelled after 1 attempt`, 'm'));
});

test('logs -f --json prints every line once, in order, when many lines arrive quickly', async () => {
  const enq = await spool(['enqueue', 'follow', '--shell', 'i=1; while [ $i -le 900 ]; do echo "line $i"; i=$((i+1)); done', '--json']);
  const id = parseJson<EnqueueResult>(enq.stdout).job.id;
  const r = await spool(['logs', '-f', id, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n').map((l) => parseJson<OutputLine>(l));
  assert.equal(lines.length, 900);
  lines.forEach((l, i) => {
    assert.equal(l.seq, i + 1);
    assert.equal(l.text, `line ${i + 1}`);
  });
  // Output larger than a pipe's buffer arrives whole: the CLI waits for it to drain before exiting.
  const again = await spool(['logs', id, '--json']);
  assert.equal(again.stdout.trimEnd().split('\n').length, 900);
  const raw = await spool(['rpc', 'jobs.output', JSON.stringify({ id, limit: 1000 })]);
  assert.equal(parseJson<{ lines: OutputLine[]; done: boolean }>(raw.stdout).lines.length, 900);
});

test('logs -f on a finished job prints its output and returns at once', async () => {
  const enq = await spool(['enqueue', 'follow', '--shell', 'echo done-already', '--wait', '--json']);
  // JSON lines: each output line, then the job.
  const objects = enq.stdout.trimEnd().split('\n').map((line) => parseJson<Record<string, unknown>>(line));
  assert.deepEqual(objects.slice(0, -1).map((o) => [o['stream'], o['text']]), [['stdout', 'done-already']]);
  const id = parseJson<JobWithRuns>(enq.stdout.trimEnd().split('\n').at(-1) ?? '').job.id;
  assert.match(id, UUID);
  const r = await spool(['logs', '-f', id]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'done-already\n');

  // Retried, it runs again as attempt 1: the line between the two runs' output says which run.
  assert.equal((await spool(['retry', id])).code, 0);
  const again = await spool(['logs', '-f', id]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, 'done-already\ndone-already\n');
  assert.equal(again.stderr, '--- run 2 (attempt 1) ---\n');
});

test('stats --watch prints a new summary when the counts change, and stops on SIGINT', async (t) => {
  const cli = startCli(['stats', '--watch', '--json'], { socketPath: daemon.socketPath });
  t.after(() => stopCli(cli));
  const summaries = (): Stats[] => cli.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => parseJson<Stats>(l));
  await waitFor('the first summary', () => summaries().length >= 1);
  assert.equal(summaries()[0]?.queues.find((q) => q.name === 'watched'), undefined);
  await spool(['enqueue', 'watched', '--kind', 'later', '--delay', '1h']);
  await waitFor('a summary with the new queue', () => summaries().some((s) => s.queues.find((q) => q.name === 'watched')?.counts.queued === 1));
  cli.process.kill('SIGINT');
  const r = await cli.exited;
  assert.equal(r.code, 0, r.stderr);
});

test('stats --watch exits 1 with a reason when the daemon goes away', async (t) => {
  const own = await startDaemon();
  t.after(() => own.dispose());
  const cli = startCli(['stats', '--watch', '--json'], { socketPath: own.socketPath });
  t.after(() => stopCli(cli));
  await waitFor('the first summary', () => cli.stdout().includes('{'));
  await own.stop();
  const r = await cli.exited;
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `spool: Lost the Spool daemon at ${own.socketPath}; stats are no longer live.\n`);
});

test('a reader that goes away (logs -f | head -1) ends the command quietly with status 0', async (t) => {
  const g = gate();
  const enq = await spool(['enqueue', 'follow', '--shell', `echo first; ${g.wait}; seq 1 500`, '--json']);
  const id = parseJson<EnqueueResult>(enq.stdout).job.id;
  const pipeline = spawn('bash', ['-c', `"${process.execPath}" "${SPOOL_BIN}" logs -f ${id} | head -1; echo "spool exited with \${PIPESTATUS[0]}" >&2`], {
    env: cliEnv(daemon.socketPath),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  pipeline.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  pipeline.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => pipeline.once('close', resolve));
  t.after(() => {
    if (pipeline.exitCode === null) pipeline.kill('SIGKILL');
  });
  await waitFor('head to print the first line', () => stdout === 'first\n');
  // Only once head has exited does the rest of the output meet a closed pipe.
  await waitFor('head to exit', () => !spawnSync('ps', ['--ppid', String(pipeline.pid), '-o', 'comm=']).stdout.toString().includes('head'));
  g.open();
  assert.equal(await closed, 0);
  assert.equal(stderr, 'spool exited with 0\n');
});
