/**
 * The e2e harness itself: code-server starts with the packaged extension, a host suite runs in
 * its extension host, passing tests report exit code 0, and a failing one reports 1 with its
 * message. If this file fails, every other e2e failure is suspect.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { openVsCode, runHostSuite, type VsCode } from './harness';

const suite = path.join(__dirname, 'host', 'trivial.ts');
let vscode: VsCode;

before(async () => {
  vscode = await openVsCode({ settings: { 'spool.autoStartDaemon': false } });
});
after(async () => {
  await vscode?.close();
});

test('a passing extension-host suite reports exit code 0 and every test by name', async () => {
  const run = await runHostSuite(vscode.server, vscode.browser, suite, { fail: false });
  assert.equal(run.exitCode, 0, run.log);
  assert.deepEqual(run.results.map((r) => [r.name, r.error]), [
    ['the extension host runs the suite with the vscode API', null],
    ['the packaged Spool extension is installed', null],
    ['a failing assertion fails the run when asked to', null],
  ]);
});

test('a failing extension-host test makes the run fail with its message', async () => {
  const run = await runHostSuite(vscode.server, vscode.browser, suite, { fail: true });
  assert.equal(run.exitCode, 1, run.log);
  const failed = run.results.filter((r) => r.error !== null);
  assert.equal(failed.length, 1);
  assert.equal(failed[0]?.name, 'a failing assertion fails the run when asked to');
  assert.match(failed[0]?.error ?? '', /deliberate failure/);
});
