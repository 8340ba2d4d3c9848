/**
 * Daemon life through the packaged extension in VS Code: auto-start of the bundled daemon (with
 * its native SQLite module from the .vsix), reconnect after the daemon dies, restart, stop and
 * start, a daemon stopped from elsewhere, and an output document that follows its job across a
 * restart. No daemon is running when VS Code opens. host/lifecycle.ts holds the steps.
 */
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { openVsCode, runHostSuite, tempDir, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';
import { killNotedDaemons } from './support/pids';

const folder = tempDir('spool-life-');
const socketPath = path.join(folder.dir, 's.sock');
const dbPath = path.join(folder.dir, 'data', 'spool.db');
let vscode: VsCode;

before(async () => {
  vscode = await openVsCode({ settings: { 'spool.socketPath': socketPath, 'spool.databasePath': dbPath, 'spool.autoStartDaemon': true } });
});

after(async () => {
  // Before close(), which removes the scratch folder holding the noted pids.
  if (vscode) killNotedDaemons(vscode.server.scratch);
  await vscode?.close();
  folder.remove();
});

test('daemon life through the extension', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'lifecycle.ts'), {
    socketPath,
    dbPath,
    scratch: vscode.server.scratch,
  }, { timeoutMs: 300_000 });
  await reportHostRun(t, run, [
    'with no daemon running, activation starts the bundled daemon and connects',
    'Show Daemon Log opens the log file beside the database',
    'when the daemon dies the status bar says reconnecting, and it reconnects when a daemon is back',
    'Restart Daemon replaces the daemon process',
    'an open output document keeps following its job after Restart Daemon',
    'a daemon stopped elsewhere is started again when autoStartDaemon is on',
    'with autoStartDaemon off, a daemon stopped elsewhere leaves the status bar disconnected, and Start Daemon starts one',
    'Stop Daemon stops it; Start Daemon starts a new one',
  ]);
});

