/**
 * The queue history through the CLI as a process against a real daemon (docs/history.md):
 * `spool stats --history` shows what jobs did per minute, once the daemon has written it (every
 * 5 s); a daemon started with --no-history keeps none. `spool job ID --history` shows each change of
 * one job with its cause.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { JobHistoryResult, StatsHistoryResult } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { parseJson, runCli } from './cli-run';

describe('spool stats --history', () => {
  let daemon: TestDaemon;
  let quiet: TestDaemon;
  before(async () => {
    daemon = await startDaemon();
    quiet = await startDaemon({ args: ['--no-history'] });
  });
  after(async () => {
    await daemon.dispose();
    await quiet.dispose();
  });

  test('shows per minute the jobs enqueued, completed and dead, with run times, as a table and as JSON', async () => {
    const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });
    assert.equal((await spool(['enqueue', 'hist-cli', '--shell', 'true', '--wait'])).code, 0);
    assert.notEqual((await spool(['enqueue', 'hist-cli', '--shell', 'exit 3', '--attempts', '1', '--wait'])).code, 0);
    let points: StatsHistoryResult['points'] = [];
    await waitFor(
      'the history to show both jobs',
      async () => {
        const r = await spool(['stats', '--history', '--queue', 'hist-cli', '--since', '10m', '--json']);
        assert.equal(r.code, 0, r.stderr);
        points = parseJson<StatsHistoryResult>(r.stdout).points;
        const sum = (k: 'enqueued' | 'started' | 'completed' | 'dead') => points.reduce((n, p) => n + p[k], 0);
        return sum('enqueued') === 2 && sum('started') === 2 && sum('completed') === 1 && sum('dead') === 1;
      },
      30_000,
    );
    assert.ok(points.every((p) => p.queue === 'hist-cli' && p.at % 60_000 === 0));
    assert.ok(points.some((p) => p.runMax !== null));
    const table = await spool(['stats', '--history', '--queue', 'hist-cli', '--since', '10m']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^TIME \(UTC\) +QUEUE +ENQUEUED +STARTED +COMPLETED +FAILED +DEAD +CANCELLED +WAIT P50 +WAIT P95 +RUN P50 +RUN P95 +BACKLOG +RUNNING$/m);
    assert.match(table.stdout, /^\d{4}-\d\d-\d\d \d\d:\d\d +hist-cli +\d+ +\d+ +\d+ +0 +\d+ +0 /m);
    const hours = parseJson<StatsHistoryResult>((await spool(['stats', '--history', '--since', '2h', '--step', 'hour', '--json'])).stdout);
    assert.equal(hours.step, 'hour');
    assert.equal(hours.points.filter((p) => p.queue === 'hist-cli').reduce((n, p) => n + p.enqueued, 0), 2);

    const bad = await spool(['stats', '--history', '--step', 'day']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--step is minute or hour, not "day"/);
    const unknown = await spool(['stats', '--history', '--queue', 'no-such-queue']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No queue named "no-such-queue"/);
  });

  test('spool job ID --history: a job that failed twice then completed shows each claim and each end, oldest first, as a table and as JSON', async () => {
    const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });
    const dir = mkdtempSync(join(tmpdir(), 'spool-job-history-'));
    try {
      const counter = join(dir, 'n');
      const command = `n=$(($(cat ${counter} 2>/dev/null || echo 0)+1)); echo $n > ${counter}; [ $n -ge 3 ]`;
      const enqueued = await spool(['enqueue', 'hist-job', '--shell', command, '--attempts', '3', '--backoff', 'fixed:100ms', '--json']);
      assert.equal(enqueued.code, 0, enqueued.stderr);
      const jobId = parseJson<{ job: { id: string } }>(enqueued.stdout).job.id;
      await waitFor(
        'the job to complete on its third attempt',
        async () => parseJson<{ job: { state: string } }>((await spool(['job', jobId, '--json'])).stdout).job.state === 'completed',
        30_000,
      );
      const json = await spool(['job', jobId, '--history', '--json']);
      assert.equal(json.code, 0, json.stderr);
      const events = parseJson<JobHistoryResult>(json.stdout).events;
      assert.deepEqual(
        events.map((e) => [e.state, e.cause, e.attempt]),
        [
          ['queued', 'enqueue', null],
          ['running', 'claim', 1],
          ['retrying', 'fail', 1],
          ['running', 'claim', 2],
          ['retrying', 'fail', 2],
          ['running', 'claim', 3],
          ['completed', 'complete', 3],
        ],
      );
      assert.ok(events.every((e, i) => i === 0 || e.at >= events[i - 1]!.at), 'oldest first');
      const table = await spool(['job', jobId.slice(-8), '--history']);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^TIME \(UTC\) +STATE +CAUSE +BY +ATTEMPT +DETAIL$/m);
      assert.match(table.stdout, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +retrying +fail +- +2 +/m);
      const unknown = await spool(['job', '0190d7a0-0000-7000-8000-000000000000', '--history']);
      assert.equal(unknown.code, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("spool job ID --history: a user's hold, release, edit, run now and retry through the CLI show with the Unix user who made them", async () => {
    const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });
    const enqueued = await spool(['enqueue', 'hist-who', '--shell', 'exit 3', '--attempts', '1', '--delay', '1h', '--json']);
    assert.equal(enqueued.code, 0, enqueued.stderr);
    const jobId = parseJson<{ job: { id: string } }>(enqueued.stdout).job.id;
    for (const args of [['hold', jobId], ['release', jobId], ['edit', jobId, '--priority', '5'], ['job', 'run-now', jobId]]) {
      const r = await spool(args);
      assert.equal(r.code, 0, `spool ${args.join(' ')}: ${r.stderr}`);
    }
    await waitFor('the job to end dead', async () => parseJson<{ job: { state: string } }>((await spool(['job', jobId, '--json'])).stdout).job.state === 'dead', 30_000);
    const retried = await spool(['retry', jobId]);
    assert.equal(retried.code, 0, retried.stderr);
    const events = parseJson<JobHistoryResult>((await spool(['job', jobId, '--history', '--json'])).stdout).events;
    const me = userInfo().username;
    assert.deepEqual(
      events.filter((e) => e.who !== null).map((e) => [e.cause, e.who, e.detail]),
      [
        ['hold', me, 'was queued'],
        ['release', me, null],
        ['edit', me, 'priority'],
        ['run now', me, null],
        ['retry by user', me, 'was dead'],
      ],
    );
    assert.deepEqual(
      events.map((e) => e.cause),
      ['enqueue', 'hold', 'release', 'edit', 'run now', 'claim', 'fail', 'retry by user', ...events.slice(8).map((e) => e.cause)],
    );
    const table = await spool(['job', jobId, '--history']);
    assert.match(table.stdout, new RegExp(`^\\S+ \\S+ +held +hold +${me} +- +was queued$`, 'm'));
  });

  test('a daemon started with --no-history keeps none, and says so', async () => {
    const spool = (args: string[]) => runCli(args, { socketPath: quiet.socketPath });
    assert.equal((await spool(['enqueue', 'hist-off', '--shell', 'true', '--wait'])).code, 0);
    const r = await spool(['stats', '--history', '--queue', 'hist-off']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr + r.stdout, /No history of queue hist-off in the last 1h: nothing happened then, or the daemon runs with --no-history\./);
  });
});
