/**
 * Protocol versions: a daemon of another release answers on the socket when VS Code opens
 * (support/otherVersionDaemon.ts); the extension reports the mismatch and Restart Daemon
 * replaces it with the bundled daemon (host/mismatch.ts).
 */
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { openVsCode, runHostSuite, tempDir, waitFor, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';
import { killNotedDaemons } from './support/pids';
import { startOtherVersionDaemon, type OtherVersionDaemon } from './support/otherVersionDaemon';

const folder = tempDir('spool-mm-');
const socketPath = path.join(folder.dir, 's.sock');
const dbPath = path.join(folder.dir, 'spool.db');
let other: OtherVersionDaemon;
let vscode: VsCode;

before(async () => {
  other = await startOtherVersionDaemon(socketPath);
  vscode = await openVsCode({ settings: { 'spool.socketPath': socketPath, 'spool.databasePath': dbPath, 'spool.autoStartDaemon': true } });
});
after(async () => {
  // Before close(), which removes the scratch folder holding the noted pids.
  if (vscode) killNotedDaemons(vscode.server.scratch);
  await vscode?.close();
  await other?.close();
  folder.remove();
});

test('a daemon of another protocol version', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'mismatch.ts'), { socketPath, dbPath, scratch: vscode.server.scratch });
  await reportHostRun(t, run, ['a daemon of another protocol version is reported as a mismatch', 'Restart Daemon replaces it with the bundled daemon']);
  await waitFor('the other daemon to have been asked to shut down', () => other.stopped, { timeoutMs: 10_000 });
});

