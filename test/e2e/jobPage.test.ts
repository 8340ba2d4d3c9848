/**
 * The job page, driven as a user drives it with playwright-core in code-server: a job opened from
 * the Queues view shows its title, state, attempts, runs and output; Retry on the page retries a
 * dead job; the page follows a running job to its end; Open as JSON and Show live output open
 * their documents; a job opened again is revealed, and a deleted one says so. The jobs are real
 * shell jobs run by a real daemon. Screenshots go to .test-artifacts/ (job-page.png is the one
 * docs/vscode.md shows).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, waitFor, type VsCode } from './harness';
import { jobPageFrame, pageButtons, pageState, pageText, runRows, tabLabels } from './support/jobPage';
import { expand, openSpoolView, openWorkbench, row, rowAt, screenshot, widenSideBar, uiTestOn } from './support/workbench';

const uiTest = uiTestOn(() => page);

let daemon: TestDaemon;
let client: SpoolClient;
let vscode: VsCode;
let page: Page;
/** The dead `builds` job: fails with exit code 3 on both its attempts. */
let dead: Job;

const BUILD_COMMAND = 'echo compiling; echo "warning: flaky test" >&2; exit 3';
const BUILD_TITLE = `builds › ${BUILD_COMMAND}`;
/** Runs until the test creates $GO; short enough for the title to hold it whole. */
const FOLLOW_COMMAND = 'echo started; until [ -f $GO ]; do sleep .1; done; echo end';
const FOLLOW_TITLE = `follow › ${FOLLOW_COMMAND}`;

async function settled(id: string, states: readonly Job['state'][]): Promise<Job> {
  return waitFor(`job ${id} to be ${states.join(' or ')}`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return states.includes(job.state) ? job : null;
  }, { timeoutMs: 30_000 });
}

/**
 * Collapse or expand a tree row, clicking again if a click went astray: the tree re-renders as
 * the daemon's events arrive (the retried job above), and a row can move under the pointer.
 */
async function setExpanded(rowLocator: Locator, expanded: boolean): Promise<void> {
  const want = String(expanded);
  await waitFor(`the row to be ${expanded ? 'expanded' : 'collapsed'}`, async () => {
    if ((await rowLocator.getAttribute('aria-expanded')) === want) return true;
    // A hover card of the last row clicked can lie over this one: move the pointer off first.
    await page.mouse.move(0, 0);
    await rowLocator.click({ timeout: 2000 });
    return false;
  }, { timeoutMs: 20_000, intervalMs: 500 });
}

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
  const { job } = await client.call('jobs.enqueue', {
    queue: 'builds',
    kind: 'shell',
    payload: { command: BUILD_COMMAND },
    maxAttempts: 2,
    backoff: { strategy: 'fixed', baseMs: 100, jitter: 0 },
    priority: 5,
    tags: ['ci', 'nightly'],
    context: { branch: 'main', commit: '3f2c9a1b7e4d5c6f8a9b0c1d2e3f4a5b6c7d8e9f', origin: 'cli' },
  });
  dead = await settled(job.id, ['dead']);
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

uiTest('a job opened from the Queues view shows its title, state, attempts, runs and output', async () => {
  await openSpoolView(page);
  const builds = rowAt(page, 1, 'builds ');
  await builds.waitFor({ timeout: 30_000 });
  await expand(builds);
  await expand(rowAt(page, 2, 'Dead '));
  const jobRow = row(page, /echo compiling/);
  await jobRow.waitFor({ timeout: 15_000 });
  await widenSideBar(page, 120);
  await jobRow.click();
  const frame = await jobPageFrame(page, BUILD_TITLE);
  assert.equal(await pageState(frame), 'dead');
  const text = await pageText(frame);
  assert.match(text, /dead — Died after 2 attempts: The command exited with code 3\./);
  assert.match(text, /Queue builds Kind shell Command echo compiling;/);
  assert.match(text, /Priority 5 Attempts 2\/2 Created /);
  assert.match(text, /Enqueued from branch main, commit 3f2c9a1b7e4d/);
  assert.match(text, /Tags ci nightly/);
  assert.equal(await runRows(frame), 2);
  assert.match(await pageText(frame, 'table.runs'), /1 1 builtin\S* .* failed exit code 3 The command exited with code 3\..*2 2 builtin/);
  assert.match(await pageText(frame, '#output'), /^compiling warning: flaky test --- run 2 \(attempt 2\) --- compiling warning: flaky test$/);
  assert.deepEqual(await pageButtons(frame), ['retry', 'editAndRequeue', 'delete', 'copyId', 'openJson']);
  assert.ok((await tabLabels(page)).includes(BUILD_TITLE), `the tab is titled by the job: ${(await tabLabels(page)).join(' | ')}`);
  // The relative times keep moving while the page is open ("12s ago", then "13s ago"; past a
  // minute, "1m ago" becomes "2m ago" within 30 s).
  const created = frame.locator('[data-time="created"]');
  const before = await created.textContent();
  assert.match(before ?? '', /^\d+[smhd] ago$/);
  await waitFor('the relative time to move on', async () => (await created.textContent()) !== before, { timeoutMs: 35_000 });
  await screenshot(page, 'job-page.png');
});

uiTest('Show live output opens the output named after the job, ending with how it ended', async () => {
  const frame = await jobPageFrame(page, BUILD_TITLE);
  await frame.locator('a[data-action="showOutput"]').click();
  await waitFor('the output tab', async () => (await tabLabels(page)).includes(`${BUILD_TITLE} (output)`), { timeoutMs: 15_000 });
  const editor = page.locator('.editor-instance .view-lines', { hasText: 'the job died' }).first();
  await editor.waitFor({ timeout: 15_000 });
  // The editor renders spaces as non-breaking spaces.
  assert.match(((await editor.textContent()) ?? '').replace(/\s+/g, ' '), /compiling.*--- the job died: The command exited with code 3\. ---/);
});

uiTest('Open as JSON opens the job and its runs as a JSON document', async () => {
  await page.locator('.tabs-container .tab', { hasText: BUILD_TITLE }).filter({ hasNotText: '(output)' }).first().click();
  const frame = await jobPageFrame(page, BUILD_TITLE);
  await frame.locator('button[data-action="openJson"]').click();
  await waitFor('the JSON tab', async () => (await tabLabels(page)).includes(`${dead.id}.json`), { timeoutMs: 15_000 });
  const editor = page.locator('.editor-instance .view-lines', { hasText: '"state"' }).first();
  await editor.waitFor({ timeout: 15_000 });
  assert.match(((await editor.textContent()) ?? '').replace(/\s+/g, ' '), /"state": "dead"/);
});

uiTest('Retry on the page of a dead job retries it, and the page follows it to its end', async () => {
  await page.locator('.tabs-container .tab', { hasText: BUILD_TITLE }).filter({ hasNotText: '(output)' }).first().click();
  const frame = await jobPageFrame(page, BUILD_TITLE);
  await frame.locator('button[data-action="retry"]').click();
  await waitFor('the retried job to run twice more and die again', async () => {
    const { job, runs } = await client.call('jobs.get', { id: dead.id });
    return runs.length === 4 && job.state === 'dead';
  }, { timeoutMs: 30_000 });
  await waitFor('the page to show the new runs', async () => (await runRows(frame)) === 4 && (await pageState(frame)) === 'dead', { timeoutMs: 15_000 });
  assert.match(await pageText(frame, 'table.runs'), /4 2 builtin\S* .* failed exit code 3/);
});

uiTest('the page follows a running job to its end, with the buttons its state allows', async () => {
  const go = path.join(vscode.server.scratch, 'go-on');
  const { job } = await client.call('jobs.enqueue', {
    queue: 'follow',
    kind: 'shell',
    payload: { command: FOLLOW_COMMAND, env: { GO: go } },
  });
  await settled(job.id, ['running']);
  // The builds queue's groups come first; with it collapsed, the first Running group is follow's.
  await setExpanded(rowAt(page, 1, 'builds '), false);
  const follow = rowAt(page, 1, 'follow ');
  await follow.waitFor({ timeout: 30_000 });
  await setExpanded(follow, true);
  await setExpanded(rowAt(page, 2, 'Running '), true);
  const running = row(page, /echo started/);
  await running.waitFor({ timeout: 15_000 });
  await running.click();
  const frame = await jobPageFrame(page, FOLLOW_TITLE);
  assert.equal(await pageState(frame), 'running');
  assert.deepEqual(await pageButtons(frame), ['cancel', 'pause', 'editAndRequeue', 'copyId', 'openJson']);
  await waitFor('the first line on the page', async () => (await pageText(frame, '#output')) === 'started', { timeoutMs: 15_000 });
  fs.writeFileSync(go, '');
  await waitFor('the page to show the job completed', async () => (await pageState(frame)) === 'completed', { timeoutMs: 30_000 });
  await waitFor('the last line on the page', async () => (await pageText(frame, '#output')) === 'started end', { timeoutMs: 15_000 });
  assert.deepEqual(await pageButtons(frame), ['retry', 'editAndRequeue', 'delete', 'copyId', 'openJson']);
  assert.match(await pageText(frame), /completed — Completed in /);
  assert.equal(await runRows(frame), 1);
});

uiTest('a job opened again is revealed, not opened twice; a deleted job says it was deleted', async () => {
  const { jobs } = await client.call('jobs.list', { queue: 'follow' });
  const followed = jobs[0];
  assert.ok(followed);
  // Opening the dead job again from its row brings its page forward.
  await setExpanded(rowAt(page, 1, 'follow '), false);
  await setExpanded(rowAt(page, 1, 'builds '), true);
  await setExpanded(rowAt(page, 2, 'Dead '), true);
  await row(page, /echo compiling/).click();
  await jobPageFrame(page, BUILD_TITLE);
  assert.equal((await tabLabels(page)).filter((t) => t === BUILD_TITLE).length, 1);
  // The followed job's page is in the background while the job is deleted.
  await client.call('jobs.delete', { id: followed.id });
  await page.locator('.tabs-container .tab', { hasText: FOLLOW_TITLE }).first().click();
  const frame = await jobPageFrame(page, FOLLOW_TITLE);
  await waitFor('the page to say the job was deleted', async () => (await pageText(frame)).startsWith('This job was deleted.'), { timeoutMs: 15_000 });
  assert.deepEqual(await pageButtons(frame), ['copyId']);
  assert.equal(await pageState(frame), 'completed', 'the page keeps what it last showed');
});
