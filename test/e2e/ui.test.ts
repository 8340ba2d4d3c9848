/**
 * The extension driven as a user drives it, with playwright-core in code-server: open the Spool
 * view, read the seeded queue, enqueue a shell job through the command palette, retry a dead
 * job and cancel a running one from their context menus, watch the status bar follow, page a
 * large group with "Load more…" and filter it. Screenshots go to .test-artifacts/.
 */
import * as assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, waitFor, type VsCode } from './harness';
import { jobPageFrame, pageText } from './support/jobPage';
import { enqueueMany, seedReports } from './support/seed';
import { answer, ariaLabel, collapse, collapseView, contextMenu, expand, openSpoolView, openWorkbench, queuesPane, row, rowAt, runCommand, screenshot, statusBarText, widenSideBar, uiTestOn, clickRowUntil } from './support/workbench';

const uiTest = uiTestOn(() => page);

let daemon: TestDaemon;
let vscode: VsCode;
let page: Page;

before(async () => {
  daemon = await startDaemon();
  await seedReports(await daemon.client());
  // A page of 10 jobs keeps the paging test short; the seeded groups hold fewer than that.
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false, 'spool.pageSize': 10 } });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

uiTest('the Spool view shows the seeded queue with its counts, and the status bar the totals', async () => {
  await openSpoolView(page);
  const reports = rowAt(page, 1, 'reports ');
  await reports.waitFor({ timeout: 30_000 });
  assert.equal(await ariaLabel(reports), 'reports 1 running · 3 queued · 1 delayed · 2 dead');
  await expand(reports);
  await rowAt(page, 2, 'Dead ').waitFor({ timeout: 15_000 });
  assert.equal(await ariaLabel(rowAt(page, 2, 'Running ')), 'Running 1');
  assert.equal(await ariaLabel(rowAt(page, 2, 'Queued ')), 'Queued 3');
  assert.equal(await ariaLabel(rowAt(page, 2, 'Dead ')), 'Dead 2');
  await waitFor('the status bar counts', async () => (await statusBarText(page)) === '1 running · 3 queued · 2 dead');
  await expand(rowAt(page, 2, 'Dead '));
  const deadJob = row(page, /report: \{"month"/);
  await deadJob.waitFor({ timeout: 15_000 });
  await widenSideBar(page, 220);
  // A click opens the job's page: its state, its error and its run history.
  await deadJob.click();
  const jobPage = await jobPageFrame(page, /^reports › report \{"month":"2026-0\d","doomed":true\}$/);
  await waitFor('the job page to show the error', async () => (await pageText(jobPage)).includes('the report template is missing'), { timeoutMs: 15_000 });
  await screenshot(page, 'ui-queues.png');
});

uiTest('a dead job retried from its context menu leaves the Dead group', async () => {
  const deadJob = row(page, /report: \{"month":"2026-0\d","doomed":true\}/);
  await contextMenu(page, deadJob, 'Retry Job');
  await waitFor('the Dead group to count one job', async () => (await ariaLabel(rowAt(page, 2, 'Dead '))) === 'Dead 1', { timeoutMs: 15_000 });
  assert.equal(await ariaLabel(rowAt(page, 2, 'Queued ')), 'Queued 4');
  await waitFor('the status bar to follow', async () => (await statusBarText(page)) === '1 running · 4 queued · 1 dead', { timeoutMs: 10_000 });
  await screenshot(page, 'ui-retry.png');
});

uiTest('a running job cancelled from its context menu ends cancelled', async () => {
  await expand(rowAt(page, 2, 'Running '));
  const running = row(page, /sleep 600/);
  await running.waitFor({ timeout: 15_000 });
  await contextMenu(page, running, 'Cancel Job');
  await waitFor('the Cancelled group to count the job', async () => (await ariaLabel(rowAt(page, 2, 'Cancelled '))) === 'Cancelled 1', { timeoutMs: 30_000 });
  // With nothing running, the Running group is hidden.
  await waitFor('the empty Running group to disappear', async () => (await rowAt(page, 2, 'Running ').count()) === 0, { timeoutMs: 10_000 });
  await waitFor('the status bar to show nothing running', async () => (await statusBarText(page)) === '0 running · 4 queued · 1 dead', { timeoutMs: 10_000 });
});

uiTest('a shell job enqueued through the palette quick pick appears, runs and completes', async () => {
  await runCommand(page, 'Spool: Enqueue Job…');
  await answer(page, 'ui-demo', { expect: 'Queue: pick one or type a new name' });
  await answer(page, 'shell', { expect: 'Kind of job' });
  await answer(page, 'echo hello from the palette; sleep 1', { expect: 'Shell command to run', screenshot: 'ui-enqueue-command.png' });
  await answer(page, '', { expect: 'Options (optional)' });
  const queue = rowAt(page, 1, 'ui-demo ');
  await queue.waitFor({ timeout: 30_000 });
  await waitFor('the job to complete', async () => (await ariaLabel(queue)) === 'ui-demo 1 completed', { timeoutMs: 60_000 });
  await collapse(rowAt(page, 1, 'reports '));
  await expand(queue);
  await expand(rowAt(page, 2, 'Completed '));
  await row(page, /echo hello from the palette; sleep 1/).waitFor({ timeout: 15_000 });
  const { jobs } = await (await daemon.client()).call('jobs.list', { queue: 'ui-demo' });
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0]?.state, 'completed');
  assert.deepEqual(jobs[0]?.payload, { command: 'echo hello from the palette; sleep 1', cwd: vscode.server.workspace });
  await screenshot(page, 'ui-enqueued.png');
});

uiTest('a job enqueued here that ends dead raises a warning with Retry and Show Output', async () => {
  await waitFor('the extension to be connected', async () => (await statusBarText(page)).includes('running'), { timeoutMs: 60_000 });
  await runCommand(page, 'Spool: Enqueue Job…');
  await answer(page, 'ui-demo', { expect: 'Queue: pick one or type a new name' });
  await answer(page, 'shell', { expect: 'Kind of job' });
  await answer(page, 'echo about to fail; exit 3', { expect: 'Shell command to run' });
  await answer(page, 'attempts=1', { expect: 'Options (optional)' });
  const toast = page.locator('.notification-toast', { hasText: 'is dead' }).first();
  await toast.waitFor({ timeout: 60_000 });
  assert.match((await toast.textContent()) ?? '', /Spool: shell job \S+ in ui-demo failed after 1 attempt and is dead\./);
  await screenshot(page, 'ui-dead-notification.png');
  await toast.locator('.monaco-button', { hasText: 'Show Output' }).click();
  const editor = page.locator('.editor-instance .view-lines', { hasText: 'about to fail' }).first();
  await editor.waitFor({ timeout: 30_000 });
  // The editor renders spaces as non-breaking spaces.
  assert.match(((await editor.textContent()) ?? '').replace(/\s+/g, ' '), /about to fail.*--- the job died: The command exited with code 3\. ---/);
});

uiTest('Purge Queue asks first, saying how many jobs it would delete', async () => {
  await contextMenu(page, rowAt(page, 1, 'ui-demo '), 'Purge Queue…');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(((await dialog.textContent()) ?? '').replace(/\s+/g, ' '), /Purge queue ui-demo\? This deletes 2 jobs and their history\./);
  await screenshot(page, 'ui-purge-confirmation.png');
  await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached', timeout: 15_000 });
  const { jobs } = await (await daemon.client()).call('jobs.list', { queue: 'ui-demo' });
  assert.equal(jobs.length, 2, 'nothing was purged');
});

/**
 * How many rows the tree holds under the parent of the rendered rows at `level` (their
 * aria-setsize). The list only renders the rows in sight, so counting row elements would not do.
 */
async function rowsAtLevel(page: Page, level: number): Promise<number> {
  const first = queuesPane(page).locator(`.monaco-list-row[aria-level="${level}"]`).first();
  if ((await first.count()) === 0) return 0;
  return Number(await first.getAttribute('aria-setsize'));
}

uiTest('"Load more…" shows the next page of a large group in the tree', async () => {
  // Queue `paged`: 25 queued `report` jobs, then 3 of kind `other`; neither kind is ever run.
  await enqueueMany(await daemon.client(), 28, (n) => ({ queue: 'paged', kind: n < 25 ? 'report' : 'other', payload: { n } }));
  // The tree only renders the rows in sight: make room for the group's 21 rows.
  await collapseView(page, 'Schedules');
  await collapseView(page, 'Workers');
  for (const name of ['reports ', 'ui-demo ']) {
    const queue = rowAt(page, 1, name);
    if ((await queue.count()) > 0) await collapse(queue);
  }
  const paged = rowAt(page, 1, 'paged ');
  await paged.waitFor({ timeout: 30_000 });
  await expand(paged);
  const queued = rowAt(page, 2, 'Queued ');
  await waitFor('the Queued group to count 28 jobs', async () => (await ariaLabel(queued)) === 'Queued 28', { timeoutMs: 15_000 });
  await expand(queued);
  const more = rowAt(page, 3, 'Load more… ');
  await more.waitFor({ timeout: 15_000 });
  assert.equal(await ariaLabel(more), 'Load more… 10 of 28');
  assert.equal(await rowsAtLevel(page, 3), 11, 'one page of jobs and "Load more…"');
  await clickRowUntil(more, 'the tree to show the second page', async () => (await ariaLabel(more)) === 'Load more… 20 of 28' && (await rowsAtLevel(page, 3)) === 21);
  await screenshot(page, 'ui-load-more.png');
});

uiTest('under a kind filter, groups count the matches and "Load more…" claims no total', async () => {
  // Builds on the previous test: queue `paged` is expanded, its Queued group open on 20 jobs.
  // `"n":` keeps the filter to `paged`'s jobs: the `report` jobs of `reports` hold months.
  const queued = rowAt(page, 2, 'Queued ');
  const more = rowAt(page, 3, 'Load more… ');
  await runCommand(page, 'Spool: Filter Jobs…');
  await answer(page, 'kind:report "n":', { expect: 'state:dead kind:shell' });
  // The group counts the matches of the jobs it lists: 20 of the 25, and more to load.
  await waitFor('the Queued group to count its matches so far', async () => (await ariaLabel(queued)) === 'Queued 20+', { timeoutMs: 15_000 });
  await waitFor('"Load more…" to count the jobs shown', async () => (await ariaLabel(more)) === 'Load more… 20 shown' && (await rowsAtLevel(page, 3)) === 21, { timeoutMs: 15_000 });
  await screenshot(page, 'ui-filtered.png');
  await clickRowUntil(more, 'the 25 matching jobs, with no "Load more…"', async () => (await rowsAtLevel(page, 3)) === 25 && (await more.count()) === 0);
  await waitFor('the Queued group to count all 25 matches', async () => (await ariaLabel(queued)) === 'Queued 25', { timeoutMs: 15_000 });

  await runCommand(page, 'Spool: Filter Jobs…');
  // The input starts from the filter in force, so it can be adjusted rather than typed again.
  const filterInput = page.locator('.quick-input-widget .quick-input-box input');
  await waitFor('the filter input to hold the filter in force', async () => (await filterInput.inputValue()) === 'kind:report "n":', { timeoutMs: 15_000 });
  await answer(page, 'kind:other', { expect: 'state:dead kind:shell' });
  await waitFor('the 3 jobs of kind other', async () => (await rowsAtLevel(page, 3)) === 3, { timeoutMs: 15_000 });
  assert.equal(await ariaLabel(queued), 'Queued 3');

  // An empty filter clears it, and the count is back.
  await runCommand(page, 'Spool: Filter Jobs…');
  await answer(page, '', { expect: 'state:dead kind:shell' });
  await waitFor('the Queued group to count 28 jobs again', async () => (await ariaLabel(queued)) === 'Queued 28', { timeoutMs: 15_000 });
});
