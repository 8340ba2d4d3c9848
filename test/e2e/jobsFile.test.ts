/**
 * The jobs file in code-server against a real daemon: the extension's language client starts
 * the language server, which underlines a bad cron, hovers a cron with its next runs and shows
 * live code lenses. host/jobsFile.ts holds the steps. The lens that applies waits for the
 * daemon's project.apply (not in this build).
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
  // A job no worker claims: the queue's lens counts it.
  await (await daemon.client()).call('jobs.enqueue', { queue: 'work', kind: 'thumbnail', payload: 0 });
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
});

after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('jobs file', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'jobsFile.ts'), {});
  await reportHostRun(t, run, [
    'a bad cron is underlined where it is wrong, and a hover on a cron gives its next runs',
    'code lenses run on the server: Run now and Enqueue, and the queue\'s live count',
  ]);
});
