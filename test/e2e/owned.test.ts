/**
 * Objects a jobs file owns, in code-server against a real daemon: the workspace's spool.jsonc is
 * applied with `spool apply --yes` (the CLI as a process), a queue is also made by hand, and
 * host/owned.ts checks that the Queues and Schedules views mark what the file owns and that
 * Reveal in spool.jsonc opens the file at the object's name, and offers nothing on the hand-made
 * queue.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';
import { openVsCode, runHostSuite, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';

/** The project's file; host/owned.ts reads it back from the workspace to find the keys. */
const OWNED_FILE = `// The team's jobs, applied by the test.
{
  "project": "e2e-owned",
  "queues": {
    "mail": { "concurrency": 2 }
  },
  "templates": { "send": { "queue": "mail", "kind": "thumbnail", "payload": 1 } },
  "schedules": {
    "nightly-mail": { "cron": "0 3 * * *", "template": "send" }
  }
}
`;

let daemon: TestDaemon;
let vscode: VsCode;

before(async () => {
  daemon = await startDaemon();
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  fs.writeFileSync(path.join(vscode.server.workspace, 'spool.jsonc'), OWNED_FILE);
  const applied = await runCli(['apply', '--yes'], { socketPath: daemon.socketPath, cwd: vscode.server.workspace });
  assert.equal(applied.code, 0, applied.stderr);
  // A queue made by hand, by its first job: no project owns it.
  await (await daemon.client()).call('jobs.enqueue', { queue: 'by-hand', kind: 'thumbnail', payload: 0 });
});

after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('objects owned by the jobs file', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'owned.ts'), { socketPath: daemon.socketPath });
  await reportHostRun(t, run, [
    'the queue and the schedule the file owns are marked, with Reveal in their menus; the hand-made queue is not',
    'Reveal in spool.jsonc opens the file with the queue\'s name selected',
    'Reveal in spool.jsonc opens the file with the schedule\'s name selected',
  ]);
});
