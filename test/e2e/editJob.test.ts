/**
 * Edit Job in the packaged extension inside code-server, with auto-save after 100 ms, against a
 * real daemon: saving never applies an edit, Apply Job Edit does (host/editJob.ts).
 */
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, runHostSuite, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';

let daemon: TestDaemon;
let vscode: VsCode;

before(async () => {
  daemon = await startDaemon();
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false, 'files.autoSave': 'afterDelay', 'files.autoSaveDelay': 100 } });
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('Edit Job applies only on Apply Job Edit, never on auto-save', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'editJob.ts'), { socketPath: daemon.socketPath });
  await reportHostRun(t, run, ['Edit Job: auto-save applies nothing, Apply Job Edit applies the change, and a job that started meanwhile is refused']);
});
