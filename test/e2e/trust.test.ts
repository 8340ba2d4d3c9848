/** Workspace trust: the packaged extension in an untrusted workspace runs no shell command (host/trust.ts). */
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, runHostSuite, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';
import { seedReports } from './support/seed';

let daemon: TestDaemon;
let vscode: VsCode;

before(async () => {
  daemon = await startDaemon();
  await seedReports(await daemon.client());
  vscode = await openVsCode({ workspaceTrust: true, settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('the extension in an untrusted workspace', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'trust.ts'), { socketPath: daemon.socketPath });
  await reportHostRun(t, run, [
    'the workspace is untrusted and Spool still connects and shows queues',
    'a shell job is refused and nothing is enqueued; a custom job is enqueued',
    'retrying a dead shell job is refused too',
    'Retry All Dead Jobs retries the other dead jobs and leaves the shell ones dead',
    'enabling a disabled shell schedule is refused',
  ]);
});
