/**
 * When the daemon cannot be started, the user is told why, with "Show Log" and "Open
 * Settings", the status bar says "disconnected", and the Queues view offers Start Daemon. A
 * failing Start or Restart Daemon shows that reason once, not twice. Here the configured Node
 * does not exist (`spool.nodePath`).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openVsCode, tempDir, waitFor, type VsCode } from './harness';
import { openSpoolView, openWorkbench, queuesPane, runCommand, screenshot, statusBarText } from './support/workbench';

const folder = tempDir('spool-sf-');
let vscode: VsCode;
let page: Page;

before(async () => {
  vscode = await openVsCode({
    settings: {
      'spool.socketPath': path.join(folder.dir, 's.sock'),
      'spool.databasePath': path.join(folder.dir, 'spool.db'),
      'spool.autoStartDaemon': true,
      'spool.nodePath': '/nonexistent/node',
    },
  });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  folder.remove();
});

test('a daemon that cannot start is explained, with Show Log and Open Settings', async () => {
  const toast = page.locator('.notification-toast', { hasText: 'Spool could not connect to its daemon' }).first();
  await toast.waitFor({ timeout: 60_000 });
  const text = ((await toast.textContent()) ?? '').replace(/\s+/g, ' ');
  assert.match(text, /Could not run "\/nonexistent\/node".*set "spool\.nodePath" to its full path/);
  assert.ok(await toast.locator('.monaco-button', { hasText: 'Show Log' }).isVisible());
  assert.ok(await toast.locator('.monaco-button', { hasText: 'Open Settings' }).isVisible());
  await page.locator('.notification-toast', { hasText: 'Starting the Spool daemon' }).waitFor({ state: 'detached', timeout: 15_000 });
  await waitFor('the status bar to say disconnected', async () => (await statusBarText(page)) === 'Spool: disconnected');
  await openSpoolView(page);
  const start = queuesPane(page).locator('.welcome-view-content .monaco-button', { hasText: 'Start Daemon' });
  await start.waitFor({ timeout: 15_000 });
  await screenshot(page, 'start-failure.png');
  await toast.locator('.monaco-button', { hasText: 'Show Log' }).click();
  await page.locator('.output-view, .part.panel', { hasText: 'Cannot connect to the Spool daemon' }).first().waitFor({ timeout: 15_000 });
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
