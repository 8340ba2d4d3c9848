/**
 * Objects a jobs file owns, in code-server against a real daemon: the workspace's spool.jsonc is
 * applied with `spool apply --yes` (the CLI as a process), a queue is also made by hand, and
 * host/owned.ts checks that the Queues and Schedules views mark what the file owns and that
 * Reveal in spool.jsonc opens the file at the object's name, and offers nothing on the hand-made
 * queue. The first test does the same as a user, from the Queues view's context menu, and pauses
 * the owned queue there: a warning says the next `spool apply` undoes it, naming the file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';
import { openVsCode, runHostSuite, tempDir, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';
import { waitFor } from './support/wait';
import { contextMenu, openSpoolView, openWorkbench, rowAt, screenshot, widenSideBar } from './support/workbench';

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

/** Another project's file, applied from a folder outside the workspace. */
const OTHER_FILE = `{ "project": "e2e-other", "queues": { "elsewhere": {} } }
`;

let daemon: TestDaemon;
let vscode: VsCode;
let other: { dir: string; remove: () => void } | undefined;

before(async () => {
  daemon = await startDaemon();
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  fs.writeFileSync(path.join(vscode.server.workspace, 'spool.jsonc'), OWNED_FILE);
  const applied = await runCli(['apply', '--yes'], { socketPath: daemon.socketPath, cwd: vscode.server.workspace });
  assert.equal(applied.code, 0, applied.stderr);
  other = tempDir('spool-other-');
  fs.writeFileSync(path.join(other.dir, 'spool.jsonc'), OTHER_FILE);
  const appliedOther = await runCli(['apply', '--yes'], { socketPath: daemon.socketPath, cwd: other.dir });
  assert.equal(appliedOther.code, 0, appliedOther.stderr);
  // A queue made by hand, by its first job: no project owns it.
  await (await daemon.client()).call('jobs.enqueue', { queue: 'by-hand', kind: 'thumbnail', payload: 0 });
});

after(async () => {
  await vscode?.close();
  await daemon?.dispose();
  other?.remove();
});

test('a user right-clicks the owned queue, chooses Reveal in spool.jsonc, and the file opens at its name; another project\'s queue gets a plain answer', async () => {
  const page = await openWorkbench(vscode);
  try {
    await openSpoolView(page);
    await widenSideBar(page, 260);
    const mail = rowAt(page, 1, 'mail ');
    await mail.waitFor({ timeout: 60_000 });
    assert.match((await mail.getAttribute('aria-label')) ?? '', /· spool\.jsonc \(project e2e-owned\)$/);
    // The hand-made queue: no mark, and no Reveal in its menu.
    const byHand = rowAt(page, 1, 'by-hand ');
    await byHand.waitFor({ timeout: 30_000 });
    assert.doesNotMatch((await byHand.getAttribute('aria-label')) ?? '', /spool\.jsonc/);
    await byHand.click({ button: 'right' });
    const menu = page.locator('.context-view .monaco-menu');
    await menu.locator('.action-item', { hasText: 'Pause Queue' }).first().waitFor({ timeout: 15_000 });
    assert.equal(await menu.locator('.action-item', { hasText: 'Reveal in spool.jsonc' }).count(), 0);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached', timeout: 15_000 });

    await screenshot(page, 'owned-queue.png');
    await contextMenu(page, mail, 'Reveal in spool.jsonc');
    await page.locator('.tabs-container .tab.active', { hasText: 'spool.jsonc' }).waitFor({ timeout: 30_000 });
    // The status bar says where the cursor is and how much is selected: the key, quotes included.
    const lines = OWNED_FILE.split('\n');
    const line = lines.findIndex((l) => l.includes('"mail": {'));
    const end = (lines[line] ?? '').indexOf('"mail"') + '"mail"'.length;
    const expected = `Ln ${line + 1}, Col ${end + 1} (${'"mail"'.length} selected)`;
    const selection = page.locator('[id="status.editor.selection"]');
    await waitFor(`the status bar to say ${expected}`, async () => ((await selection.textContent()) ?? '').trim() === expected, { timeoutMs: 30_000 });
    await screenshot(page, 'owned-reveal.png');

    // A queue another project owns, whose file is not in this workspace: Reveal says so.
    await contextMenu(page, rowAt(page, 1, 'elsewhere '), 'Reveal in spool.jsonc');
    await page.locator('.notifications-toasts .notification-list-item', { hasText: 'No spool.jsonc in this workspace declares project e2e-other.' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'owned-reveal-elsewhere.png');

    // Pausing the owned queue from the view warns, in the CLI's words, that the next apply of
    // the workspace's file undoes it; the hand-made queue pauses without a word.
    await contextMenu(page, rowAt(page, 1, 'mail '), 'Pause Queue');
    const warning = 'Queue "mail" is declared in spool.jsonc (project "e2e-owned"): the next `spool apply` puts the file\'s values back. Change it in the file to keep the change.';
    await page.locator('.notifications-toasts .notification-list-item', { hasText: warning }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'owned-pause-warning.png');
    await contextMenu(page, rowAt(page, 1, 'by-hand '), 'Pause Queue');
    await waitFor('the hand-made queue to be paused', async () => (await (await daemon.client()).call('queues.get', { name: 'by-hand' })).queue.paused, { timeoutMs: 30_000 });
    assert.equal(await page.locator('.notifications-toasts .notification-list-item', { hasText: 'Queue "by-hand"' }).count(), 0);
    await waitFor('the owned queue\'s row to show it paused', async () => ((await rowAt(page, 1, 'mail ').getAttribute('aria-label')) ?? '').includes('paused'), { timeoutMs: 30_000 });
    await contextMenu(page, rowAt(page, 1, 'mail '), 'Resume Queue');
    await waitFor('the owned queue to run again', async () => !(await (await daemon.client()).call('queues.get', { name: 'mail' })).queue.paused, { timeoutMs: 30_000 });
    // Both active again, as host/owned.ts expects them.
    await (await daemon.client()).call('queues.resume', { name: 'by-hand' });
  } catch (error) {
    await screenshot(page, 'failed-owned-reveal.png').catch(() => undefined);
    throw error;
  }
});

test('objects owned by the jobs file', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'owned.ts'), { socketPath: daemon.socketPath });
  await reportHostRun(t, run, [
    'the queue and the schedule the file owns are marked, with Reveal in their menus; the hand-made queue is not',
    'Reveal in spool.jsonc opens the file with the queue\'s name selected',
    'Reveal in spool.jsonc opens the file with the schedule\'s name selected',
  ]);
});
