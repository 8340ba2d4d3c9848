/**
 * `npm run demo` (scripts/demo.mjs, after the build) as on a fresh machine: no daemon at the
 * default socket, so it starts one, runs the sample job with its output, and says what to try
 * next; run again, it reuses the daemon. HOME and the XDG folders point at a temporary folder,
 * so the default socket and database are the test's own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { ROOT, SPOOL_BIN } from './cli-run';

test('the demo starts a daemon, runs a sample job showing its output, and prints the next steps', (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-demo-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_RUNTIME_DIR: path.join(home, 'run'), XDG_DATA_HOME: path.join(home, 'data'), NO_COLOR: '1' };
  delete env.SPOOL_SOCKET;
  delete env.SPOOL_DB;
  const socketPath = path.join(home, 'run', 'spool', 'spool.sock');
  t.after(() => {
    spawnSync(process.execPath, [SPOOL_BIN, 'daemon', 'stop'], { env, timeout: 60_000 });
    fs.rmSync(home, { recursive: true, force: true });
  });
  const demo = () => spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'demo.mjs')], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });

  const first = demo();
  assert.equal(first.status, 0, first.stderr + first.stdout);
  assert.match(first.stdout, /Started the Spool daemon \(pid \d+\)\./);
  assert.ok(first.stdout.includes(`socket:   ${socketPath}`), first.stdout);
  assert.ok(first.stdout.includes(`database: ${path.join(home, 'data', 'spool', 'spool.db')}`));
  assert.ok(first.stdout.includes(`log:      ${path.join(home, 'data', 'spool', 'daemon.log')}`));
  assert.match(first.stdout, /Hello from Spool, running in .*\nstep 1 of 3\nstep 2 of 3\nstep 3 of 3\ndone\n/);
  assert.match(first.stderr, /Job \S+ completed in /);
  assert.match(first.stdout, /node bin\/spool jobs +list jobs/);
  assert.match(first.stdout, /node bin\/spool job [0-9a-f-]{36} +the job's record/);
  assert.match(first.stdout, /node bin\/spool stats --watch/);
  assert.match(first.stdout, /Stop the daemon with:\n {2}node bin\/spool daemon stop\n$/);

  const second = demo();
  assert.equal(second.status, 0, second.stderr + second.stdout);
  assert.match(second.stdout, /A Spool daemon is already running \(pid \d+\)\./);
  assert.match(second.stdout, /step 3 of 3/);
});
