/**
 * The jobs file in code-server against a real daemon: the extension's language client starts
 * the language server, which underlines a bad cron, hovers a cron with its next runs and shows
 * live code lenses, and applies the file from its lens when the daemon has project.apply.
 * host/jobsFile.ts holds the steps.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, runHostSuite, waitFor, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';
import { openWorkbench, screenshot } from './support/workbench';

/** The file the user opens: one schedule with a cron whose day of the week (9) does not exist. */
const FILE = `{
  "project": "e2e-ui",
  "queues": { "work": {} },
  "templates": { "job": { "queue": "work", "kind": "thumbnail", "payload": 1 } },
  "schedules": {
    "nightly": { "cron": "30 4 * * *", "template": "job" },
    "broken": { "cron": "0 3 * * 9", "template": "job" }
  }
}
`;

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

test('a user opens spool.jsonc: a squiggle under the bad cron, and a hover with the next runs', async () => {
  fs.writeFileSync(path.join(vscode.server.workspace, 'spool.jsonc'), FILE);
  const page = await openWorkbench(vscode);
  try {
    // From the Explorer, as a user would (quick open needs ripgrep, which this code-server lacks).
    const entry = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'spool.jsonc' }).first();
    await entry.waitFor({ timeout: 60_000 });
    await entry.click();
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: '"broken"' }).waitFor({ timeout: 30_000 });
    // The language server's error, drawn by the editor under the text at fault.
    await editor.locator('.squiggly-error').first().waitFor({ timeout: 60_000 });
    const squiggles = await editor.locator('.squiggly-error').count();
    assert.equal(squiggles, 1);
    await screenshot(page, 'jobs-file-squiggle.png');

    const cron = editor.locator('.view-line span', { hasText: '30 4 * * *' }).last();
    const hover = page.locator('.monaco-hover', { hasText: 'Next 5 runs' }).first();
    // A hover asked for while the language server is still busy with the file comes back empty
    // and is not asked for again until the pointer moves: move away and back until it shows.
    await waitFor(
      'the hover with the next runs',
      async () => {
        await page.mouse.move(5, 5);
        await cron.hover();
        return hover.waitFor({ timeout: 5_000 }).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 60_000 },
    );
    const text = await hover.innerText();
    assert.match(text, /every day at 04:30/);
    assert.equal((text.match(/04:30 UTC/g) ?? []).length, 5, text);
    await screenshot(page, 'jobs-file-hover.png');
  } catch (error) {
    await screenshot(page, 'failed-jobs-file-ui.png').catch(() => undefined);
    throw error;
  }
});

test('after a save, the extension offers to apply the file, and Show Plan opens the plan', async (t) => {
  const client = await SpoolClient.connect({ socketPath: daemon.socketPath });
  try {
    await client.callUnchecked('project.state', { project: 'e2e-ui' });
  } catch {
    client.close();
    return t.skip('this daemon has no project.state: the extension makes no offer');
  }
  client.close();
  fs.writeFileSync(path.join(vscode.server.workspace, 'spool.jsonc'), FILE);
  const page = await openWorkbench(vscode);
  try {
    const entry = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'spool.jsonc' }).first();
    await entry.waitFor({ timeout: 60_000 });
    await entry.click();
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.squiggly-error').first().waitFor({ timeout: 60_000 });
    // Fix the cron as a user would: double-click the 9 (a word of its own) and type a 1.
    const cron = editor.locator('.view-line span', { hasText: '0 3 * * 9' }).last();
    const box = await cron.boundingBox();
    assert.ok(box);
    const literal = '"0 3 * * 9"';
    await page.mouse.dblclick(box.x + (box.width * (literal.indexOf('9') + 0.5)) / literal.length, box.y + box.height / 2);
    await page.keyboard.type('1');
    await waitFor('the squiggle to go', async () => (await editor.locator('.squiggly-error').count()) === 0, { timeoutMs: 30_000 });
    await page.keyboard.press('Control+S');
    const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'differs from the daemon' }).first();
    await toast.waitFor({ timeout: 30_000 });
    assert.match(await toast.innerText(), /spool\.jsonc differs from the daemon: 4 changes to apply/);
    await screenshot(page, 'jobs-file-offer.png');
    await toast.locator('a.monaco-button', { hasText: 'Show Plan' }).click();
    await page.locator('.monaco-editor .view-line', { hasText: 'Plan for project "e2e-ui"' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.monaco-editor .view-line', { hasText: '+ create schedule broken' }).first().waitFor({ timeout: 10_000 });
    // The plan is plain text: as JSON with Comments it had an "Expected a JSON object" error.
    const tab = page.locator('.tabs-container .tab.active');
    assert.match(await tab.innerText(), /Plan of spool\.jsonc/);
    assert.equal((await page.locator('.statusbar-item[id="status.editor.mode"]').innerText()).trim(), 'Plain Text');
    assert.equal(await page.locator('.editor-instance .monaco-editor .squiggly-error').count(), 0);
    await screenshot(page, 'jobs-file-plan.png');
  } catch (error) {
    await screenshot(page, 'failed-jobs-file-offer.png').catch(() => undefined);
    throw error;
  }
});

test('jobs file', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'jobsFile.ts'), { socketPath: daemon.socketPath });
  await reportHostRun(t, run, [
    'a bad cron is underlined where it is wrong, and a hover on a cron gives its next runs',
    'the jobs file is a Spool Jobs File: each completion once, and only the language server\'s problems',
    'code lenses run on the server: Run now and Enqueue, and the queue\'s live count',
    'the Apply lens applies the file, when the daemon has project.apply',
  ]);
});
