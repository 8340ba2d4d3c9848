/**
 * The extension's documents against a real daemon: output documents capped as the daemon caps
 * output, output of a deleted job, and Edit & Re-enqueue documents forgotten once closed.
 * host/documents.ts holds the steps.
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
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
});

after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('documents', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'documents.ts'), {
    socketPath: daemon.socketPath,
    scratch: vscode.server.scratch,
  });
  await reportHostRun(t, run, [
    'a job printing more lines than the daemon keeps leaves only the kept lines in its output document, below a marker',
    'a job that runs again, retried or not, shows where each run begins in its output document',
    "a running job's output opens at its end and follows new lines, until the reader scrolls up",
    'opening the output of a job that was deleted fails and leaves nothing followed',
    'closing an Edit & Re-enqueue document drops its copy of the job',
  ]);
});
