/**
 * `spool daemon --store` as a user runs it, through the CLI: a daemon started in the background
 * gets the store (its password never on a command line, in the output, the status or the log)
 * and --store-poll; status names the store; SQLite-only commands say what to use instead; a
 * request while PostgreSQL is down gets a plain "store unavailable" and exit status 1, and the
 * same command works once PostgreSQL is back; store flags that cannot work are refused up front.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { DaemonStatus } from '../../shared/protocol';
import { processAlive, waitFor } from '../helpers/daemon';
import { PgServer } from '../helpers/postgres';
import { parseJson, runCli } from './cli-run';

const PASSWORD = 'hunter2-not-shown';

/** The store URL with a password (the test server trusts local connections, so any password does). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

test('spool daemon --detach --store: the daemon keeps the queue in PostgreSQL, says where without the password, and answers plainly while the database is down', async (t) => {
  const server = await PgServer.start();
  const url = withPassword(await server.database());
  const shown = `postgres://spool@127.0.0.1:${server.port}/${new URL(url).pathname.slice(1)}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-pg-cli-'));
  const socketPath = path.join(dir, 's.sock');
  let pid: number | null = null;
  // One hook, in order: the daemon stops (by the CLI, or killed if it would not), then the server
  // and the folder go.
  t.after(async () => {
    await runCli(['daemon', 'stop'], { socketPath });
    if (pid !== null && processAlive(pid)) process.kill(pid, 'SIGKILL');
    server.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const started = await runCli(['daemon', '--detach', '--db', path.join(dir, 'data', 'spool.db'), '--store', url, '--store-poll'], { socketPath });
  assert.equal(started.code, 0, started.stderr);
  assert.ok(started.stdout.includes(`\n  store:    ${shown}\n`), started.stdout);
  assert.doesNotMatch(started.stdout + started.stderr, new RegExp(PASSWORD));

  const status = parseJson<DaemonStatus>((await runCli(['daemon', 'status', '--json'], { socketPath })).stdout);
  pid = status.pid;
  assert.deepEqual(status.store, { kind: 'postgres', location: shown });
  // The URL reached the background daemon in its environment, never on its command line (ps shows that to everyone).
  const cmdline = fs.readFileSync(`/proc/${status.pid}/cmdline`, 'utf8').split('\0');
  assert.ok(!cmdline.some((a) => a.includes('postgres://')), cmdline.join(' '));
  assert.ok(cmdline.includes('--store-poll'), 'the poll-only mode reached it');
  const text = await runCli(['daemon', 'status'], { socketPath });
  assert.match(text.stdout, new RegExp(`^store: +${shown.replace(/[.]/g, '\\.')}$`, 'm'));
  assert.doesNotMatch(text.stdout, /^database:/m);
  const log = fs.readFileSync(path.join(dir, 'data', 'daemon.log'), 'utf8');
  assert.match(log, /Spool daemon ready/);
  assert.match(log, /poll[=:] ?true/);

  const enqueued = await runCli(['enqueue', 'pg', '--shell', 'echo on postgres', '--wait'], { socketPath });
  assert.equal(enqueued.code, 0, enqueued.stderr);
  assert.equal(enqueued.stdout, 'on postgres\n');

  // The daemon's online backup is SQLite's; PostgreSQL has its own tools, and the CLI says which.
  const backup = await runCli(['backup', path.join(dir, 'copy.db')], { socketPath });
  assert.equal(backup.code, 1);
  assert.match(backup.stderr, /pg_dump/);
  assert.equal(fs.existsSync(path.join(dir, 'copy.db')), false);

  server.stopImmediate();
  const refused = await runCli(['enqueue', 'pg', '--shell', 'true'], { socketPath });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`^spool: The store is unavailable: the daemon cannot reach PostgreSQL at ${shown.replace(/[.]/g, '\\.')} \\(.+\\)\\. Nothing of this request was stored; the daemon reconnects by itself, so send it again shortly\\.\\n$`));
  assert.doesNotMatch(refused.stderr, new RegExp(PASSWORD));
  // Reading meanwhile is refused as plainly, by a daemon that keeps running.
  const listed = await runCli(['jobs'], { socketPath });
  assert.equal(listed.code, 1);
  assert.match(listed.stderr, /^spool: The store is unavailable/);
  assert.doesNotThrow(() => process.kill(status.pid, 0), 'the daemon is still running');
  // It still says who it is (so that it can be stopped), and that its store is away.
  const down = await runCli(['daemon', 'status'], { socketPath });
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /^store status: +UNAVAILABLE: The store is unavailable: the daemon cannot reach PostgreSQL/m);

  await server.startAgain();
  await waitFor('the same command to work once PostgreSQL is back', async () => (await runCli(['enqueue', 'pg', '--shell', 'true'], { socketPath })).code === 0, 30_000);
  const after = fs.readFileSync(path.join(dir, 'data', 'daemon.log'), 'utf8');
  assert.match(after, /The store is unavailable/);
  assert.match(after, /The store is reachable again/);
  assert.doesNotMatch(after, new RegExp(PASSWORD), 'the log never shows the password');
});

test('store flags that cannot work are refused before anything starts', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-pg-flags-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 's.sock');
  const db = path.join(dir, 'spool.db');
  const cases: [string[], RegExp][] = [
    [['--store-poll'], /^spool: --store-poll works with the PostgreSQL store only: give --store postgres:\/\/… \(or SPOOL_STORE\) too\.\n$/],
    [['--store', 'mysql://db/spool'], /^spool: --store: expected postgres:\/\/USER\[:PASSWORD\]@HOST\[:PORT\]\/DATABASE, not a mysql:\/\/ URL/],
    [['--store', 'postgres://spool@db.internal:5432'], /^spool: --store: the URL names no database/],
    [['--store', 'postgres://spool@127.0.0.1:1/spool', '--durable'], /--durable is for the SQLite store; on PostgreSQL, durability is the server's synchronous_commit/],
  ];
  for (const [flags, expected] of cases) {
    const r = await runCli(['daemon', '--detach', '--db', db, ...flags], { socketPath });
    assert.equal(r.code, 1, `${flags.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, expected);
    assert.equal(fs.existsSync(socketPath), false, 'nothing started');
  }
  // SPOOL_STORE is checked as --store is, and named as where the bad value came from.
  const env = await runCli(['daemon', '--detach', '--db', db], { socketPath, env: { SPOOL_STORE: 'not a url' } });
  assert.equal(env.code, 1);
  assert.match(env.stderr, /^spool: SPOOL_STORE: expected a PostgreSQL connection URL/);
  // spool restore puts a SQLite file in place: with the queue in PostgreSQL it would never be read.
  const restore = await runCli(['restore', path.join(dir, 'backup.db')], { socketPath, env: { SPOOL_STORE: 'postgres://spool@127.0.0.1:1/spool' } });
  assert.equal(restore.code, 1);
  assert.match(restore.stderr, /^spool: SPOOL_STORE is set: the daemon keeps its queue in PostgreSQL, .*pg_restore/);
});
