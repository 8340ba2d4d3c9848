/**
 * The packaged extension inside a real VS Code (code-server), against a real daemon on a temp
 * socket with a seeded queue: activation, every command, the trees, context values, documents
 * and the status bar, tested from inside the extension host (host/extension.ts).
 */
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
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('the extension in VS Code, against a seeded daemon', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'extension.ts'), {
    socketPath: daemon.socketPath,
    scratch: vscode.server.scratch,
  });
  await reportHostRun(t, run, [
    'activation connects to the daemon on the configured socket',
    'every contributed command is registered',
    'the Queues view shows the seeded queue with its counts and state groups',
    'spool.showEmptyGroups shows the groups that hold no jobs',
    'jobs in a group show kind and payload, attempts, a state icon and a contextValue per state',
    'a due job that no live worker takes says so on its row and on its page',
    'context values decide which menu items a user sees',
    'a large group loads one page, and "Load more…" loads the next',
    'Enqueue Job runs a shell job to completion',
    'Show Job Output opens a document that follows the job live',
    'Open Job as JSON shows the job and its runs as JSON',
    'an open job details document follows the job as it changes',
    'Retry on a dead job moves it out of Dead',
    'Cancel on a multi-selection cancels every selected job',
    'Delete with confirmation given removes the jobs',
    'Pause and Resume change the queue and its contextValue',
    'Configure Queue sets concurrency and a rate limit',
    'Filter narrows the jobs listed and shows in the view description',
    'Retry All Dead Jobs retries the dead jobs of a queue, and follows them as a single retry does',
    'Purge Queue with confirmation given empties the queue',
    'the Schedules view shows cron in words, and Run Now / Disable / Enable / Delete work',
    'the Workers view lists the built-in executors and the seed worker',
    'Edit & Re-enqueue: saving keeps the edit, and only Enqueue Edited Job enqueues a new job',
    'the status bar follows counts pushed by the daemon',
    'Cancel on a running job stops it',
    'Enqueue Current File as Shell Job runs the saved script',
    'Enqueue Current File refuses a file that is not a script',
    'Go to Job by Id opens the details of that job',
    'Copy Job Id and Copy Job Payload put them on the clipboard',
    'the Schedules and Workers filters narrow their views and show in the description',
    'Stop Daemon disconnects and the status bar says so',
  ]);
});
