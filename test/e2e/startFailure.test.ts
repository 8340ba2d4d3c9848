/**
 * When the daemon cannot be started, the user is told why, with "Show Log" and "Open
 * Settings", the status bar says "disconnected", and the Queues view offers Start Daemon.
 * Here the configured Node does not exist (`spool.nodePath`).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openVsCode, tempDir, waitFor, type VsCode } from './harness';
import { openSpoolView, openWorkbench, queuesPane, screenshot, statusBarText } from './support/workbench';

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
