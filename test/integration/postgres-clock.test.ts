/**
 * A daemon's clock against the database server's, with real daemons on one PostgreSQL database:
 * one runs with its clock set 3 s ahead (libfaketime, as a machine without NTP drifts), the other
 * on the machine's clock. The skewed one warns in its log and `spool daemon status` says so; the
 * other does neither.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, test } from 'node:test';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { sharedPostgres } from '../helpers/postgres';
import { runCli } from './cli-run';

const FAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((p) => fs.existsSync(p));

const daemons: TestDaemon[] = [];
after(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
});

test('a daemon whose clock is 3 s ahead of the database server warns in its log and in spool daemon status; one in step does not', { skip: FAKETIME === undefined ? 'libfaketime is not installed (apt-get install faketime)' : false }, async (t) => {
  const url = await (await sharedPostgres()).database(t);
  const ahead = await startDaemon({
    args: ['--store', url],
    env: { ...process.env, LD_PRELOAD: FAKETIME, FAKETIME: '+3s', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
  });
  daemons.push(ahead);
  const inStep = await startDaemon({ args: ['--store', url] });
  daemons.push(inStep);

  const status = await (await ahead.client()).call('daemon.status');
  assert.ok(status.clockSkewMs !== undefined, 'the status gives the skew');
  assert.ok(Math.abs(status.clockSkewMs - 3000) < 1000, `measured ${status.clockSkewMs} ms`);
  await waitFor('the warning in the log', () => /This daemon's clock is [234]\.\d s ahead of the database server's/.test(ahead.log()), 10_000).catch((error: unknown) => assert.fail(`${String(error)}\n${ahead.log()}`));
  assert.match(ahead.log(), /keep every daemon's clock in step \(NTP/);
  const shown = await runCli(['daemon', 'status'], { socketPath: ahead.socketPath });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /clock:\s+WARNING: [234]\.\d s ahead of the database server's; .*NTP/);

  const calm = await (await inStep.client()).call('daemon.status');
  assert.ok(calm.clockSkewMs !== undefined && Math.abs(calm.clockSkewMs) < 1000, `measured ${calm.clockSkewMs} ms`);
  assert.doesNotMatch(inStep.log(), /clock is/);
  const calmShown = await runCli(['daemon', 'status'], { socketPath: inStep.socketPath });
  assert.match(calmShown.stdout, /clock:\s+0\.\d+ s (ahead of|behind) the database server's\n/);
  assert.doesNotMatch(calmShown.stdout, /WARNING/);
});
