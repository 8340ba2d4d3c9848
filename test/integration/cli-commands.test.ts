/**
 * Every `spool` command as a real process against a real daemon: human output, `--json`
 * output and exit codes, including the errors a user meets (no daemon, unknown job, invalid
 * cron, invalid JSON).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fireTime } from '../../shared/domain/present';
import type { BulkResult, DaemonStatus, EnqueueResult, JobWithRuns, ListJobsResult, QueueResult, QueuesListResult, ScheduleResult, SchedulesListResult, Stats, WorkersListResult } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { cliEnv, parseJson, ROOT, runCli, SPOOL_BIN, UUID } from './cli-run';

let daemon: TestDaemon;
const spool = (args: string[], input?: string) => runCli(args, { socketPath: daemon.socketPath, ...(input !== undefined ? { input } : {}) });

before(async () => {
  daemon = await startDaemon();
});
after(async () => {
  await daemon.dispose();
});

/** Enqueue a shell job and wait until it has finished, through the CLI. */
async function finishedShellJob(queue: string, command: string, extra: string[] = []): Promise<string> {
  const r = await spool(['enqueue', queue, '--shell', command, '--wait', ...extra]);
  const id = /Enqueued (\S+)/.exec(r.stderr)?.[1];
  assert.ok(id, `no job id in: ${r.stderr}`);
  return id;
}

describe('without a daemon', () => {
  test('a command says where it looked and how to start one, with exit status 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-nodaemon-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const socketPath = path.join(dir, 'none.sock');
    const r = await runCli(['jobs'], { socketPath });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^spool: No Spool daemon at ${socketPath.replace(/[.]/g, '\\.')} \\(ENOENT\\)\\. Start one with \`spool daemon --detach\`\\.\\n$`));
    const status = await runCli(['daemon', 'status'], { socketPath });
    assert.equal(status.code, 1);
    assert.match(status.stderr, /No Spool daemon at/);
  });
});

describe('daemon status', () => {
  test('prints the pid, socket and database, or the status as JSON', async () => {
    const human = await spool(['daemon', 'status']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`daemon: +running, pid ${daemon.pid}`));
    assert.ok(human.stdout.includes(daemon.socketPath));
    assert.ok(human.stdout.includes(daemon.dbPath));
    // This daemon's standard error is a pipe to the test, not its log file.
    assert.match(human.stdout, /^log: +its standard error \(it was not started with --detach\)$/m);
    const json = parseJson<DaemonStatus>((await spool(['daemon', 'status', '--json'])).stdout);
    assert.equal(json.pid, daemon.pid);
    assert.equal(json.protocolVersion, 1);
    assert.equal(json.logPath, null);
  });
});

describe('enqueue', () => {
  test('prints the new job id; --json prints {job, created}', async () => {
    const r = await spool(['enqueue', 'cli-enq', '--kind', 'thing', '--payload', '{"n":1}', '--priority', '5', '--tag', 'a', '--tag', 'b']);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, UUID);
    const got = parseJson<JobWithRuns>((await spool(['job', id, '--json'])).stdout);
    assert.deepEqual(got.job.payload, { n: 1 });
    assert.equal(got.job.priority, 5);
    assert.deepEqual(got.job.tags, ['a', 'b']);
    assert.equal(got.job.context?.origin, 'cli');

    const json = parseJson<EnqueueResult>((await spool(['enqueue', 'cli-enq', '--kind', 'thing', '--json'])).stdout);
    assert.equal(json.created, true);
    assert.equal(json.job.queue, 'cli-enq');
  });

  test('delay, attempts, backoff and timeout reach the job', async () => {
    const before = Date.now();
    const json = parseJson<EnqueueResult>(
      (await spool(['enqueue', 'cli-enq', '--kind', 'later', '--delay', '1h', '--attempts', '7', '--backoff', 'linear:2s:1m:0.1', '--timeout', '90s', '--json'])).stdout,
    );
    assert.ok(json.job.runAt >= before + 3_600_000 - 1000);
    assert.equal(json.job.maxAttempts, 7);
    assert.deepEqual(json.job.backoff, { strategy: 'linear', baseMs: 2000, capMs: 60_000, jitter: 0.1 });
    assert.equal(json.job.timeoutMs, 90_000);
    // A whole second about a month ahead: within the 10 years a start time may lie ahead, from any clock.
    const later = new Date(Math.ceil((before + 30 * 86_400_000) / 1000) * 1000).toISOString();
    const at = parseJson<EnqueueResult>((await spool(['enqueue', 'cli-enq', '--kind', 'later', '--at', later, '--json'])).stdout);
    assert.equal(at.job.runAt, Date.parse(later));
  });

  test('an enqueue that makes a new queue whose name is close to an existing one says so', async () => {
    assert.equal((await spool(['enqueue', 'cli-builds', '--kind', 'k', '--delay', '1h'])).code, 0);
    const typo = await spool(['enqueue', 'cli-bulids', '--kind', 'k', '--delay', '1h']);
    assert.equal(typo.code, 0, typo.stderr);
    assert.equal(typo.stderr, 'This made a new queue, "cli-bulids"; did you mean "cli-builds"?\n');
    // The job is enqueued all the same (queues come into being with their first job).
    assert.match(typo.stdout, /^[0-9a-f-]{36}\n$/);
    const again = await spool(['enqueue', 'cli-bulids', '--kind', 'k', '--delay', '1h']);
    assert.equal(again.stderr, '', 'once the queue exists, nothing more is said');
  });

  test('the same idempotency key returns the first job and says nothing new was enqueued', async () => {
    const first = await spool(['enqueue', 'cli-enq', '--kind', 'once', '--key', 'k-1']);
    const second = await spool(['enqueue', 'cli-enq', '--kind', 'once', '--key', 'k-1']);
    assert.equal(second.code, 0);
    assert.equal(second.stdout, first.stdout);
    assert.match(second.stderr, /exists already/);
  });

  test('a key that belongs to a job of another queue names that job and its queue, and makes nothing', async () => {
    const first = (await spool(['enqueue', 'cli-key-home', '--kind', 'once', '--key', 'k-elsewhere', '--delay', '1h'])).stdout.trim();
    const other = await spool(['enqueue', 'cli-key-homf', '--kind', 'once', '--key', 'k-elsewhere']);
    assert.equal(other.code, 0, other.stderr);
    assert.equal(other.stdout, `${first}\n`);
    // Only the note: no "This made a new queue" for a queue that received no job.
    assert.equal(other.stderr, `A job with key k-elsewhere exists already: ${first} on queue cli-key-home (queued); nothing new was enqueued.\n`);
  });

  test('the job records where it was enqueued from: the folder, and the git branch and commit', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-git-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const sha = 'a'.repeat(40);
    fs.mkdirSync(path.join(dir, '.git'));
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/feature/x\n');
    fs.writeFileSync(path.join(dir, '.git', 'packed-refs'), `# pack-refs with: peeled\n${sha} refs/heads/feature/x\n`);
    const r = await runCli(['enqueue', 'cli-enq', '--kind', 'ctx', '--json'], { socketPath: daemon.socketPath, cwd: path.join(dir, 'sub') });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(parseJson<EnqueueResult>(r.stdout).job.context, { origin: 'cli', workspace: path.join(dir, 'sub'), branch: 'feature/x', commit: sha });
  });

  test('the payload can come from a file or stdin', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-payload-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'p.json'), '{"from":"file"}');
    const fromFile = await spool(['enqueue', 'cli-enq', '--kind', 'f', '--payload', `@${path.join(dir, 'p.json')}`, '--json']);
    assert.deepEqual(parseJson<EnqueueResult>(fromFile.stdout).job.payload, { from: 'file' });
    const fromStdin = await spool(['enqueue', 'cli-enq', '--kind', 'f', '--payload', '-', '--json'], '{"from":"stdin"}');
    assert.deepEqual(parseJson<EnqueueResult>(fromStdin.stdout).job.payload, { from: 'stdin' });
  });

  test('bad input is refused with one line saying what to fix, and nothing is enqueued', async () => {
    const cases: [string[], RegExp][] = [
      [['--kind', 'x', '--payload', '{bad'], /^spool: Invalid JSON in --payload: .*\n$/],
      [['--kind', 'x', '--delay', '10 minutes'], /^spool: Invalid duration "10 minutes" for --delay: use a number with a unit/],
      [['--kind', 'x', '--delay', '-5s'], /^spool: Invalid duration "-5s" for --delay: it cannot be negative\.\n$/],
      [['--kind', 'x', '--backoff', 'sometimes:1s'], /^spool: Invalid backoff "sometimes:1s"/],
      [['--kind', 'x', '--priority', 'high'], /^spool: --priority must be an integer from -1000 to 1000 \(got "high"\)\n$/],
      [['--kind', 'x', '--at', 'tomorrowish'], /^spool: Invalid time "tomorrowish" for --at/],
      [[], /^spool: Say what the job does: --shell/],
      [['--shell', 'true', '--kind', 'x'], /^spool: Use only one of --shell, --kind\.\n$/],
    ];
    const before = parseJson<ListJobsResult>((await spool(['jobs', '--queue', 'cli-bad', '--json'])).stdout).jobs.length;
    for (const [args, message] of cases) {
      const r = await spool(['enqueue', 'cli-bad', ...args]);
      assert.equal(r.code, 1, `exit status for ${args.join(' ')}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
    const afterCount = parseJson<ListJobsResult>((await spool(['jobs', '--queue', 'cli-bad', '--json'])).stdout).jobs.length;
    assert.equal(afterCount, before);
  });

  test('--at without a zone is read in the local zone (TZ) and the confirmation names that zone; a past --at is refused', async () => {
    const env = { TZ: 'Europe/Paris' };
    const paris = (at: number): string => {
      const p = Object.fromEntries(
        new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
          .formatToParts(at)
          .map((x) => [x.type, x.value]),
      );
      return `${p['year']}-${p['month']}-${p['day']} ${p['hour']}:${p['minute']}`;
    };
    // Two days ahead, on a whole minute, moved out of the small hours (where a change of clocks
    // would make a wall-clock time ambiguous).
    let target = Math.floor((Date.now() + 2 * 86_400_000) / 60_000) * 60_000;
    if (Number(paris(target).slice(11, 13)) < 4) target += 6 * 3_600_000;
    const wall = paris(target);
    const r = await runCli(['enqueue', 'cli-at', '--kind', 'later', '--at', wall.replace(' ', 'T'), '--json'], { socketPath: daemon.socketPath, env });
    assert.equal(r.code, 0, r.stderr);
    const job = parseJson<EnqueueResult>(r.stdout).job;
    assert.equal(job.runAt, target);
    assert.equal(r.stderr, `Job ${job.id} runs at ${wall} Europe/Paris (local).\n`);

    const past = paris(target - 4 * 86_400_000);
    const refused = await runCli(['enqueue', 'cli-at', '--kind', 'later', '--at', past.replace(' ', 'T')], { socketPath: daemon.socketPath, env });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, new RegExp(`^spool: --at ${past.replace(' ', 'T')} is in the past: it reads as ${past} Europe/Paris \\(local\\), \\S+ ago\\. .*A time without a zone is local time; add Z for UTC`));
    assert.equal(parseJson<ListJobsResult>((await spool(['jobs', '--queue', 'cli-at', '--json'])).stdout).jobs.length, 1, 'nothing enqueued for the past time');
  });

  test('an invalid queue name is refused with the daemon\'s reason', async () => {
    const r = await spool(['enqueue', 'bad queue!', '--kind', 'x']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^spool: .*queue/);
  });
});

describe('jobs, job and logs', () => {
  test('jobs prints an aligned table with relative times; --json prints {jobs, nextCursor}', async () => {
    const id = await finishedShellJob('cli-list', 'echo listed');
    const r = await spool(['jobs', '--queue', 'cli-list']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^ID +QUEUE +KIND +STATE +TRIES +CREATED +NOTE$/);
    const row = lines.find((l) => l.startsWith(id));
    assert.ok(row, r.stdout);
    assert.match(row, /cli-list +shell +completed +1\/3 +(just now|\d+(\.\d)?s ago)/);
    // Columns line up: every row's STATE starts where the header's does.
    const stateAt = (lines[0] ?? '').indexOf('STATE');
    for (const l of lines.slice(1)) assert.match(l.slice(stateAt), /^(completed|queued|running|retrying|dead|cancelled)/);

    const json = parseJson<ListJobsResult>((await spool(['jobs', '--queue', 'cli-list', '--json'])).stdout);
    assert.ok(json.jobs.some((j) => j.id === id));
    assert.equal(json.nextCursor, null);
  });

  test('jobs filters by state and pages with --limit and --cursor', async () => {
    await finishedShellJob('cli-page', 'true');
    await finishedShellJob('cli-page', 'true');
    await finishedShellJob('cli-page', 'exit 4', ['--attempts', '1']);
    const dead = parseJson<ListJobsResult>((await spool(['jobs', '-q', 'cli-page', '--state', 'dead', '--json'])).stdout);
    assert.equal(dead.jobs.length, 1);
    assert.equal(dead.jobs[0]?.state, 'dead');
    const page1 = await spool(['jobs', '-q', 'cli-page', '--limit', '2']);
    const cursor = /--cursor (\S+)/.exec(page1.stderr)?.[1];
    assert.ok(cursor, `no cursor hint in: ${page1.stderr}`);
    const page2 = parseJson<ListJobsResult>((await spool(['jobs', '-q', 'cli-page', '--limit', '2', '--cursor', cursor, '--json'])).stdout);
    assert.equal(page2.jobs.length, 1);
    const bad = await spool(['jobs', '--state', 'finished']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'spool: Unknown job state "finished": use one of blocked, queued, running, retrying, held, completed, dead, cancelled.\n');
    const none = await spool(['jobs', '--queue', 'cli-page', '--state', 'cancelled']);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, '');
    assert.equal(none.stderr, 'No jobs match.\n');
    // Queues come into being with their first job, so a mistyped name is not an error; it is
    // pointed out, with the closest queue that exists.
    const typo = await spool(['jobs', '--queue', 'cli-pgae']);
    assert.equal(typo.code, 0);
    assert.equal(typo.stderr, 'There is no queue named "cli-pgae" yet; did you mean "cli-page"?\n');
    const unknown = await spool(['jobs', '--queue', 'cli-nothing-here']);
    assert.match(unknown.stderr, /^There is no queue named "cli-nothing-here" yet \(queues: .*cli-page.*\)\.\n$/);
  });

  test('job shows the record and its runs; an unknown id exits 1 with the daemon\'s message', async () => {
    const id = await finishedShellJob('cli-job', 'echo out; exit 5', ['--attempts', '1']);
    const r = await spool(['job', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^id: +${id}$`, 'm'));
    assert.match(r.stdout, /^state: +dead$/m);
    assert.match(r.stdout, /^attempts: +1\/1$/m);
    // As --backoff takes it, and as `spool queue` shows a queue's.
    assert.match(r.stdout, /^backoff: +exponential:\d+\w*:\d+\w*:0\.\d+$/m);
    assert.match(r.stdout, /^RUN +ATTEMPT +WORKER +STARTED +TOOK +OUTCOME +EXIT +ERROR$/m);
    assert.match(r.stdout, /^ +1 +1 +builtin:\S+ +.* failed +5 /m);
    const json = parseJson<JobWithRuns>((await spool(['job', id, '--json'])).stdout);
    assert.equal(json.job.state, 'dead');
    assert.equal(json.runs.length, 1);
    assert.equal(json.runs[0]?.exitCode, 5);
    // A completed shell run shows the exit code its result holds.
    const ok = await finishedShellJob('cli-job', 'true');
    assert.match((await spool(['job', ok])).stdout, /^ +1 +1 +builtin:\S+ +.* completed +0\b/m);
    // Retried, it runs again as attempt 1: its second run says so.
    assert.equal((await spool(['retry', id])).code, 0);
    await waitFor('the retried job to die again', async () => parseJson<JobWithRuns>((await spool(['job', id, '--json'])).stdout).runs.length === 2);
    assert.match((await spool(['job', id])).stdout, /^ +2 +1 +builtin:\S+ +.* failed +5 /m);

    const unknown = await spool(['job', '01a00000-0000-7000-8000-000000000000']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /^spool: No job with id 01a00000-0000-7000-8000-000000000000\. List jobs with `spool jobs`\.\n$/);
    const malformed = await spool(['job', 'nope']);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /^spool: .*"nope"/);
  });

  test('job takes the last 8 characters of an id, as the views show them, or more; a suffix no job has exits 1 saying so', async () => {
    const id = await finishedShellJob('cli-job-short', 'echo short');
    for (const typed of [id.slice(-8), id.slice(-8).toUpperCase(), id.slice(-17)]) {
      const r = await spool(['job', typed]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^id: +${id}$`, 'm'), typed);
    }
    assert.equal(parseJson<JobWithRuns>((await spool(['job', id.slice(-8), '--json'])).stdout).job.id, id);
    // A last character changed: no job of this daemon ends so (its other jobs' ids are random).
    const other = `${id.slice(-8, -1)}${id.endsWith('0') ? '1' : '0'}`;
    const ids = parseJson<ListJobsResult>((await spool(['jobs', '--limit', '1000', '--json'])).stdout).jobs.map((j) => j.id);
    if (!ids.some((j) => j.endsWith(other))) {
      const none = await spool(['job', other]);
      assert.equal(none.code, 1);
      assert.equal(none.stderr, `spool: No job id ends in ${other}. List jobs with \`spool jobs\`.\n`);
    }
  });

  test('logs prints stdout to stdout and stderr to stderr; --json prints one line object per line', async () => {
    const id = await finishedShellJob('cli-logs', 'echo one; echo two >&2; echo three');
    const r = await spool(['logs', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'one\nthree\n');
    assert.equal(r.stderr, 'two\n');
    const lines = (await spool(['logs', id, '--json'])).stdout.trimEnd().split('\n').map((l) => parseJson<{ seq: number; stream: string; text: string }>(l));
    // stdout and stderr are two pipes, so their relative order is not defined; each one's is.
    assert.deepEqual(lines.map((l) => l.seq), [1, 2, 3]);
    assert.deepEqual(lines.filter((l) => l.stream === 'stdout').map((l) => l.text), ['one', 'three']);
    assert.deepEqual(lines.filter((l) => l.stream === 'stderr').map((l) => l.text), ['two']);
  });
});

describe('retry, cancel, delete', () => {
  test('one id: the single-job method; several or --queue/--state: the bulk form with a count', async () => {
    const dead = await finishedShellJob('cli-bulk', 'exit 1', ['--attempts', '1']);
    const retried = await spool(['retry', dead]);
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(retried.stdout, 'Retried 1 job.\n');
    await waitFor('the retried job to die again', async () => {
      const j = parseJson<JobWithRuns>((await spool(['job', dead, '--json'])).stdout);
      return j.job.state === 'dead';
    });

    const delayed = [1, 2, 3].map(() => spool(['enqueue', 'cli-bulk', '--kind', 'later', '--delay', '1h']));
    const ids = (await Promise.all(delayed)).map((r) => r.stdout.trim());
    const cancelled = await spool(['cancel', ids[0] ?? '', ids[1] ?? '', '--json']);
    assert.deepEqual(parseJson<BulkResult>(cancelled.stdout), { count: 2, errors: [], stopRequested: 0 });
    const rest = await spool(['cancel', '--queue', 'cli-bulk']);
    assert.equal(rest.stdout, 'Cancelled 1 job.\n');

    const bulkRetry = parseJson<BulkResult>((await spool(['retry', '--queue', 'cli-bulk', '--state', 'dead', '--json'])).stdout);
    assert.equal(bulkRetry.count, 1);
    await waitFor('the retried job to die again', async () => parseJson<JobWithRuns>((await spool(['job', dead, '--json'])).stdout).job.state === 'dead');

    const deleted = await spool(['delete', '--queue', 'cli-bulk', '--state', 'cancelled,dead']);
    assert.equal(deleted.stdout, 'Deleted 4 jobs.\n');
    const gone = await spool(['job', dead]);
    assert.equal(gone.code, 1);
    const short = await spool(['enqueue', 'cli-bulk', '--kind', 'k', '--timeout', '50ms']);
    assert.equal(short.code, 1);
    assert.equal(short.stderr, 'spool: --timeout must be a duration from 100ms to 7d (got "50ms")\n');
    const none = await spool(['delete', '--queue', 'cli-bulk', '--state', 'dead']);
    assert.deepEqual([none.code, none.stdout], [0, 'Deleted 0 jobs.\n'], 'a queue with nothing to delete');
    const unknown = await spool(['retry', '--queue', 'cli-no-such-queue']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^spool: No queue named "cli-no-such-queue"\./);
  });

  test('cancelling a running job says the cancel was requested, then the job ends cancelled', async () => {
    const id = (await spool(['enqueue', 'cli-cancel-running', '--shell', 'sleep 60'])).stdout.trim();
    await waitFor('the shell job to run', async () => parseJson<JobWithRuns>((await spool(['job', id, '--json'])).stdout).job.state === 'running');
    const cancel = await spool(['cancel', id]);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.equal(cancel.stdout, `Cancel requested for job ${id}: it is running and ends as cancelled once its worker stops it.\n`);
    await waitFor('the job to end cancelled', async () => parseJson<JobWithRuns>((await spool(['job', id, '--json'])).stdout).job.state === 'cancelled');
    // By queue and state, running jobs are only asked to stop, and waiting ones are cancelled: it
    // says how many of each.
    const other = (await spool(['enqueue', 'cli-cancel-running', '--shell', 'sleep 60'])).stdout.trim();
    await waitFor('the second shell job to run', async () => parseJson<JobWithRuns>((await spool(['job', other, '--json'])).stdout).job.state === 'running');
    const running = await spool(['cancel', '--queue', 'cli-cancel-running', '--state', 'running']);
    assert.equal(running.stdout, 'Asked 1 running job to stop: it ends as cancelled once its worker stops it.\n');
    await waitFor('that job to end cancelled', async () => parseJson<JobWithRuns>((await spool(['job', other, '--json'])).stdout).job.state === 'cancelled');
    const third = (await spool(['enqueue', 'cli-cancel-running', '--shell', 'sleep 60'])).stdout.trim();
    await waitFor('the third shell job to run', async () => parseJson<JobWithRuns>((await spool(['job', third, '--json'])).stdout).job.state === 'running');
    await spool(['enqueue', 'cli-cancel-running', '--shell', 'true', '--delay', '1h']);
    const both = await spool(['cancel', '--queue', 'cli-cancel-running', '--state', 'running,queued']);
    assert.equal(both.stdout, 'Cancelled 1 job; asked 1 running job to stop: it ends as cancelled once its worker stops it.\n');
    await waitFor('the third job to end cancelled', async () => parseJson<JobWithRuns>((await spool(['job', third, '--json'])).stdout).job.state === 'cancelled');
  });

  test('bulk by --tag, --search and --kind within a queue touches only the matching jobs', async () => {
    const enqueue = async (kind: string, payload: string, tags: string[]): Promise<string> =>
      (await spool(['enqueue', 'cli-filter', '--kind', kind, '--payload', payload, '--delay', '1h', ...tags.flatMap((t) => ['--tag', t])])).stdout.trim();
    const nightlyOom = await enqueue('render', '{"note":"out of memory"}', ['nightly']);
    const nightlyOk = await enqueue('render', '{"note":"fine"}', ['nightly']);
    const adhocOom = await enqueue('render', '{"note":"out of memory"}', ['adhoc']);
    const otherKind = await enqueue('encode', '{"note":"out of memory"}', ['nightly']);
    const cancelled = await spool(['cancel', '--queue', 'cli-filter', '--tag', 'nightly', '--search', 'out of memory', '--kind', 'render', '--json']);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(parseJson<BulkResult>(cancelled.stdout).count, 1);
    const state = async (id: string): Promise<string> => parseJson<JobWithRuns>((await spool(['job', id, '--json'])).stdout).job.state;
    assert.deepEqual(await Promise.all([nightlyOom, nightlyOk, adhocOom, otherKind].map(state)), ['cancelled', 'queued', 'queued', 'queued']);
    const retried = await spool(['retry', '--queue', 'cli-filter', '--state', 'cancelled', '--tag', 'nightly']);
    assert.equal(retried.stdout, 'Retried 1 job.\n');
    const deleted = await spool(['delete', '--queue', 'cli-filter', '--state', 'queued', '--search', 'fine']);
    assert.equal(deleted.stdout, 'Deleted 1 job.\n');
    assert.equal((await spool(['job', nightlyOk])).code, 1, 'the deleted job is gone');
  });

  test('filters without --queue apply across every queue (a branch no job has matches none); ids and filters together are refused', async () => {
    const r = await spool(['retry', '--state', 'dead', '--branch', 'no-job-has-this-branch']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Retried 0 jobs.\n');
    const tagged = await spool(['cancel', '--tag', 'no-job-has-this-tag', '--search', 'x']);
    assert.equal(tagged.stdout, 'Cancelled 0 jobs.\n');
    const both = await spool(['delete', '01a00000-0000-7000-8000-000000000000', '--tag', 'x']);
    assert.equal(both.stderr, 'spool: Give job ids or --queue and --tag, not both.\n');
  });

  test('errors: no ids, ids and --queue together, and a job in the wrong state', async () => {
    const none = await spool(['retry']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^spool: Say which jobs: spool retry <id\.\.\.>/);
    const both = await spool(['cancel', '01a00000-0000-7000-8000-000000000000', '--queue', 'x']);
    assert.equal(both.code, 1);
    const queued = (await spool(['enqueue', 'cli-bulk2', '--kind', 'later', '--delay', '1h'])).stdout.trim();
    const wrong = await spool(['retry', queued]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, new RegExp(`^spool: .*${queued}.*queued`));
    const unknown = await spool(['cancel', '01a00000-0000-7000-8000-000000000000']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No job with id/);
  });
});

describe('queues and queue', () => {
  test('list, show, set, pause, resume, purge and delete, human and JSON', async () => {
    await spool(['enqueue', 'cli-q', '--kind', 'later', '--delay', '1h']);
    const list = await spool(['queues']);
    assert.match(list.stdout, /^QUEUE +STATUS +QUEUED +DELAYED +RUNNING +RETRYING +DEAD +COMPLETED +CANCELLED +CONCURRENCY +RATE$/m);
    assert.match(list.stdout, /^cli-q +active +0 +1 +0 +0 +0 +0 +0 +- +-$/m);
    const json = parseJson<QueuesListResult>((await spool(['queues', '--json'])).stdout);
    assert.equal(json.queues.find((q) => q.name === 'cli-q')?.counts.queued, 1);

    const set = await spool(['queue', 'cli-q', 'set', '--concurrency', '3', '--rate', '600/m', '--attempts', '4', '--backoff', 'fixed:10s', '--timeout', '2m', '--retention', '7d', '--json']);
    const q = parseJson<QueueResult>(set.stdout).queue;
    assert.equal(q.concurrency, 3);
    assert.deepEqual(q.rateLimit, { perSecond: 10, burst: 10 });
    assert.equal(q.defaultMaxAttempts, 4);
    assert.equal(q.defaultBackoff.strategy, 'fixed');
    assert.equal(q.defaultBackoff.baseMs, 10_000);
    assert.equal(q.defaultTimeoutMs, 120_000);
    assert.equal(q.retentionMs, 7 * 86_400_000);

    const show = await spool(['queue', 'cli-q']);
    assert.match(show.stdout, /^concurrency: +3$/m);
    assert.match(show.stdout, /^retention: +7d$/m);
    // Retention 0 keeps no finished job: said in words, not as "0ms".
    const none = await spool(['queue', 'cli-q-none', 'set', '--retention', '0']);
    assert.match(none.stdout, /^retention: +none: finished jobs are deleted at the next cleanup$/m);

    const paused = await spool(['queue', 'cli-q', 'pause']);
    assert.match(paused.stdout, /^Paused cli-q/);
    assert.match((await spool(['queues'])).stdout, /^cli-q +paused/m);
    assert.equal((await spool(['queue', 'cli-q', 'resume'])).stdout, 'Resumed cli-q.\n');

    const nothing = await spool(['queue', 'cli-q', 'set']);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /Nothing to set/);
    const badAction = await spool(['queue', 'cli-q', 'explode']);
    assert.equal(badAction.code, 1);
    assert.match(badAction.stderr, /Unknown queue action "explode"/);

    // Without a terminal to ask on, purge says what it would delete and wants --yes.
    const unasked = await spool(['queue', 'cli-q', 'purge']);
    assert.equal(unasked.code, 1);
    assert.equal(unasked.stderr, 'spool: This deletes 1 job of cli-q (every state but running) and their output. There is no terminal to ask on: pass --yes to go ahead.\n');
    assert.equal(parseJson<QueueResult>((await spool(['queue', 'cli-q', '--json'])).stdout).queue.counts.queued, 1, 'nothing was purged');
    const purged = await spool(['queue', 'cli-q', 'purge', '--yes']);
    assert.equal(purged.stdout, 'Purged 1 job from cli-q.\n');
    const deleted = await spool(['queue', 'cli-q', 'delete', '--json']);
    assert.equal(deleted.code, 0, deleted.stderr);
    const missing = await spool(['queue', 'cli-q']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cli-q/);
  });
});

describe('schedules and schedule', () => {
  test('add prints the next three fire times; list, show, run, disable, enable and rm work', async () => {
    // Times are written in the local zone; where the schedule's zone shows another time, that too.
    const add = await runCli(['schedule', 'add', 'cli-every-hour', '--cron', '0 * * * *', '--tz', 'Europe/Paris', '--queue', 'cli-sched', '--shell', 'echo tick'], {
      socketPath: daemon.socketPath,
      env: { TZ: 'UTC' },
    });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^Created schedule cli-every-hour \(0 \* \* \* \*, Europe\/Paris\) on queue cli-sched\.\nNext runs:\n( {2}\d{4}-\d\d-\d\d \d\d:00:00 \+00:00 {2}\(\w{3} \d\d? \w{3} \d{4} \d\d:00 \S+, in .+\)\n){3}$/);
    // The Paris time is computed from the instant each line gives in UTC, not from today's clock,
    // and written as every fire time is (the language server's hover and the extension's too).
    const addedLines = add.stdout.split('\n').filter((line) => line.startsWith('  '));
    assert.equal(addedLines.length, 3, add.stdout);
    for (const line of addedLines) {
      const utc = line.slice(2, 21);
      const at = Date.parse(`${utc.replace(' ', 'T')}Z`);
      const there = fireTime(at, 'Europe/Paris');
      assert.ok(line.startsWith(`  ${utc} +00:00  (${there}, in `), `${line} should show ${utc} UTC as ${there}`);
    }
    const inParis = await runCli(['schedule', 'show', 'cli-every-hour'], { socketPath: daemon.socketPath, env: { TZ: 'Europe/Paris' } });
    assert.match(inParis.stdout, /^next runs: +\d{4}-\d\d-\d\d \d\d:00:00 \+0[12]:00 \(in [^,]+\)$/m);

    const list = await spool(['schedules']);
    assert.match(list.stdout, /^SCHEDULE +CRON +TZ +QUEUE +ENABLED +NEXT +LAST +JOB$/m);
    assert.match(list.stdout, /^cli-every-hour +0 \* \* \* \* +Europe\/Paris +cli-sched +yes +in .+ +- +shell: echo tick$/m);
    const json = parseJson<SchedulesListResult>((await spool(['schedules', '--json'])).stdout);
    assert.equal(json.schedules.find((s) => s.name === 'cli-every-hour')?.timezone, 'Europe/Paris');

    const shown = parseJson<ScheduleResult>((await spool(['schedule', 'show', 'cli-every-hour', '--json'])).stdout);
    assert.equal(shown.nextRuns.length, 3);

    const run = await spool(['schedule', 'run', 'cli-every-hour']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout.trim(), UUID);
    // A run by hand is no tick: the last run stays "never", and the job it made is shown.
    const afterRun = (await spool(['schedule', 'show', 'cli-every-hour'])).stdout;
    assert.match(afterRun, /^last run: +never$/m);
    assert.match(afterRun, /^cron: +0 \* \* \* \* \(Europe\/Paris\): every hour$/m, 'the expression in words');
    assert.match(afterRun, new RegExp(`^last job: +${run.stdout.trim()}$`, 'm'));

    const disabled = await spool(['schedule', 'disable', 'cli-every-hour']);
    assert.match(disabled.stdout, /^enabled: +no$/m);
    assert.match(disabled.stdout, /^next runs: +none while disabled$/m);
    // Enabled, the three fire times stand one under the other, in the value column.
    const shownText = (await spool(['schedule', 'enable', 'cli-every-hour'])).stdout;
    const column = (/^next runs: +/m.exec(shownText)?.[0] ?? '').length;
    const continued = shownText.split('\n').filter((line) => /^ +\d{4}-/.test(line));
    assert.equal(continued.length, 2, shownText);
    for (const line of continued) assert.equal(line.length - line.trimStart().length, column, shownText);
    const enabled = await spool(['schedule', 'enable', 'cli-every-hour', '--json']);
    assert.equal(parseJson<ScheduleResult>(enabled.stdout).schedule.enabled, true);
    assert.equal((await spool(['schedule', 'rm', 'cli-every-hour'])).stdout, 'Deleted schedule cli-every-hour.\n');
    const gone = await spool(['schedule', 'show', 'cli-every-hour']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /cli-every-hour/);
  });

  test('schedule set changes only what it names, keeps the job unless a new one is given, and refuses nothing to change', async () => {
    const add = await spool(['schedule', 'add', 'cli-set', '--cron', '0 3 * * *', '--queue', 'cli-sched', '--shell', 'echo one', '--attempts', '2']);
    assert.equal(add.code, 0, add.stderr);
    const current = async (): Promise<ScheduleResult> => parseJson<ScheduleResult>((await spool(['schedule', 'show', 'cli-set', '--json'])).stdout);
    const set = await spool(['schedule', 'set', 'cli-set', '--cron', '*/15 * * * *', '--tz', 'Asia/Tokyo']);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /\*\/15 \* \* \* \*/);
    let s = (await current()).schedule;
    assert.deepEqual([s.cron, s.timezone, s.queue, s.job.kind, s.job.payload, s.job.maxAttempts], ['*/15 * * * *', 'Asia/Tokyo', 'cli-sched', 'shell', { command: 'echo one', cwd: process.cwd() }, 2]);
    // Job options alone change the job it has; a new source replaces the job.
    assert.equal((await spool(['schedule', 'set', 'cli-set', '--attempts', '5', '--priority', '3'])).code, 0);
    s = (await current()).schedule;
    assert.deepEqual([s.job.kind, s.job.payload, s.job.maxAttempts, s.job.priority], ['shell', { command: 'echo one', cwd: process.cwd() }, 5, 3]);
    assert.equal((await spool(['schedule', 'set', 'cli-set', '--kind', 'report', '--payload', '{"to":"team"}'])).code, 0);
    s = (await current()).schedule;
    assert.deepEqual([s.job.kind, s.job.payload, s.job.maxAttempts, s.cron], ['report', { to: 'team' }, undefined, '*/15 * * * *']);
    const nothing = await spool(['schedule', 'set', 'cli-set']);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /^spool: Say what to change: --cron/);
    const bad = await spool(['schedule', 'set', 'cli-set', '--cron', '61 * * * *']);
    assert.equal(bad.code, 1);
    assert.equal((await current()).schedule.cron, '*/15 * * * *', 'a refused change changes nothing');
    const unknown = await spool(['schedule', 'set', 'cli-no-such-schedule', '--cron', '* * * * *']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /cli-no-such-schedule/);
    // The refusal to add a name that exists points at set.
    const again = await spool(['schedule', 'add', 'cli-set', '--cron', '0 3 * * *', '--queue', 'cli-sched', '--shell', 'true']);
    assert.match(again.stderr, /spool schedule set cli-set/);
    await spool(['schedule', 'rm', 'cli-set']);
  });

  test('an invalid cron expression is refused with the reason, and no schedule is made', async () => {
    const r = await spool(['schedule', 'add', 'cli-bad-cron', '--cron', '61 * * * *', '--queue', 'q', '--shell', 'true']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^spool: .*cron.*\n$/i);
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
    const missing = await spool(['schedule', 'add', 'cli-no-cron', '--queue', 'q', '--shell', 'true']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--cron/);
    const list = parseJson<SchedulesListResult>((await spool(['schedules', '--json'])).stdout);
    assert.ok(!list.schedules.some((s) => s.name.startsWith('cli-bad') || s.name === 'cli-no-cron'));
  });
});

describe('counts per state', () => {
  test('queues and stats show due and delayed jobs apart, and a CANCELLED column', async () => {
    await spool(['enqueue', 'cli-counts', '--kind', 'nobody-claims']);
    await spool(['enqueue', 'cli-counts', '--kind', 'nobody-claims', '--delay', '1h']);
    await spool(['enqueue', 'cli-counts', '--kind', 'nobody-claims', '--delay', '2h']);
    const cancelled = (await spool(['enqueue', 'cli-counts', '--kind', 'nobody-claims', '--delay', '1h'])).stdout.trim();
    assert.equal((await spool(['cancel', cancelled])).code, 0);
    // QUEUED 1 (due), DELAYED 2, RUNNING, RETRYING, DEAD, COMPLETED 0, CANCELLED 1.
    const queues = await spool(['queues']);
    assert.match(queues.stdout, /^QUEUE +STATUS +QUEUED +DELAYED +RUNNING +RETRYING +DEAD +COMPLETED +CANCELLED +CONCURRENCY +RATE$/m);
    assert.match(queues.stdout, /^cli-counts +active +1 +2 +0 +0 +0 +0 +1 +- +-$/m);
    const stats = await spool(['stats']);
    assert.match(stats.stdout, /^QUEUE +QUEUED +DELAYED +RUNNING +RETRYING +DEAD +COMPLETED +CANCELLED$/m);
    assert.match(stats.stdout, /^cli-counts +1 +2 +0 +0 +0 +0 +1$/m);
    const show = await spool(['queue', 'cli-counts']);
    assert.match(show.stdout, /^jobs: +blocked 0, queued 1, .*cancelled 1; delayed 2$/m);
    // The JSON forms stay the protocol's: queued counts the delayed jobs too, and delayed is apart.
    const json = parseJson<QueuesListResult>((await spool(['queues', '--json'])).stdout).queues.find((q) => q.name === 'cli-counts');
    assert.deepEqual([json?.counts.queued, json?.delayed, json?.counts.cancelled], [3, 2, 1]);
    // In the totals line as well: the delayed jobs are not counted as queued.
    const totals = parseJson<Stats>((await spool(['stats', '--json'])).stdout);
    const delayedTotal = totals.queues.reduce((n, q) => n + q.delayed, 0);
    assert.match(stats.stdout, new RegExp(`^running \\d+ +queued ${totals.totals.queued - delayedTotal} +delayed ${delayedTotal} `, 'm'));
  });
});

describe('workers and stats', () => {
  test('workers lists the built-in executor; stats prints totals and per-queue counts', async () => {
    // A remote worker that declared a capacity (spool work --capacity 6 registers so).
    const client = await daemon.client();
    await client.call('workers.register', { workerId: 'cli-capacity', queues: ['cli-capacity'], concurrency: 3, capacity: 6 });
    const workers = await spool(['workers']);
    assert.match(workers.stdout, /^WORKER +TYPE +STATUS +HOST +QUEUES +KINDS +RUNNING +CAPACITY +SEEN$/m);
    assert.match(workers.stdout, /^builtin:\S+ +builtin +alive .* +\d+(\/\d+)? +- +\S/m);
    assert.match(workers.stdout, /^cli-capacity +remote +alive +\S+ +cli-capacity +\* +0\/3 +6 +\S/m);
    const wjson = parseJson<WorkersListResult>((await spool(['workers', '--json'])).stdout);
    assert.ok(wjson.workers.some((w) => w.type === 'builtin'));

    await finishedShellJob('cli-stats', 'true');
    const stats = await spool(['stats']);
    assert.match(stats.stdout, /^running \d+ +queued \d+ +delayed \d+ +retrying \d+ +dead \d+ +completed \d+ +cancelled \d+$/m);
    assert.match(stats.stdout, /^cli-stats +0 +0 +0 +0 +0 +1 +0$/m);
    const sjson = parseJson<Stats>((await spool(['stats', '--json'])).stdout);
    assert.equal(sjson.queues.find((q) => q.name === 'cli-stats')?.counts.completed, 1);
  });
});

describe('a due job no worker takes', () => {
  test('jobs, job and queues say no worker takes its kind, and a lapsed lease reads "was due", not "next attempt 2s ago"', async () => {
    // A worker of kind resize claims a job on 1 s lease and goes away without a word: the lease
    // lapses, the job retries after 1 s, and nothing takes it again.
    const worker = await daemon.client();
    const { job: lapsed } = await worker.call('jobs.enqueue', { queue: 'cli-images', kind: 'resize', payload: { n: 1 }, timeoutMs: 1000, maxAttempts: 3, backoff: { strategy: 'fixed', baseMs: 1000, jitter: 0 } });
    const [claimed] = (await worker.call('jobs.claim', { workerId: 'cli-resizer', queues: ['cli-images'], kinds: ['resize'] })).jobs;
    assert.equal(claimed?.id, lapsed.id);
    worker.close();
    const { job: queued } = await (await daemon.client()).call('jobs.enqueue', { queue: 'cli-images', kind: 'resize', payload: { n: 2 } });
    const client = await daemon.client();
    await waitFor('the lapsed job to be due again, a second past', async () => {
      const { job } = await client.call('jobs.get', { id: lapsed.id });
      return job.state === 'retrying' && job.runAt < Date.now() - 1500;
    });
    // (A worker gone with its connection may be listed with when it was last seen, or not at all.)
    const noWorker = /no worker takes kind resize on queue cli-images( \(the last one was seen (\d+s ago|just now)\))?$/;

    const jobs = await spool(['jobs', '--queue', 'cli-images']);
    assert.equal(jobs.code, 0, jobs.stderr);
    const lapsedRow = jobs.stdout.split('\n').find((l) => l.startsWith(lapsed.id)) ?? '';
    assert.match(lapsedRow, /next attempt was due \d+s ago · attempt 1\/3 · /);
    assert.match(lapsedRow, noWorker);
    assert.match(jobs.stdout.split('\n').find((l) => l.startsWith(queued.id)) ?? '', new RegExp(`queued \\d+s ago · attempt 0/3 · ${noWorker.source}`));

    const one = await spool(['job', lapsed.id]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^why: +Attempt 1 failed: .+ Next attempt was due \d+s ago\. Waiting: no worker takes kind resize on queue cli-images( \(the last one was seen .+\))?\.$/m);
    assert.match((await spool(['job', queued.id])).stdout, /^why: +Waiting: no worker takes kind resize on queue cli-images( \(the last one was seen .+\))?\.$/m);

    const queues = await spool(['queues']);
    assert.equal(queues.code, 0, queues.stderr);
    assert.match(queues.stderr, /^cli-images: due jobs wait: no worker takes kind resize on queue cli-images( \(the last one was seen .+\))?\.$/m);
    // A queue whose jobs the daemon's own executors run says nothing of the kind.
    assert.doesNotMatch(queues.stderr, /kind shell/);
  });
});

describe('rpc', () => {
  test('prints the result as JSON; an error prints the error object and exits 1', async () => {
    const ok = await spool(['rpc', 'queues.get', '{"name":"cli-stats"}']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(parseJson<QueueResult>(ok.stdout).queue.name, 'cli-stats');
    const noParams = await spool(['rpc', 'daemon.status']);
    assert.equal(parseJson<DaemonStatus>(noParams.stdout).pid, daemon.pid);
    const fromStdin = await spool(['rpc', 'queues.get', '-'], '{"name":"cli-stats"}');
    assert.equal(parseJson<QueueResult>(fromStdin.stdout).queue.name, 'cli-stats');

    const notFound = await spool(['rpc', 'jobs.get', '{"id":"01a00000-0000-7000-8000-000000000000"}']);
    assert.equal(notFound.code, 1);
    const error = parseJson<{ error: { code: number; message: string; data: { id?: string } } }>(notFound.stdout).error;
    assert.equal(error.code, 1001);
    assert.equal(error.data.id, '01a00000-0000-7000-8000-000000000000');
    assert.match(notFound.stderr, /No job with id/);

    const unknownMethod = await spool(['rpc', 'jobs.explode']);
    assert.equal(unknownMethod.code, 1);
    assert.equal(parseJson<{ error: { code: number } }>(unknownMethod.stdout).error.code, -32601);
    assert.match(unknownMethod.stderr, /\nspool rpc --help lists every method\.\n$/);
    const typo = await spool(['rpc', 'jobs.lsit']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /\nDid you mean jobs\.list\? \(spool rpc --help lists every method\)\n$/);

    const slow = await spool(['rpc', 'jobs.claim', '{"workerId":"cli-rpc","queues":["cli-never"],"waitMs":20000}', '--timeout', '300ms']);
    assert.equal(slow.code, 1);
    assert.match(slow.stderr, /^spool: The daemon did not answer jobs\.claim within 300 ms\.\n$/);

    const badJson = await spool(['rpc', 'jobs.get', '{id:']);
    assert.equal(badJson.code, 1);
    assert.match(badJson.stderr, /^spool: Invalid JSON in params/);
  });
});

describe('errors from the daemon', () => {
  test('speak in the flags and commands of the CLI, not the protocol\'s fields and methods', async () => {
    const long = (n: number): string => 'a'.repeat(n);
    assert.equal((await spool(['schedule', 'add', 'cli-err-s', '--cron', '0 3 * * *', '--queue', 'cli-err', '--kind', 'x'])).code, 0);
    const cases: [string[], string][] = [
      [['enqueue', 'cli-err', '--kind', 'x', '--tag', long(70)], '--tag must be 1 to 64 characters long (got 70)'],
      [['enqueue', 'cli-err', '--kind', 'x', '--key', long(300)], '--key must be 1 to 256 characters long (got 300)'],
      [['enqueue', 'bad queue', '--kind', 'x'], 'The queue name must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit (got "bad queue")'],
      [['enqueue', 'cli-err', '--shell', 'true', '--cwd', 'relative'], '--cwd must be an absolute path (got "relative")'],
      [['enqueue', 'cli-err', '--http', 'http://localhost/', '--method', 'FETCH'], '--method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (got "FETCH")'],
      [['jobs', '--state', 'queued,queued,queued,queued,queued,queued,queued,queued,queued'], '--state must have 0 to 8 items (got 9)'],
      [['jobs', '--search', long(300)], '--search must be 1 to 256 characters long (got 300)'],
      [['retry', '--queue', 'cli-err', '--search', long(300)], '--search must be 1 to 256 characters long (got 300)'],
      [['schedule', 'add', 'cli-err-s', '--cron', '0 3 * * *', '--queue', 'cli-err', '--kind', 'x'], 'A schedule named "cli-err-s" exists already. Change it with spool schedule set cli-err-s …, or remove it first (spool schedule rm cli-err-s).'],
      [['schedule', 'add', 'bad name', '--cron', '0 3 * * *', '--queue', 'cli-err', '--kind', 'x'], 'The schedule name must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit (got "bad name")'],
      [['schedule', 'set', 'cli-err-s', '--queue', 'bad queue'], '--queue must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit (got "bad queue")'],
      [['queue', 'bad queue', 'pause'], 'The queue name must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit (got "bad queue")'],
    ];
    for (const [args, message] of cases) {
      const r = await spool(args);
      assert.equal(r.code, 1, `exit status of spool ${args.join(' ').slice(0, 80)}`);
      assert.equal(r.stderr, `spool: ${message}\n`, `spool ${args.join(' ').slice(0, 80)}`);
    }
    // A queue with jobs: the way out is the command, not the method.
    await spool(['enqueue', 'cli-err', '--kind', 'x', '--delay', '1h']);
    const full = await spool(['queue', 'cli-err', 'delete']);
    assert.equal(full.code, 1);
    assert.match(full.stderr, /\(spool queue cli-err delete --force\) to remove them too\.\n$/);
    assert.doesNotMatch(full.stderr, /queues\.delete/);
    // spool rpc keeps the daemon's own words: there the protocol is what was typed.
    const raw = await spool(['rpc', 'jobs.list', JSON.stringify({ search: long(300) })]);
    assert.match(raw.stderr, /^spool: search must be 1 to 256 characters long/);
  });
});

describe('completion and help', () => {
  test('the bash and zsh scripts name every command, and bash and zsh complete with them', async (t) => {
    const bash = await spool(['completion', 'bash']);
    assert.equal(bash.code, 0);
    assert.match(bash.stdout, /complete -F _spool spool/);
    for (const c of ['enqueue', 'jobs', 'logs', 'schedule add', 'rpc', 'jobs.enqueue', '--state']) assert.ok(bash.stdout.includes(c), c);
    const check = spawnSync('bash', ['-n'], { input: bash.stdout });
    assert.equal(check.status, 0, check.stderr.toString());
    // Ask the completion function itself, as bash would on <Tab>.
    const complete = spawnSync('bash', ['-c', `${bash.stdout}\nCOMP_WORDS=(spool schedule a); COMP_CWORD=2; _spool; echo "\${COMPREPLY[@]}"`]);
    assert.equal(complete.stdout.toString().trim(), 'add');
    const zsh = await spool(['completion', 'zsh']);
    assert.match(zsh.stdout, /bashcompinit/);
    // In zsh itself, when installed (CI installs it): the script loads, registers spool with the
    // completion system, and the function finds the right words under zsh's bash emulation
    // (which calls it the way _bash_complete does; zsh then matches them against the prefix).
    if (spawnSync('sh', ['-c', 'command -v zsh']).status === 0) {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-zsh-'));
      try {
        const ask = (words: string[]): string =>
          `words=(${words.join(' ')}); CURRENT=${words.length}; COMP_WORDS=("\${words[@]}"); COMP_CWORD=$((CURRENT - 1)); print -r -- "\${(j: :)\${(f)$(compgen -F _spool -- ${words[words.length - 1]})}}"`;
        const script = [zsh.stdout, 'print -r -- "$_comps[spool]"', ask(['spool', 'schedule', 'a']), ask(['spool', 'jobs', '--state', 'r']), ask(['spool', 'rpc', 'jobs.en']), ask(['spool', 'enqueue', 'cli-comp-a'])].join('\n');
        // spool on the PATH, as installed, for the live names.
        const env = { PATH: `${path.join(ROOT, 'bin')}:${process.env['PATH'] ?? ''}`, HOME: home, ZDOTDIR: home, SPOOL_SOCKET: daemon.socketPath };
        await spool(['enqueue', 'cli-comp-alpha', '--kind', 'later', '--delay', '1h']);
        // Each completion asks the daemon through `spool`: a minute, for a loaded machine.
        const run = spawnSync('zsh', ['-f'], { input: script, env, timeout: 60_000 });
        assert.equal(run.status, 0, run.stderr.toString());
        assert.equal(run.stderr.toString(), '');
        const [registered, schedule, states, methods, queues] = run.stdout.toString().trim().split('\n');
        // Every queue's name (zsh, not the function, matches them against what was typed).
        assert.ok(queues?.split(' ').includes('cli-comp-alpha') && !queues.split(' ').includes('--wait'), `the words after "spool enqueue": ${queues}`);
        assert.equal(registered, '_bash_complete -F _spool');
        assert.ok(schedule?.split(' ').includes('add') && !schedule.split(' ').includes('enqueue'), `the words after "spool schedule": ${schedule}`);
        assert.equal(states, 'blocked queued running retrying held completed dead cancelled');
        assert.ok(methods?.split(' ').includes('jobs.enqueue'), `the words after "spool rpc": ${methods}`);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    } else {
      t.diagnostic('zsh is not installed: the zsh script was checked for bashcompinit only');
    }
    const bad = await spool(['completion', 'tcsh']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'spool: Unknown shell "tcsh": use bash, zsh, fish.\n');
  });

  test('bash completes queue, schedule and worker names from the daemon, and nothing, quickly, when none answers', async (t) => {
    await spool(['enqueue', 'cli-comp-alpha', '--kind', 'later', '--delay', '1h']);
    await spool(['enqueue', 'cli-comp-beta', '--kind', 'later', '--delay', '1h']);
    assert.equal((await spool(['schedule', 'add', 'cli-comp-nightly', '--cron', '0 3 * * *', '--queue', 'cli-comp-alpha', '--kind', 'x'])).code, 0);
    const script = (await spool(['completion', 'bash'])).stdout;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-comp-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'spool.bash'), script);
    // As bash calls the function on <Tab>; spool is on the PATH, as installed.
    const complete = (words: string[], socketPath = daemon.socketPath): string[] => {
      const line = `source '${path.join(dir, 'spool.bash')}'; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _spool; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const run = spawnSync('bash', ['-c', line], { env: cliEnv(socketPath, { PATH: `${path.join(ROOT, 'bin')}:${process.env['PATH'] ?? ''}` }), encoding: 'utf8', timeout: 30_000 });
      assert.equal(run.status, 0, run.stderr);
      return run.stdout.split('\n').filter((w) => w !== '');
    };
    assert.deepEqual(complete(['spool', 'enqueue', 'cli-comp-']), ['cli-comp-alpha', 'cli-comp-beta']);
    assert.deepEqual(complete(['spool', 'jobs', '--queue', 'cli-comp-b']), ['cli-comp-beta']);
    assert.deepEqual(complete(['spool', 'retry', '-q', 'cli-comp-a']), ['cli-comp-alpha']);
    assert.deepEqual(complete(['spool', 'work', 'cli-comp-a']), ['cli-comp-alpha']);
    assert.deepEqual(complete(['spool', 'queue', 'cli-comp-a']), ['cli-comp-alpha']);
    assert.deepEqual(complete(['spool', 'queue', 'cli-comp-alpha', 'p']), ['pause', 'purge']);
    assert.deepEqual(complete(['spool', 'schedule', 'rm', 'cli-comp-n']), ['cli-comp-nightly']);
    assert.deepEqual(complete(['spool', 'schedule', 'run', 'cli-comp']), ['cli-comp-nightly']);
    const workers = parseJson<WorkersListResult>((await spool(['workers', '--json'])).stdout).workers.map((w) => w.id).sort();
    assert.deepEqual(complete(['spool', 'work', 'q', '--worker-id', 'builtin']).sort(), workers.filter((id) => id.startsWith('builtin')));
    // The --socket typed on the line is the daemon asked.
    assert.deepEqual(complete(['spool', '--socket', daemon.socketPath, 'enqueue', 'cli-comp-a'], path.join(dir, 'none.sock')), ['cli-comp-alpha']);
    // No daemon: no names, no error, and options still complete.
    const none = path.join(dir, 'none.sock');
    assert.deepEqual(complete(['spool', 'enqueue', 'cli-comp-'], none), []);
    assert.deepEqual(complete(['spool', 'enqueue', 'q', '--wa'], none), ['--wait']);
  });

  test('with no spool on the PATH, the script asks the spool that wrote it for live names (./bin/spool completion bash)', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-comp-self-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    await spool(['enqueue', 'cli-comp-self', '--kind', 'later', '--delay', '1h']);
    // Written by the repository's bin/spool, run by path from another folder.
    const script = (await runCli(['completion', 'bash'], { socketPath: daemon.socketPath, cwd: dir })).stdout;
    assert.ok(script.includes(`_spool_script='${SPOOL_BIN}'`), script.slice(0, 600));
    fs.writeFileSync(path.join(dir, 'spool.bash'), script);
    const line = `source '${path.join(dir, 'spool.bash')}'; COMP_WORDS=(spool enqueue cli-comp-s); COMP_CWORD=2; _spool; printf '%s\\n' "\${COMPREPLY[@]}"`;
    // A PATH with no spool and no node on it: bash needs none for the rest of the script.
    const run = spawnSync('/bin/bash', ['--norc', '-c', line], { env: { PATH: path.join(dir, 'empty'), SPOOL_SOCKET: daemon.socketPath }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.split('\n').filter((w) => w !== ''), ['cli-comp-self']);
  });

  test('spool __complete prints names one per line, and nothing within about a second when the daemon does not answer', async (t) => {
    const names = await spool(['__complete', 'queues']);
    assert.equal(names.code, 0);
    assert.ok(names.stdout.split('\n').includes('cli-comp-alpha'), names.stdout);
    // Hidden from help: people do not type it.
    assert.doesNotMatch((await spool(['--help'])).stdout, /__complete/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-mute-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    // A listener that accepts and never answers: a hung daemon.
    const sockets: net.Socket[] = [];
    const mute = net.createServer((socket) => sockets.push(socket));
    const mutePath = path.join(dir, 'mute.sock');
    await new Promise<void>((resolve) => mute.listen(mutePath, resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      mute.close();
    });
    const started = process.hrtime.bigint();
    const hung = await runCli(['__complete', 'queues'], { socketPath: mutePath });
    const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
    assert.deepEqual([hung.code, hung.stdout, hung.stderr], [0, '', '']);
    // The command gives up after 1 s of waiting; the rest is starting node on a busy machine.
    assert.ok(tookMs < 10_000, `took ${tookMs} ms`);
    const gone = await runCli(['__complete', 'schedules'], { socketPath: path.join(dir, 'none.sock') });
    assert.deepEqual([gone.code, gone.stdout, gone.stderr], [0, '', '']);
  });

  test('the fish script declares completions for every command, option, state and live name (its text: fish is not installed here)', async (t) => {
    const fish = await spool(['completion', 'fish']);
    assert.equal(fish.code, 0, fish.stderr);
    const text = fish.stdout;
    assert.match(text, /^complete -c spool -f$/m);
    for (const c of ['daemon', 'enqueue', 'jobs', 'retry', 'queues', 'queue', 'schedule', 'workers', 'stats', 'work', 'rpc', 'completion']) {
      assert.match(text, new RegExp(`^complete -c spool -f -n '__spool_is' -a '${c}' -d '`, 'm'), c);
    }
    assert.match(text, /^complete -c spool -f -n '__spool_is schedule' -a 'add' -d 'Create a schedule/m);
    assert.match(text, /^complete -c spool -n '__spool_on enqueue' -l wait -d '/m);
    assert.match(text, /^complete -c spool -n '__spool_on jobs' -l queue -s q -r -f -a '\(__spool_names queues\)' -d '/m);
    assert.match(text, /^complete -c spool -n '__spool_on jobs' -l state -s s -r -f -a 'blocked queued running retrying held completed dead cancelled' -d '/m);
    assert.match(text, /^complete -c spool -f -n '__spool_is enqueue' -a '\(__spool_names queues\)'$/m);
    assert.match(text, /^complete -c spool -f -n '__spool_is schedule rm' -a '\(__spool_names schedules\)'$/m);
    assert.match(text, /^complete -c spool -n '__spool_on work' -l worker-id -r -f -a '\(__spool_names workers\)' -d '/m);
    assert.match(text, /__spool_run \$socket __complete \$argv\[1\] 2>\/dev\/null/);
    // The spool that wrote the script, by its path; spool on the PATH only when that is gone.
    assert.ok(text.includes(`        '${process.execPath}' '${SPOOL_BIN}' $argv\n    else\n        command spool $argv\n`), text);
    assert.doesNotMatch(text, /__complete'/, 'the hidden command is not offered');
    if (spawnSync('sh', ['-c', 'command -v fish']).status === 0) {
      const check = spawnSync('fish', ['--no-execute'], { input: text });
      assert.equal(check.status, 0, check.stderr.toString());
    } else {
      t.diagnostic('fish is not installed: the fish script was checked as text only');
    }
  });

  test('every command has --help with examples', async () => {
    const commands = ['daemon', 'enqueue', 'jobs', 'job', 'logs', 'retry', 'cancel', 'delete', 'queues', 'queue', 'schedules', 'schedule', 'schedule add', 'workers', 'stats', 'work', 'rpc', 'completion'];
    for (const c of commands) {
      const r = await spool([...c.split(' '), '--help']);
      assert.equal(r.code, 0, c);
      assert.match(r.stdout, /^Usage: spool /, c);
      assert.match(r.stdout, /Examples?:\n {2}(spool|source|echo)/, `examples in the help of ${c}`);
    }
  });

  test('usage errors exit 1 with a spool: line and a pointer to --help', async () => {
    const unknownOption = await spool(['jobs', '--bogus']);
    assert.equal(unknownOption.code, 1);
    assert.equal(unknownOption.stderr, "spool: unknown option '--bogus'\n(add --help for usage)\n");
    const unknownCommand = await spool(['jobz']);
    assert.equal(unknownCommand.code, 1);
    assert.match(unknownCommand.stderr, /^spool: unknown command 'jobz'\n\(Did you mean one of job, jobs\?\)/);
    const missingArg = await spool(['job']);
    assert.equal(missingArg.code, 1);
    assert.match(missingArg.stderr, /^spool: missing required argument 'id'/);
  });

  test('colours only on request when not a terminal, never with NO_COLOR', async () => {
    await finishedShellJob('cli-color', 'exit 1', ['--attempts', '1']);
    const plain = await spool(['jobs', '-q', 'cli-color']);
    assert.ok(!plain.stdout.includes('\x1b['), 'no escape codes in a pipe');
    const forced = await runCli(['jobs', '-q', 'cli-color'], { socketPath: daemon.socketPath, env: { FORCE_COLOR: '1' } });
    assert.ok(forced.stdout.includes('\x1b[31mdead\x1b[39m'), forced.stdout);
    const noColor = await runCli(['jobs', '-q', 'cli-color'], { socketPath: daemon.socketPath, env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    assert.ok(!noColor.stdout.includes('\x1b['));
    const flag = await runCli(['--no-color', 'jobs', '-q', 'cli-color'], { socketPath: daemon.socketPath, env: { FORCE_COLOR: '1' } });
    assert.ok(!flag.stdout.includes('\x1b['));
  });

  test('on a terminal, colours are on unless NO_COLOR is set', async (t) => {
    if (spawnSync('sh', ['-c', 'command -v script']).status !== 0) {
      t.skip('util-linux `script` is not installed, so no terminal can be given to the command');
      return;
    }
    await finishedShellJob('cli-tty', 'exit 1', ['--attempts', '1']);
    // `script` runs the command on a pseudo-terminal, as a person's shell would.
    const onTty = (env: NodeJS.ProcessEnv) =>
      spawnSync('script', ['-qec', `${process.execPath} ${SPOOL_BIN} jobs -q cli-tty`, '/dev/null'], {
        env: cliEnv(daemon.socketPath, env),
        encoding: 'utf8',
        timeout: 60_000,
      });
    const colored = onTty({});
    assert.equal(colored.status, 0, colored.stderr);
    assert.ok(colored.stdout.includes('\x1b[31mdead\x1b[39m'), colored.stdout);
    const plain = onTty({ NO_COLOR: '1' });
    assert.ok(!plain.stdout.includes('\x1b['), plain.stdout);
  });

  test('on a terminal, purge asks with the number of jobs, and deletes only on yes', async (t) => {
    if (spawnSync('sh', ['-c', 'command -v script']).status !== 0) {
      t.skip('util-linux `script` is not installed, so no terminal can be given to the command');
      return;
    }
    for (let i = 0; i < 2; i++) await spool(['enqueue', 'cli-purge-tty', '--kind', 'later', '--delay', '1h']);
    const purge = (answer: string) =>
      spawnSync('script', ['-qec', `${process.execPath} ${SPOOL_BIN} queue cli-purge-tty purge --state queued`, '/dev/null'], {
        env: cliEnv(daemon.socketPath, { NO_COLOR: '1' }),
        input: answer,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const queued = async (): Promise<number> => parseJson<QueueResult>((await spool(['queue', 'cli-purge-tty', '--json'])).stdout).queue.counts.queued;
    const no = purge('n\n');
    assert.equal(no.status, 1, no.stdout);
    assert.match(no.stdout, /This deletes 2 jobs of cli-purge-tty \(queued\) and their output\. Purge them\? \[y\/N\]/);
    assert.match(no.stdout, /Nothing was done/);
    assert.equal(await queued(), 2);
    const yes = purge('y\n');
    assert.equal(yes.status, 0, yes.stdout);
    assert.match(yes.stdout, /Purged 2 jobs from cli-purge-tty\./);
    assert.equal(await queued(), 0);
  });

  test('--socket overrides SPOOL_SOCKET', async () => {
    const r = await runCli(['--socket', daemon.socketPath, 'daemon', 'status', '--json'], { socketPath: '/nonexistent/spool.sock' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(parseJson<DaemonStatus>(r.stdout).pid, daemon.pid);
  });
});
