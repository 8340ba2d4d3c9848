/**
 * Groups and bulk actions in code-server, driven as a user drives them, against a real daemon:
 * a `tenants` queue with groupConcurrency 2 where a worker runs two jobs of customer:42 (two more
 * wait) and one of customer:7, and an `emails` queue with three dead jobs.
 *
 * - the Queues view lists the group keys of `tenants` with their counts and the limit, and a
 *   group expands to its jobs;
 * - the dashboard's health row says which groups are at their limit (read from the webview);
 * - Act on All Matching Jobs on `emails` under the filter state:dead asks with the daemon's count
 *   first ("Retry 3 jobs matching state=dead queue=emails?") and retries them all.
 *
 * Screenshots go to .test-artifacts/ (tree-groups.png, dashboard-groups.png and
 * bulk-matching.png are the ones docs/vscode.md shows).
 */
import * as assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, waitFor, type VsCode } from './harness';
import { dashboardFrame } from './support/dashboard';
import { pageText } from './support/jobPage';
import { answer, ariaLabel, contextMenu, expand, openSpoolView, openWorkbench, queuesPane, rowAt, runCommand, screenshot, uiTestOn, widenSideBar } from './support/workbench';

const uiTest = uiTestOn(() => page, 'groups-');

let daemon: TestDaemon;
let client: SpoolClient;
let vscode: VsCode;
let page: Page;

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
  await client.call('queues.configure', { name: 'tenants', groupConcurrency: 2 });
  await client.call('jobs.enqueueBatch', {
    jobs: [
      ...[1, 2, 3, 4].map((n) => ({ queue: 'tenants', kind: 'report', group: 'customer:42', payload: { n } })),
      { queue: 'tenants', kind: 'report', group: 'customer:7', payload: { n: 5 } },
    ],
  });
  await client.call('workers.register', { workerId: 'tenant-worker', queues: ['tenants', 'emails'], kinds: ['report', 'mail'] });
  const claimed = await client.call('jobs.claim', { workerId: 'tenant-worker', queues: ['tenants'], kinds: ['report'], max: 10 });
  assert.deepEqual(claimed.jobs.map((j) => j.group).sort(), ['customer:42', 'customer:42', 'customer:7'], 'two of customer:42 (its limit) and customer:7 run');
  for (const n of [1, 2, 3]) await client.call('jobs.enqueue', { queue: 'emails', kind: 'mail', payload: { to: `user${n}@example.com` }, maxAttempts: 1 });
  const mails = await client.call('jobs.claim', { workerId: 'tenant-worker', queues: ['emails'], kinds: ['mail'], max: 10 });
  for (const job of mails.jobs) await client.call('jobs.fail', { id: job.id, workerId: 'tenant-worker', error: 'SMTP 550: mailbox unavailable' });
  assert.equal((await client.call('queues.get', { name: 'emails' })).queue.counts.dead, 3);
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  page = await openWorkbench(vscode);
});
after(async () => {
  client?.close();
  await vscode?.close();
  await daemon?.dispose();
});

uiTest('a group-limited queue lists its groups with their waiting and running counts and the limit, and a group expands to its jobs', async () => {
  await openSpoolView(page);
  await widenSideBar(page, 160);
  const queue = rowAt(page, 1, 'tenants ');
  await queue.waitFor({ timeout: 30_000 });
  await expand(queue);
  const full = rowAt(page, 2, 'customer:42 ');
  await full.waitFor({ timeout: 15_000 });
  assert.match(await ariaLabel(full), /^customer:42 2 waiting · 2 running · limit 2/);
  assert.match(await ariaLabel(rowAt(page, 2, 'customer:7 ')), /^customer:7 0 waiting · 1 running · limit 2/);
  // The state groups stay below the group keys, as in a queue without groups.
  await rowAt(page, 2, 'Running ').waitFor({ timeout: 15_000 });
  await expand(full);
  const jobs = queuesPane(page).locator('.monaco-list-row[aria-level="3"]');
  await waitFor('the four jobs of customer:42', async () => (await jobs.count()) === 4, { timeoutMs: 15_000 });
  const labels = await jobs.evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
  assert.equal(labels.filter((l) => /running/.test(l)).length, 2, labels.join(' | '));
  await screenshot(page, 'tree-groups.png');
});

uiTest('the dashboard\'s health row says which groups are at their limit, in words', async () => {
  await runCommand(page, 'Spool: Open Dashboard');
  const frame = await dashboardFrame(page);
  const row = frame.locator('table.health tr.queue[data-queue="tenants"]');
  await row.waitFor({ timeout: 30_000 });
  assert.equal(await row.locator('[data-field="waiting"]').textContent(), '2');
  assert.equal(await row.locator('[data-field="running"]').textContent(), '3');
  const warnings = frame.locator('table.health tr.warnings[data-queue="tenants"] p.warning');
  await warnings.first().waitFor({ timeout: 30_000 });
  const said = await warnings.evaluateAll((ps) => ps.map((p) => (p.textContent ?? '').replace(/\s+/g, ' ').trim()));
  assert.ok(said.includes('⚠ 2 jobs wait in a group at its limit: customer:42 (2 of 2 running).'), said.join(' | '));
  assert.doesNotMatch(await pageText(frame, 'table.health'), /customer:7/, 'customer:7 is at its limit but nothing of it waits');
  await screenshot(page, 'dashboard-groups.png');
  await runCommand(page, 'View: Close All Editors');
});

uiTest('Act on All Matching Jobs under state:dead shows the daemon\'s count first, then retries every dead job of the queue', async () => {
  await runCommand(page, 'Spool: Filter Jobs');
  await answer(page, 'state:dead', { expect: 'state:' });
  const queue = rowAt(page, 1, 'emails ');
  await queue.waitFor({ timeout: 30_000 });
  // The tree has redrawn under the filter (a right-click on a row being replaced opens no menu).
  await rowAt(page, 2, 'Dead ').waitFor({ timeout: 30_000 });
  await contextMenu(page, queue, 'Act on All Matching Jobs');
  await answer(page, 'Retry', { expect: 'What to do with every job matching state=dead queue=emails' });
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(((await dialog.textContent()) ?? '').replace(/\s+/g, ' '), /Retry 3 jobs matching state=dead queue=emails\?/);
  await screenshot(page, 'bulk-matching.png');
  await dialog.locator('.monaco-button', { hasText: /^Retry$/ }).click();
  await waitFor('the three dead jobs to be retried', async () => {
    const { queue: emails } = await client.call('queues.get', { name: 'emails' });
    return emails.counts.dead === 0 && emails.counts.queued === 3;
  }, { timeoutMs: 30_000 });
});
