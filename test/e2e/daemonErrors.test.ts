/**
 * When Start or Restart Daemon fails, the user sees the reason once, in one notification with
 * "Show Log" and "Open Settings". Here no daemon runs and the configured Node does not exist
 * (`spool.nodePath`), so starting one fails.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openVsCode, tempDir, waitFor, type VsCode } from './harness';
import { openWorkbench, runCommand, screenshot, statusBarText } from './support/workbench';

const folder = tempDir('spool-de-');
let vscode: VsCode;
let page: Page;

before(async () => {
  vscode = await openVsCode({
    settings: {
      'spool.socketPath': path.join(folder.dir, 's.sock'),
      'spool.databasePath': path.join(folder.dir, 'spool.db'),
      'spool.autoStartDaemon': false,
      'spool.nodePath': '/nonexistent/node',
    },
  });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  folder.remove();
});

/**
 * Run a daemon command that fails, then Show Daemon Log, which fails too (no daemon ever wrote a
 * log here). Notifications arrive in the order the extension raised them, so once the second
 * command's notification is there, every notification of the first one is too. They are counted
 * in the notification center, which lists them all (toasts are limited in number).
 */
async function failureNotifications(title: string): Promise<string[]> {
  const listed = (text: string): Locator => page.locator('.notifications-center .notification-list-item', { hasText: text });
  await runCommand(page, 'Notifications: Clear All Notifications');
  await waitFor('the notifications to be cleared', async () => (await page.locator('.notification-toast').count()) === 0, { timeoutMs: 15_000 });
  await runCommand(page, title);
  await page.locator('.notification-toast', { hasText: 'Could not run "/nonexistent/node"' }).first().waitFor({ timeout: 60_000 });
  await runCommand(page, 'Spool: Show Daemon Log');
  await runCommand(page, 'Notifications: Show Notifications');
  await listed('There is no daemon log at').first().waitFor({ timeout: 15_000 });
  const shown = (await listed('Could not run "/nonexistent/node"').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  await runCommand(page, 'Notifications: Hide Notifications');
  return shown;
}

for (const title of ['Spool: Start Daemon', 'Spool: Restart Daemon']) {
  test(`a failing ${title} shows its error once`, async () => {
    await waitFor('the status bar to say disconnected', async () => (await statusBarText(page)) === 'Spool: disconnected', { timeoutMs: 60_000 });
    const name = `daemon-error-${title.split(' ')[1]?.toLowerCase() ?? 'command'}.png`;
    let shown: string[];
    try {
      shown = await failureNotifications(title);
    } finally {
      await screenshot(page, name);
    }
    assert.equal(shown.length, 1, `notifications:\n${shown.join('\n')}`);
    assert.match(shown[0] ?? '', /Spool could not connect to its daemon: Could not run "\/nonexistent\/node"/);
  });
}
