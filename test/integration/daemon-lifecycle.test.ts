/**
 * The daemon's life: one daemon per socket (a second one names the first one's pid), a stale
 * socket replaced, graceful shutdown with a grace period, detached start and stop, JSON logs,
 * and an idle daemon using (almost) no CPU.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SpoolClient } from '../../shared/client/client';
import { ErrorCode } from '../../shared/protocol';
import { DAEMON_SCRIPT, processAlive, RawConnection, startDaemon, waitFor } from '../helpers/daemon';
import { rejectsWith } from '../helpers/errors';

/** utime + stime of a process, in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

test('a second daemon on the same socket refuses to start and names the pid holding it', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const result = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', daemon.socketPath, '--db', path.join(daemon.dir, 'other.db')], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(result.status, 1);
  assert.match(result.stderr, new RegExp(`pid ${daemon.pid}`));
  assert.match(result.stderr, /already listening/);
  const client = await daemon.client();
  assert.equal((await client.call('daemon.status')).pid, daemon.pid, 'the first daemon is untouched');
});

test('a socket path too long for a Unix socket is refused with the limit, before anything is created', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-long-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 'deep'.repeat(30), 'spool.sock');
  const result = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', path.join(dir, 'db')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /Unix sockets allow 107/);
  assert.equal(fs.existsSync(path.join(dir, 'db')), false);
});

test('a stale socket file left by a killed daemon is replaced', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const firstPid = daemon.pid;
  await daemon.kill();
  assert.ok(fs.existsSync(daemon.socketPath), 'SIGKILL leaves the socket file behind');
  await daemon.restart();
  assert.notEqual(daemon.pid, firstPid);
  const client = await daemon.client();
  assert.equal((await client.call('daemon.status')).pid, daemon.pid);
  assert.equal(fs.statSync(daemon.socketPath).mode & 0o777, 0o600);
});

test('SIGTERM lets a short job finish within the grace period', async (t) => {
  const daemon = await startDaemon({ args: ['--grace', '20s'] });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const marker = path.join(daemon.dir, 'started');
  const { job } = await client.call('jobs.enqueue', { queue: 'grace', kind: 'shell', payload: { command: `touch ${marker}; sleep 1; echo finished` } });
  await waitFor('the job to start', () => fs.existsSync(marker));
  await daemon.stop();
  assert.equal(fs.existsSync(daemon.socketPath), false, 'the socket file is removed');
  await daemon.restart();
  const after = await daemon.client();
  const { job: done } = await after.call('jobs.get', { id: job.id });
  assert.equal(done.state, 'completed');
});

test('while shutdown waits for a running job, claims are refused and a job enqueued meanwhile does not start', async (t) => {
  const daemon = await startDaemon({ args: ['--grace', '20s'] });
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const started = path.join(daemon.dir, 'started');
  const release = path.join(daemon.dir, 'release');
  const lateRan = path.join(daemon.dir, 'late-ran');
  await client.call('jobs.enqueue', { queue: 'grace', kind: 'shell', payload: { command: `touch ${started}; i=0; while [ ! -e ${release} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done` } });
  await waitFor('the job to start', () => fs.existsSync(started));
  const exited = once(daemon.process, 'exit');
  process.kill(daemon.pid, 'SIGTERM');
  await waitFor('the daemon to begin shutting down', () => daemon.log().includes('Shutting down'));

  await client.call('workers.register', { workerId: 'late-worker', queues: ['grace'] });
  const refused = await rejectsWith(client.call('jobs.claim', { workerId: 'late-worker', queues: ['grace'] }), ErrorCode.ShuttingDown);
  assert.match(refused.message, /shutting down/);
  const { job: late } = await client.call('jobs.enqueue', { queue: 'grace', kind: 'shell', payload: { command: `touch ${lateRan}` } });
  assert.equal(late.state, 'queued');

  fs.writeFileSync(release, '');
  await exited;
  assert.equal(fs.existsSync(lateRan), false, 'the job enqueued during shutdown did not run');
  // It is kept, and runs at the next start.
  await daemon.restart();
  await waitFor('the late job to run after the restart', () => fs.existsSync(lateRan));
});

test('a daemon that upgrades an older database says so in its log; a new or current one does not', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  await (await daemon.client()).call('jobs.enqueue', { queue: 'kept', kind: 'x', delayMs: 600_000 });
  await daemon.stop();
  assert.doesNotMatch(daemon.log(), /Upgraded the database schema/, 'a new file is created, not upgraded');
  // Make the file what a Spool from before migration 5 left: the old due index, no version 5.
  const db = new Database(daemon.dbPath);
  db.exec(`DROP INDEX jobs_due; CREATE INDEX jobs_due ON jobs (queue, state, run_at) WHERE state IN ('queued', 'retrying') AND run_at > created_at;
    DELETE FROM schema_migrations WHERE version = 5;`);
  db.close();
  await daemon.restart();
  assert.match(daemon.log(), /Upgraded the database schema.*versions=\[5\]/);
  const client = await daemon.client();
  assert.equal((await client.call('queues.get', { name: 'kept' })).queue.delayed, 1, 'the job is still there, and counted');
  await daemon.stop();
  const upgrades = daemon.log().match(/Upgraded the database schema/g) ?? [];
  await daemon.restart();
  await daemon.client();
  assert.equal((daemon.log().match(/Upgraded the database schema/g) ?? []).length, upgrades.length, 'a current file is not upgraded again');
});

test('SIGTERM stops a job that outlasts the grace period; it is recovered and runs again', async (t) => {
  const daemon = await startDaemon({ args: ['--grace', '300ms'] });
  const pids = path.join(daemon.dir, 'pids');
  t.after(async () => {
    for (const pid of fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
    await daemon.dispose();
  });
  const client = await daemon.client();
  const { job } = await client.call('jobs.enqueue', { queue: 'grace', kind: 'shell', timeoutMs: 600_000, payload: { command: `echo $$ >> ${pids}; sleep 300` } });
  await waitFor('the job to start', () => fs.existsSync(pids));
  const firstPid = Number(fs.readFileSync(pids, 'utf8').trim());
  const started = Date.now();
  await daemon.stop();
  assert.ok(Date.now() - started < 15_000, 'shutdown did not wait for the 300 s job');
  await waitFor('the stopped job process to be gone', () => !processAlive(firstPid));
  await daemon.restart();
  await waitFor('the job to run again', () => fs.readFileSync(pids, 'utf8').trim().split('\n').length >= 2);
  const after = await daemon.client();
  const { job: again, runs } = await after.call('jobs.get', { id: job.id });
  assert.equal(runs.length, 2);
  assert.equal(runs[0].outcome, 'interrupted');
  assert.equal(again.lastError, 'Interrupted: the daemon stopped while the job ran');
  const { lines } = await after.call('jobs.output', { id: job.id });
  assert.deepEqual(
    lines.filter((l) => l.stream === 'log').map((l) => [l.attempt, l.text]),
    [[1, 'Attempt 1 was interrupted (the daemon stopped while the job ran); it runs again without using up an attempt.']],
  );
  await after.call('jobs.cancel', { id: job.id });
});

test('--detach starts a background daemon that `stop` shuts down; logs go to the file beside the database', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-detach-'));
  const socketPath = path.join(dir, 'd.sock');
  const dbPath = path.join(dir, 'data', 'spool.db');
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const start = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', dbPath, '--detach', '--log-format', 'json'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(start.status, 0, start.stderr);
  const pid = Number(/pid (\d+)/.exec(start.stdout)?.[1]);
  assert.ok(pid > 0, start.stdout);
  t.after(() => {
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  const client = await SpoolClient.connect({ socketPath });
  assert.equal((await client.call('daemon.status')).pid, pid);
  client.close();
  const again = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', dbPath, '--detach'], { encoding: 'utf8', timeout: 30_000 });
  assert.match(again.stdout, new RegExp(`already running \\(pid ${pid}\\)`));

  const status = spawnSync(process.execPath, [DAEMON_SCRIPT, 'status', '--socket', socketPath], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(JSON.parse(status.stdout).pid, pid);
  const stop = spawnSync(process.execPath, [DAEMON_SCRIPT, 'stop', '--socket', socketPath], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stdout, new RegExp(`Stopped the Spool daemon \\(pid ${pid}\\)`));
  assert.equal(processAlive(pid), false);
  const log = fs.readFileSync(path.join(dir, 'data', 'daemon.log'), 'utf8').trim().split('\n');
  const entries = log.map((line) => JSON.parse(line) as { level: string; message: string });
  assert.ok(entries.some((e) => e.message === 'Spool daemon ready'));
  assert.ok(entries.some((e) => e.message === 'Spool daemon stopped'));
  const none = spawnSync(process.execPath, [DAEMON_SCRIPT, 'status', '--socket', socketPath], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(none.status, 1);
  assert.match(none.stderr, /No Spool daemon is running/);
});

test('an idle daemon uses almost no CPU', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  // Some state to be idle with: a delayed job far in the future, a schedule, a subscriber.
  await client.call('jobs.enqueue', { queue: 'idle', kind: 'x', delayMs: 3_600_000 });
  await client.call('schedules.create', { name: 'hourly', cron: '0 * * * *', queue: 'idle', job: { kind: 'x' } });
  await client.call('events.subscribe', {});
  const worker = await daemon.client();
  const waiting = worker.call('jobs.claim', { workerId: 'idler', queues: ['nothing-here'], waitMs: 12_000 });
  const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  // Start-up ends a little after the daemon answers (the checkpointer thread loads its own
  // bundle): idle is the state after that, once a whole second passed without CPU time.
  let quietSince = Date.now();
  let last = cpuTicks(daemon.pid);
  await waitFor('start-up to finish (a second without CPU time)', () => {
    const now = cpuTicks(daemon.pid);
    if (now !== last) [last, quietSince] = [now, Date.now()];
    return Date.now() - quietSince >= 1000;
  }, 15_000);
  const before = cpuTicks(daemon.pid);
  const started = Date.now();
  // Six seconds: CPU time is counted in ticks of 10 ms, so a shorter window makes one stray tick
  // (another test's daemon starting on the other core) weigh as much as the whole limit.
  await waitFor('six seconds to pass', () => Date.now() - started >= 6000, 15_000);
  const used = (cpuTicks(daemon.pid) - before) / hz;
  const share = used / ((Date.now() - started) / 1000);
  // CPU time is the daemon's own, whatever else the machine runs: the issue's < 1% holds here.
  assert.ok(share < 0.01, `idle CPU ${(share * 100).toFixed(2)}%`);
  assert.deepEqual((await waiting).jobs, []);
});

test('SIGINT shuts down like SIGTERM', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-sigint-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 's.sock');
  const child = spawn(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', path.join(dir, 'db')], { stdio: 'ignore' });
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  await waitFor('the daemon to answer', async () => {
    try {
      const c = await SpoolClient.connect({ socketPath, connectTimeoutMs: 1000 });
      c.close();
      return true;
    } catch {
      // Not listening yet.
      return false;
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  assert.equal(await exited, 0);
  assert.equal(fs.existsSync(socketPath), false);
});

test('a write sent with daemon.shutdown is answered before the connection ends', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const raw = await RawConnection.open(daemon.socketPath);
  t.after(() => raw.close());
  // One write: the shutdown, then an enqueue the daemon handles (and commits) in the same turn.
  await raw.write(
    [
      { jsonrpc: '2.0', id: 1, method: 'daemon.shutdown' },
      { jsonrpc: '2.0', id: 2, method: 'jobs.enqueue', params: { queue: 'at-shutdown', kind: 'remote' } },
    ]
      .map((m) => JSON.stringify(m) + '\n')
      .join(''),
  );
  const answers = [await raw.next(), await raw.next()] as ({ id: number; result?: { job?: { id: string } } } | null)[];
  const enqueued = answers.find((a) => a?.id === 2);
  assert.ok(enqueued?.result?.job, `the enqueue is answered: ${JSON.stringify(answers)}`);
  await waitFor('the daemon to exit', () => !processAlive(daemon.pid));
  await daemon.restart();
  const client = await daemon.client();
  assert.equal((await client.call('jobs.get', { id: enqueued.result.job.id })).job.queue, 'at-shutdown', 'and it was stored');
});
