/**
 * `spool daemon` as a user runs it: in the foreground (the daemon program runs as a child of the
 * `spool` process, which passes signals on) until SIGTERM, and in the background with --detach,
 * then stopped with `daemon stop`.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { DaemonStatus } from '../../shared/protocol';
import { processAlive, waitFor } from '../helpers/daemon';
import { parseJson, runCli, startCli, stopCli } from './cli-run';

/**
 * A temporary folder for one test, removed after it. With `socket`, a detached daemon that the
 * test left on that socket in the folder (it failed halfway) is stopped first: after-hooks run
 * in the order they are added, and once the folder is gone its socket cannot be reached.
 */
function tempDir(t: { after: (fn: () => void | Promise<void>) => void }, socket?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-cli-daemon-'));
  t.after(async () => {
    if (socket !== undefined) await runCli(['daemon', 'stop'], { socketPath: path.join(dir, socket) });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** The parent of a process, from /proc (Linux). */
function parentPid(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may contain spaces.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

test('spool daemon runs the daemon in the foreground until SIGTERM, then exits 0', async (t) => {
  const dir = tempDir(t);
  const socketPath = path.join(dir, 's.sock');
  // A log an earlier detached daemon left beside the database is not this one's log.
  fs.writeFileSync(path.join(dir, 'db.sqlite.log'), 'an earlier daemon\n');
  const daemon = startCli(['daemon', '--db', path.join(dir, 'db.sqlite')], { socketPath });
  t.after(() => stopCli(daemon));
  const status = await waitFor('the daemon to answer', async () => {
    const r = await runCli(['daemon', 'status', '--json'], { socketPath });
    return r.code === 0 ? parseJson<DaemonStatus>(r.stdout) : undefined;
  }, 30_000);
  assert.equal(parentPid(status.pid), daemon.process.pid, 'the daemon program is a child of the spool process');
  assert.equal(status.dbPath, path.join(dir, 'db.sqlite'));
  assert.equal(status.logPath, null, 'it logs to its standard error');
  const job = await runCli(['enqueue', 'fg', '--shell', 'echo in the foreground', '--wait'], { socketPath });
  assert.equal(job.code, 0, job.stderr);
  assert.equal(job.stdout, 'in the foreground\n');
  daemon.process.kill('SIGTERM');
  const r = await daemon.exited;
  assert.equal(r.code, 0, r.stderr);
  // The log goes to stderr, as plain lines.
  assert.match(r.stderr, /Shutting down/);
  assert.match(r.stderr, /Spool daemon stopped/);
  assert.doesNotMatch(r.stderr, /^\{/m);
  const after = await runCli(['daemon', 'status'], { socketPath });
  assert.equal(after.code, 1);
});

test('spool daemon in the foreground reports a daemon that cannot start as its own error', async (t) => {
  const dir = tempDir(t, 's.sock');
  const socketPath = path.join(dir, 's.sock');
  const first = await runCli(['daemon', '--detach', '--db', path.join(dir, 'db.sqlite')], { socketPath });
  assert.equal(first.code, 0, first.stderr);
  const pid = Number(/pid (\d+)/.exec(first.stdout)?.[1]);
  const second = await runCli(['daemon', '--db', path.join(dir, 'other.sqlite')], { socketPath });
  assert.equal(second.code, 1, second.stderr);
  assert.equal(second.stderr, `spool: Another Spool daemon (pid ${pid}) is already listening on ${socketPath}. Stop it with \`spool daemon stop\`, or start this one with another --socket.\n`);
  assert.equal(second.stdout, '');
});

test('a foreground daemon whose spool process is killed outright stops gracefully instead of running on unseen', async (t) => {
  const dir = tempDir(t);
  const socketPath = path.join(dir, 's.sock');
  const cli = startCli(['daemon', '--db', path.join(dir, 'db.sqlite')], { socketPath });
  t.after(() => stopCli(cli));
  const status = await waitFor('the daemon to answer', async () => {
    const r = await runCli(['daemon', 'status', '--json'], { socketPath });
    return r.code === 0 ? parseJson<DaemonStatus>(r.stdout) : undefined;
  }, 30_000);
  t.after(() => {
    if (processAlive(status.pid)) process.kill(status.pid, 'SIGKILL');
  });
  // SIGKILL cannot be passed on: the daemon notices its parent is gone.
  cli.process.kill('SIGKILL');
  await waitFor('the daemon to exit', () => !processAlive(status.pid), 30_000);
  // It shut down as for a stop: its socket file is removed.
  assert.equal(fs.existsSync(socketPath), false, 'the daemon removed its socket');
  assert.equal((await runCli(['daemon', 'status'], { socketPath })).code, 1);
});

test('spool daemon --log-format json logs one JSON object per line to stderr', async (t) => {
  const dir = tempDir(t);
  const socketPath = path.join(dir, 's.sock');
  const daemon = startCli(['daemon', '--db', path.join(dir, 'db.sqlite'), '--log-format', 'json'], { socketPath });
  t.after(() => stopCli(daemon));
  await waitFor('the daemon to answer', async () => (await runCli(['daemon', 'status'], { socketPath })).code === 0, 30_000);
  daemon.process.kill('SIGTERM');
  const r = await daemon.exited;
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.ok(lines.length >= 2, r.stderr);
  const entries = lines.map((line) => parseJson<{ at: unknown; level: unknown; message: unknown }>(line));
  for (const entry of entries) {
    assert.equal(typeof entry.at, 'string');
    assert.equal(typeof entry.level, 'string');
    assert.equal(typeof entry.message, 'string');
  }
  assert.ok(entries.some((e) => e.message === 'Spool daemon stopped'), r.stderr);
});

test('spool daemon --detach starts it in the background and prints where things are; daemon stop stops it', async (t) => {
  const dir = tempDir(t, 's.sock');
  const socketPath = path.join(dir, 's.sock');
  const db = path.join(dir, 'data', 'db.sqlite');
  const started = await runCli(['daemon', '--detach', '--db', db], { socketPath });
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /^Started the Spool daemon \(pid (\d+)\)\.\n {2}socket: {3}(.+)\n {2}database: (.+)\n {2}log: {6}(.+)\n$/);
  assert.ok(started.stdout.includes(socketPath));
  assert.ok(started.stdout.includes(path.join(dir, 'data', 'db.sqlite.log')));
  const again = await runCli(['daemon', '--detach', '--db', db], { socketPath });
  assert.match(again.stdout, /^A Spool daemon is already running \(pid \d+\)\./);
  // Asked with another database, it says which one the running daemon uses, and its log.
  const other = await runCli(['daemon', '--detach', '--db', path.join(dir, 'other.sqlite')], { socketPath });
  assert.equal(other.code, 0, other.stderr);
  assert.ok(other.stdout.endsWith(`\n  database: ${db}\n  log:      ${path.join(dir, 'data', 'db.sqlite.log')}\n`), other.stdout);
  assert.equal(other.stderr, 'It keeps its own settings: --db applies only to a daemon this command starts. Stop it first (spool daemon stop) to start one with it.\n');
  assert.equal(fs.existsSync(path.join(dir, 'other.sqlite')), false);

  const status = await runCli(['daemon', 'status'], { socketPath });
  assert.equal(status.code, 0);
  assert.match(status.stdout, /^daemon: +running, pid \d+, up /m);
  assert.ok(status.stdout.includes(`\nlog:        ${path.join(dir, 'data', 'db.sqlite.log')}\n`), status.stdout);

  const stopped = await runCli(['daemon', 'stop'], { socketPath });
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, /^Stopped the Spool daemon \(pid \d+\)\.\n$/);
  const none = await runCli(['daemon', 'stop'], { socketPath });
  assert.equal(none.code, 0);
  assert.equal(none.stdout, `No Spool daemon is running at ${socketPath}.\n`);
  const bad = await runCli(['daemon', 'restartish'], { socketPath });
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'spool: Unknown daemon action "restartish": use start, stop, status or install-service.\n');
});

test('spool daemon --kill-after sets how long a stopped shell job gets between SIGTERM and SIGKILL', async (t) => {
  const dir = tempDir(t, 's.sock');
  const socketPath = path.join(dir, 's.sock');
  const bad = await runCli(['daemon', '--detach', '--kill-after', 'soon'], { socketPath });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Invalid duration "soon" for --kill-after/);
  // A timer cannot wait longer than ~24.8 days: a value past the hour allowed is refused, not cut short.
  const tooLong = await runCli(['daemon', '--detach', '--kill-after', '30d'], { socketPath });
  assert.equal(tooLong.code, 1);
  assert.equal(tooLong.stderr, 'spool: --kill-after 30d is too long: at most 1h.\n');
  const started = await runCli(['daemon', '--detach', '--db', path.join(dir, 'db.sqlite'), '--kill-after', '1s', '--grace', '1500ms'], { socketPath });
  assert.equal(started.code, 0, started.stderr);
  // A daemon already running keeps its settings, and says so rather than dropping them silently.
  const again = await runCli(['daemon', '--detach', '--kill-after', '30s', '--grace', '1m'], { socketPath });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^A Spool daemon is already running/);
  assert.equal(again.stderr, 'It keeps its own settings: --grace, --kill-after apply only to a daemon this command starts. Stop it first (spool daemon stop) to start one with them.\n');

  const rpc = async <T>(method: string, params: unknown): Promise<T> => {
    const r = await runCli(['rpc', method, JSON.stringify(params)], { socketPath });
    assert.equal(r.code, 0, r.stderr);
    return parseJson<T>(r.stdout);
  };
  const pidFile = path.join(dir, 'shell.pid');
  const termFile = path.join(dir, 'shell.term');
  // A shell that survives SIGTERM (noting when it came, in ms): only SIGKILL, after the grace
  // period, ends it.
  const { job } = await rpc<{ job: { id: string } }>('jobs.enqueue', {
    queue: 'kg',
    kind: 'shell',
    timeoutMs: 120_000,
    payload: { command: `trap 'date +%s%3N > ${termFile}' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done` },
  });
  await waitFor('the shell to start', () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 30_000);
  const shellPid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  await rpc('jobs.cancel', { id: job.id });
  // From the SIGTERM the shell noted to its death, on the machine's one clock: the daemon's
  // timing alone, without the CLI processes the cancel and the polls go through (seconds on a
  // loaded machine).
  // The whole line only: a read between the redirect's create and date's write, or within the
  // write, sees an empty or partial number.
  const termAt = await waitFor(
    'the shell to note the SIGTERM',
    () => {
      const noted = fs.existsSync(termFile) ? fs.readFileSync(termFile, 'utf8') : '';
      return /^\d{13}\n$/.test(noted) && Number(noted.trim());
    },
    30_000,
  );
  await waitFor('the shell to die', () => !processAlive(shellPid), 30_000);
  const took = Date.now() - termAt;
  // Not before the 1 s asked for, and well before the 5 s default.
  // (The shell notes the SIGTERM once its sleep has ended: a little late, under load more.)
  assert.ok(took >= 700 && took < 4000, `killed ${took} ms after the SIGTERM`);
  await waitFor('the job to end cancelled', async () => (await rpc<{ job: { state: string } }>('jobs.get', { id: job.id })).job.state === 'cancelled', 30_000);

  // A stop waits for running jobs (the grace period, then the kill grace): it says why it waits.
  const stubborn = path.join(dir, 'stubborn.pid');
  await rpc('jobs.enqueue', { queue: 'kg', kind: 'shell', payload: { command: `trap '' TERM; echo $$ > ${stubborn}; while :; do sleep 0.1; done` } });
  await waitFor('the second shell to start', () => fs.existsSync(stubborn) && fs.readFileSync(stubborn, 'utf8').trim() !== '', 30_000);
  const stopped = await runCli(['daemon', 'stop'], { socketPath });
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, /^Stopped the Spool daemon/);
  assert.match(stopped.stderr, /^Waiting for the daemon to stop; running jobs get its grace period/);
});
