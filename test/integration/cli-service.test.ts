/**
 * `spool daemon install-service`: the systemd user unit it writes, read as systemd reads it. HOME
 * (with a space in it, for the quoting) points at a temporary folder; the unit's ExecStart is run
 * as systemd would run it, and must start a daemon that runs jobs and stops on SIGTERM. Where
 * systemd-analyze is installed, `systemd-analyze verify --user` checks the file too.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '../helpers/wait';
import { ROOT, runCli, type CliResult } from './cli-run';

/** The words of an ExecStart= line, unquoted as systemd does for what the unit writer produces. */
function execWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? '');
    words.push(raw.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return words;
}

/** The value of a unit's `Key=` line; fails when there is not exactly one. */
function unitLine(text: string, key: string): string {
  const lines = text.split('\n').filter((l) => l.startsWith(`${key}=`));
  assert.equal(lines.length, 1, `one ${key}= line in:\n${text}`);
  return (lines[0] ?? '').slice(key.length + 1);
}

describe('spool daemon install-service', () => {
  let base: string;
  let home: string;
  let socketPath: string;
  let work: string;
  const unitFile = () => path.join(home, '.config', 'systemd', 'user', 'spool.service');
  const spool = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runCli(['daemon', 'install-service', ...args], { socketPath, cwd: work, env: { HOME: home, XDG_CONFIG_HOME: '', SPOOL_DB: '', SPOOL_STORE: '', ...env } });

  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-svc-'));
    home = path.join(base, 'my home');
    work = path.join(base, 'work');
    fs.mkdirSync(home);
    fs.mkdirSync(work);
    socketPath = path.join(home, 'run', 'spool.sock');
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  test('--print prints a unit that runs this build\'s daemon with the flags given, by absolute paths, and writes nothing', async () => {
    fs.writeFileSync(path.join(work, 'metrics.token'), 'x'.repeat(40), { mode: 0o600 });
    const printed = await spool(['--print', '--db', 'data/q.db', '--metrics', '127.0.0.1:9464', '--metrics-token', 'metrics.token', '--listen', '127.0.0.1:7420', '--grace', '20s', '--store', 'postgres://spool@db.internal:5432/spool']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(fs.existsSync(path.join(home, '.config')), false, 'nothing is written');
    const words = execWords(unitLine(printed.stdout, 'ExecStart'));
    assert.deepEqual(words.slice(0, 3), [process.execPath, '--max-semi-space-size=8', path.join(ROOT, 'dist', 'daemon.js')]);
    const flags = words.slice(3);
    const value = (flag: string) => flags[flags.indexOf(flag) + 1];
    assert.equal(value('--socket'), socketPath);
    assert.equal(value('--db'), path.join(work, 'data', 'q.db'), 'a relative --db is made absolute');
    assert.equal(value('--metrics-token'), path.join(work, 'metrics.token'), 'the token file by its path');
    assert.equal(value('--metrics'), '127.0.0.1:9464');
    assert.equal(value('--listen'), '127.0.0.1:7420');
    assert.equal(value('--grace'), '20s');
    assert.equal(value('--store'), 'postgres://spool@db.internal:5432/spool', 'a URL without a password goes on ExecStart');
    // Flags not given keep the daemon's own defaults (the CPU count is the machine's, not this one's).
    assert.ok(!flags.includes('--max-executors') && !flags.includes('--kill-after'), flags.join(' '));
    assert.doesNotMatch(printed.stdout, /x{40}/, 'the token itself is not in the unit');
    assert.equal(unitLine(printed.stdout, 'KillMode'), 'mixed');
    // --grace 20s + the default --kill-after 5s + 30s for closing the store.
    assert.equal(unitLine(printed.stdout, 'TimeoutStopSec'), '55s');
    assert.equal(unitLine(printed.stdout, 'WantedBy'), 'default.target');
  });

  test('it writes ~/.config/systemd/user/spool.service (0644), says how to enable it, and systemd accepts the file', async () => {
    const written = await spool([]);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(written.stdout.split('\n')[0], `Wrote ${unitFile()}, a service for the daemon on ${socketPath}.`);
    assert.match(written.stdout, /^ {2}systemctl --user daemon-reload && systemctl --user enable --now spool$/m);
    assert.match(written.stdout, /^ {2}loginctl enable-linger$/m);
    assert.equal(fs.statSync(unitFile()).mode & 0o777, 0o644);
    if (spawnSync('sh', ['-c', 'command -v systemd-analyze']).status === 0) {
      const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-svc-run-'));
      try {
        const verify = spawnSync('systemd-analyze', ['verify', '--user', unitFile()], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: runtime }, timeout: 60_000 });
        assert.deepEqual([verify.status, verify.stderr], [0, ''], 'systemd-analyze verify --user finds nothing wrong');
      } finally {
        fs.rmSync(runtime, { recursive: true, force: true });
      }
    }
  });

  test('the same flags again leave it be; other flags are refused without --force, and replace it with it', async () => {
    const before = fs.readFileSync(unitFile(), 'utf8');
    const again = await spool([]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Unchanged /);
    const other = await spool(['--grace', '1m']);
    assert.equal(other.code, 1);
    assert.equal(other.stderr, `spool: ${unitFile()} exists and differs from the unit these flags make. Replace it with --force, or name another service with --unit NAME; --print shows the new unit.\n`);
    assert.equal(fs.readFileSync(unitFile(), 'utf8'), before);
    const forced = await spool(['--grace', '1m', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^Replaced /);
    assert.ok(execWords(unitLine(fs.readFileSync(unitFile(), 'utf8'), 'ExecStart')).join(' ').includes('--grace 1m'));
    // Another service beside it: --unit.
    const ci = await spool(['--unit', 'spool-ci', '--db', 'ci.db']);
    assert.equal(ci.code, 0, ci.stderr);
    assert.match(ci.stdout, /systemctl --user enable --now spool-ci$/m);
    assert.ok(fs.existsSync(path.join(home, '.config', 'systemd', 'user', 'spool-ci.service')));
    const bad = await spool(['--unit', '../evil']);
    assert.equal(bad.stderr, 'spool: Invalid --unit "../evil": a service name of letters, digits and - _ . @, starting with a letter or digit (e.g. spool-ci).\n');
  });

  test('a store URL with a password goes to a 0600 file the unit names, never into the unit', async () => {
    const url = 'postgres://spool:s3cret%25pw@db.internal:5432/spool';
    const printed = await spool(['--unit', 'team', '--print', '--store', url]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.doesNotMatch(printed.stdout, /s3cret/);
    assert.match(printed.stderr, /Nothing was written/);
    const written = await spool(['--unit', 'team', '--store', url]);
    assert.equal(written.code, 0, written.stderr);
    const unit = fs.readFileSync(path.join(home, '.config', 'systemd', 'user', 'team.service'), 'utf8');
    assert.doesNotMatch(unit, /s3cret/);
    assert.ok(!execWords(unitLine(unit, 'ExecStart')).includes('--store'));
    const secret = path.join(home, '.config', 'spool', 'team.env');
    assert.equal(unitLine(unit, 'EnvironmentFile'), secret);
    assert.equal(fs.readFileSync(secret, 'utf8').split('\n')[1], `SPOOL_STORE='${url}'`);
    assert.equal(fs.statSync(secret).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(secret)).mode & 0o777, 0o700);
  });

  test('a file the daemon would need and cannot find is refused by the flag that names it', async () => {
    const missing = await spool(['--print', '--metrics', '127.0.0.1:9464', '--metrics-token', 'nope.token']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `spool: --metrics-token ${path.join(work, 'nope.token')}: no such file. The service's daemon would not start without it.\n`);
  });

  test("the unit's ExecStart, run as systemd runs it, starts a daemon that runs jobs and stops on SIGTERM", async (t) => {
    const written = await spool(['--force', '--db', 'service.db']);
    assert.equal(written.code, 0, written.stderr);
    const unit = fs.readFileSync(unitFile(), 'utf8');
    const [program, ...args] = execWords(unitLine(unit, 'ExecStart'));
    const envPath = /^Environment="PATH=(.*)"$/m.exec(unit)?.[1];
    assert.equal(envPath, process.env['PATH'], 'the PATH of the shell that installed it, for shell jobs');
    // systemd's environment for a user service: HOME, the PATH line, nothing of this shell's SPOOL_*.
    const daemon = spawn(program ?? '', args, { cwd: '/', env: { HOME: home, PATH: envPath ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    daemon.stderr.on('data', (d: Buffer) => (log += d.toString()));
    daemon.stdout.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => daemon.once('exit', (code) => resolve(code)));
    t.after(() => {
      if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
    });
    await waitFor('the service\'s daemon to answer', async () => daemon.exitCode === null && (await runCli(['daemon', 'status', '--json'], { socketPath, timeoutMs: 20_000 })).code === 0, 60_000).catch((error: Error) => {
      throw new Error(`${error.message} Its log:\n${log}`);
    });
    const status = JSON.parse((await runCli(['daemon', 'status', '--json'], { socketPath })).stdout) as { dbPath: string };
    assert.equal(status.dbPath, path.join(work, 'service.db'));
    const job = await runCli(['enqueue', 'svc', '--shell', 'echo from the service', '--wait'], { socketPath, cwd: work });
    assert.equal(job.code, 0, job.stderr);
    assert.match(job.stdout, /^from the service$/m);
    // KillMode=mixed: SIGTERM to the daemon alone, which shuts down by itself.
    daemon.kill('SIGTERM');
    assert.equal(await exited, 0, log);
  });
});
