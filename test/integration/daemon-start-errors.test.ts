/**
 * A daemon that cannot start says why, through the CLI: `spool daemon --detach` prints the reason
 * the daemon gave (not just where its log is), from this start's lines of a log earlier starts
 * also wrote to; and a PostgreSQL store that cannot be reached at start is said as such (refused,
 * unknown host, missing database), not as an outage the daemon would wait out.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { freePort } from '../helpers/ports';
import { PgServer } from '../helpers/postgres';
import { runCli } from './cli-run';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-start-errors-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('spool daemon --detach that fails prints the reason the daemon gave, from this start only', async (t) => {
  const dir = tempDir(t);
  const socketPath = path.join(dir, 's.sock');
  const db = path.join(dir, 'spool.db');
  // An earlier start's lines in the same log must not be taken for this start's reason.
  fs.writeFileSync(path.join(dir, 'daemon.log'), 'spoold: an old failure of an earlier start\n', { mode: 0o600 });

  const remote = await runCli(['daemon', '--detach', '--db', db, '--metrics', '0.0.0.0:9464'], { socketPath });
  assert.equal(remote.code, 1, remote.stderr);
  assert.match(remote.stderr, /^spool: The daemon exited during start-up \(exit code 1\): --metrics 0\.0\.0\.0:9464: 0\.0\.0\.0 is not a loopback address.*--metrics-allow-remote.* Its log: .*daemon\.log\n$/);
  assert.doesNotMatch(remote.stderr, /old failure/);

  // A metrics port another program holds.
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.after(() => holder.close());
  const { port } = holder.address() as net.AddressInfo;
  const taken = await runCli(['daemon', '--detach', '--db', db, '--metrics', `127.0.0.1:${port}`], { socketPath });
  assert.equal(taken.code, 1, taken.stderr);
  assert.match(taken.stderr, new RegExp(`^spool: The daemon exited during start-up \\(exit code 1\\): .*127\\.0\\.0\\.1:${port}.*in use`, 's'));
  assert.equal(fs.existsSync(socketPath), false, 'no socket left behind');
});

test('a daemon that cannot reach PostgreSQL at start says so and why, and does not promise to reconnect', async (t) => {
  const dir = tempDir(t);
  const socketPath = path.join(dir, 's.sock');
  const db = path.join(dir, 'spool.db');

  const port = await freePort();
  const refused = await runCli(['daemon', '--db', db, '--store', `postgres://spool:pw@127.0.0.1:${port}/spool`], { socketPath });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, new RegExp(`^spool: The daemon cannot reach PostgreSQL at postgres://spool@127\\.0\\.0\\.1:${port}/spool, so it did not start: the connection was refused .*no server listens there`));
  assert.doesNotMatch(refused.stderr, /reconnects by itself|send it again/);

  const unknown = await runCli(['daemon', '--detach', '--db', db, '--store', 'postgres://spool@no-such-host.invalid:5432/spool'], { socketPath });
  assert.equal(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /^spool: The daemon exited during start-up \(exit code 1\): The daemon cannot reach PostgreSQL at postgres:\/\/spool@no-such-host\.invalid:5432\/spool, so it did not start: the host is unknown/);

  const server = await PgServer.start();
  t.after(() => server.destroy());
  const missing = new URL(server.url());
  missing.pathname = '/no_such_database';
  const noDatabase = await runCli(['daemon', '--db', db, '--store', missing.toString()], { socketPath });
  assert.equal(noDatabase.code, 1, noDatabase.stderr);
  assert.match(noDatabase.stderr, /so it did not start: the database does not exist \(database "no_such_database" does not exist\)\. Create it first/);
  assert.equal(fs.existsSync(socketPath), false, 'no socket left behind');
});
