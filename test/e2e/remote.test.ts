/**
 * The extension against a daemon on another machine: a real daemon listening over TLS
 * (`--listen`) on a folder of its own, with a read token made by the CLI. VS Code is set to its
 * endpoint and certificate fingerprint, not to the local socket; with no token stored it says
 * so, with a button that asks for the token in a password box; then the Queues view shows the
 * remote queue with its counts, named as the remote daemon's, and no local daemon is started; the
 * read token's menus offer nothing it cannot do. A wrong token is refused in plain words.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';
import { openVsCode, tempDir, waitFor, type VsCode } from './harness';
import { answer, expand, openSpoolView, openWorkbench, queuesPane, row, rowAt, runCommand, screenshot, statusBarText } from './support/workbench';

const folder = tempDir('spool-remote-');
let daemon: TestDaemon;
let local: SpoolClient;
let endpoint: string;
let token: string;
let vscode: VsCode;
let page: Page;

before(async () => {
  daemon = await startDaemon({ args: ['--listen', '127.0.0.1:0'] });
  local = await daemon.client();
  const status = await local.call('daemon.status');
  endpoint = `tls://${status.listen ?? ''}`;
  const created = await runCli(['token', 'create', 'editor', '--scope', 'read', '--json'], { socketPath: daemon.socketPath });
  assert.equal(created.code, 0, created.stderr);
  token = (JSON.parse(created.stdout) as { token: string }).token;
  await local.call('queues.configure', { name: 'on-the-build-box' });
  await local.call('queues.pause', { name: 'on-the-build-box' });
  await local.call('jobs.enqueueBatch', { jobs: [1, 2, 3].map((n) => ({ queue: 'on-the-build-box', kind: 'remote-kind', payload: { n } })) });
  vscode = await openVsCode({
    settings: {
      // A local socket nobody listens at, with auto-start on: a remote endpoint must win, and
      // nothing may be started here.
      'spool.socketPath': path.join(folder.dir, 'local.sock'),
      'spool.databasePath': path.join(folder.dir, 'local.db'),
      'spool.autoStartDaemon': true,
      'spool.endpoint': endpoint,
      'spool.tlsFingerprint': status.tlsFingerprint ?? '',
    },
  });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
  folder.remove();
});

test('with no token stored, the extension says so, and its button asks for the token in a password box', async () => {
  const toast = page.locator('.notification-toast', { hasText: `needs an access token for ${endpoint}` }).first();
  await toast.waitFor({ timeout: 60_000 });
  await screenshot(page, 'remote-no-token.png');
  assert.match(await statusBarText(page), new RegExp(`Spool: ${endpoint.replace(/[.]/g, '\\.')} not connected`));
  await toast.locator('.monaco-button', { hasText: 'Set Access Token' }).click();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(await input.getAttribute('type'), 'password', 'the token is typed into a password box');
  await answer(page, token, { expect: `Access token for ${endpoint}` });
});

test("the Queues view shows the remote daemon's queue with its counts, and says which daemon it shows", async () => {
  await waitFor('the status bar to show the remote counts', async () => /0 running · 3 queued/.test(await statusBarText(page)), { timeoutMs: 60_000 });
  await openSpoolView(page);
  const queue = row(page, /on-the-build-box/);
  await queue.waitFor({ timeout: 30_000 });
  const label = ((await queue.getAttribute('aria-label')) ?? '').replace(/\s+/g, ' ');
  assert.match(label, /on-the-build-box/);
  assert.match(label, /paused/i);
  assert.match(label, /3 queued/);
  const header = queuesPane(page).locator('.pane-header');
  await waitFor('the Queues view to name the endpoint', async () => ((await header.textContent()) ?? '').includes(endpoint), { timeoutMs: 15_000 });
  await screenshot(page, 'remote-queues.png');
  assert.equal(fs.existsSync(path.join(folder.dir, 'local.sock')), false, 'no local daemon was started');
});

test('a read token: the menus and the inline buttons offer nothing it cannot do', async () => {
  const queue = row(page, /on-the-build-box/);
  // A paused queue offers Resume inline to a token that may change it; a read token gets none.
  await queue.hover();
  assert.equal(await queue.locator('.action-label[aria-label^="Resume Queue"]').count(), 0);
  await expand(queue);
  const queued = rowAt(page, 2, 'Queued ');
  await queued.waitFor({ timeout: 30_000 });
  await expand(queued);
  const job = rowAt(page, 3, 'remote-kind');
  await job.waitFor({ timeout: 30_000 });
  await job.click({ button: 'right' });
  const menu = page.locator('.context-view .monaco-menu');
  await menu.locator('.action-item', { hasText: 'Copy Job Id' }).first().waitFor({ timeout: 15_000 });
  for (const hidden of ['Cancel Job', 'Delete Job', 'Edit & Re-enqueue Job']) assert.equal(await menu.locator('.action-item', { hasText: hidden }).count(), 0, `${hidden} is not offered`);
  await screenshot(page, 'remote-read-token-menu.png');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached', timeout: 15_000 });
});

test('a wrong token is refused in plain words, offering to set it again', async () => {
  await runCommand(page, 'Spool: Set Access Token for Remote Daemon');
  await answer(page, 'not-the-token', { expect: `Access token for ${endpoint}` });
  const toast = page.locator('.notification-toast', { hasText: `The daemon at ${endpoint} refused the access token` }).first();
  await toast.waitFor({ timeout: 60_000 });
  assert.ok(await toast.locator('.monaco-button', { hasText: 'Set Access Token' }).isVisible());
  await screenshot(page, 'remote-wrong-token.png');
  assert.match(daemon.log(), /Refused a login with a wrong token/, 'the daemon logged the refusal');
  assert.doesNotMatch(daemon.log(), /not-the-token/, 'without the token itself');
});
