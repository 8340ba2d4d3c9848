/**
 * The Queues, Schedules and Workers trees as a user scans and searches them, driven with
 * playwright-core in code-server: empty groups hidden, state-first descriptions and accessible
 * labels, relative times that move, the dead-jobs badge, a filter that narrows the tree like the
 * Testing view's (with its message and one-click clear, and the state toggles of the title
 * menu), Retry All Dead only where something is dead, Delete Queue and the Delete and Enter keys,
 * expansion kept across a daemon restart and a reload, the built-in executors alive, and the
 * Schedules view following schedules changed from the CLI. Screenshots go to .test-artifacts/.
 */
import * as assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../integration/cli-run';
import { openVsCode, waitFor, type VsCode } from './harness';
import { enqueueMany, seedReports } from './support/seed';
import { ariaLabel, collapse, collapseView, contextMenu, expand, openSpoolView, openWorkbench, queuesPane, row, rowAt, runCommand, answer, screenshot, widenSideBar, uiTestOn } from './support/workbench';

const uiTest = uiTestOn(() => page, 'tree-');

let daemon: TestDaemon;
let vscode: VsCode;
let page: Page;

before(async () => {
  daemon = await startDaemon();
  const client = await daemon.client();
  await seedReports(client);
  // Queue `misc`: three jobs of a kind no worker runs, and nothing dead.
  await enqueueMany(client, 3, (n) => ({ queue: 'misc', kind: 'misc', payload: { n } }));
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

/** A view of the Spool container by its title. */
function pane(title: string): Locator {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: title }) }).first();
}

/** Labels of the rendered rows at a depth of the Queues view, top to bottom. */
async function labelsAt(level: number): Promise<string[]> {
  // Read in one go: rows are re-rendered while the tree refreshes, so counting them and then
  // reading each could ask for a row that is gone.
  const rows = queuesPane(page).locator(`.monaco-list-row[aria-level="${level}"]`);
  return rows.evaluateAll((elements) => elements.map((e) => e.getAttribute('aria-label') ?? ''));
}

/** The Queues view's message (what the filter shows), or '' when there is none. */
async function viewMessage(): Promise<string> {
  const message = queuesPane(page).locator('.message');
  if ((await message.count()) === 0 || !(await message.first().isVisible())) return '';
  return ((await message.first().textContent()) ?? '').trim();
}

/** Click an action of the Queues view's title bar (shown while the pointer is over the header). */
async function titleAction(label: string): Promise<void> {
  await queuesPane(page).locator('.pane-header').hover();
  await queuesPane(page).locator(`.pane-header .action-label[aria-label="${label}"]`).click();
}

/** Choose an entry of the Queues view's "…" title menu. */
async function titleMenu(entry: string): Promise<void> {
  await queuesPane(page).locator('.pane-header').hover();
  await queuesPane(page).locator('.pane-header .action-label[aria-label="More Actions..."]').click();
  const item = page.locator(`.context-view .monaco-menu .action-item:has(.action-label[aria-label="${entry}"])`).first();
  await item.waitFor({ timeout: 15_000 });
  await item.hover();
  await waitFor(`the "${entry}" menu entry to take focus`, async () => ((await item.getAttribute('class')) ?? '').includes('focused'), { timeoutMs: 10_000 });
  await page.keyboard.press('Enter');
  await item.waitFor({ state: 'detached', timeout: 15_000 });
}

/** The entries of a row's context menu, then closes it. */
async function contextEntries(rowLocator: Locator): Promise<string[]> {
  await rowLocator.click({ button: 'right' });
  const menu = page.locator('.context-view .monaco-menu');
  await menu.waitFor({ timeout: 15_000 });
  const entries = (await menu.locator('.action-item .action-label').allTextContents()).map((t) => t.trim()).filter((t) => t !== '');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached', timeout: 15_000 });
  return entries;
}

uiTest('empty state groups are hidden; descriptions put the state first; rows read out their text and state', async () => {
  await openSpoolView(page);
  await widenSideBar(page, 260);
  const reports = rowAt(page, 1, 'reports ');
  await reports.waitFor({ timeout: 30_000 });
  await expand(reports);
  await rowAt(page, 2, 'Dead ').waitFor({ timeout: 15_000 });
  // Retrying and Cancelled hold no jobs: they are not shown.
  assert.deepEqual(await labelsAt(2), ['Running 1', 'Queued 3', 'Delayed 1', 'Dead 2', 'Completed 1']);
  await expand(rowAt(page, 2, 'Dead '));
  await expand(rowAt(page, 2, 'Running '));
  const dead = row(page, /report: \{"month":"2026-01"/);
  await dead.waitFor({ timeout: 15_000 });
  // The accessible label is what the row shows and the job's state; the description starts with the error.
  assert.match(await ariaLabel(dead), /^report: \{"month":"2026-01","doomed":true\}, dead, the report template is missing · \d+[sm] ago · attempt 1\/3$/);
  const running = row(page, /sleep 600/);
  assert.match(await ariaLabel(running), /^sleep 600, running, running \d+(s|m\d*s?) · attempt 1\/3$/);
  assert.match((await running.locator('.label-description').textContent()) ?? '', /^running \d+/);
  await screenshot(page, 'tree-descriptions.png');
});

uiTest('relative times keep moving while the view is visible', async () => {
  const running = row(page, /sleep 600/);
  const before = await ariaLabel(running);
  await waitFor('the running time to move on', async () => (await ariaLabel(running)) !== before, { timeoutMs: 30_000 });
});

uiTest('the Spool container shows the number of dead jobs as a badge, with a tooltip', async () => {
  const item = page.locator('.activitybar .action-item', { has: page.locator('[aria-label^="Spool"]') }).first();
  const badge = item.locator('.badge .badge-content');
  await waitFor('the badge to count 2 dead jobs', async () => ((await badge.textContent()) ?? '').trim() === '2', { timeoutMs: 15_000 });
  const label = (await item.locator('.action-label').first().getAttribute('aria-label')) ?? '';
  assert.match(label, /2 dead jobs/);
});

uiTest('Retry All Dead is offered only where there are dead jobs; Delete Queue on every queue', async () => {
  const misc = rowAt(page, 1, 'misc ');
  await misc.waitFor({ timeout: 15_000 });
  const miscMenu = await contextEntries(misc);
  assert.ok(miscMenu.includes('Delete Queue…'), miscMenu.join(', '));
  assert.ok(!miscMenu.includes('Retry All Dead Jobs'), miscMenu.join(', '));
  const reportsMenu = await contextEntries(rowAt(page, 1, 'reports '));
  assert.ok(reportsMenu.includes('Retry All Dead Jobs'), reportsMenu.join(', '));
  // From the palette, the pick lists only the queues with dead jobs.
  await runCommand(page, 'Spool: Retry All Dead Jobs');
  const picks = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  const pickInput = page.locator('.quick-input-widget .quick-input-box input');
  await waitFor('the pick of queues with dead jobs', async () => (await picks.count()) > 0 && (await pickInput.getAttribute('placeholder')) === 'Retry the dead jobs of which queue?', { timeoutMs: 15_000 });
  const offered = await picks.evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
  assert.equal(offered.length, 1, offered.join(' | '));
  assert.match(offered[0] ?? '', /^reports.*2 dead/);
  await page.keyboard.press('Escape');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
});

uiTest('the filter narrows the tree to its matches, expanded, says so in the message, and clears in one click', async () => {
  await collapse(rowAt(page, 1, 'reports '));
  await runCommand(page, 'Spool: Filter Jobs…');
  // The dead jobs' error says "template"; nothing else does.
  await answer(page, 'template', { expect: 'state:dead kind:shell' });
  await waitFor('only the matching queue, its one group and its two jobs', async () => {
    const [queues, groups, jobs] = [await labelsAt(1), await labelsAt(2), await labelsAt(3)];
    return queues.join('|') === 'reports 2 matching' && groups.join('|') === 'Dead 2' && jobs.length === 2;
  }, { timeoutMs: 15_000 });
  await waitFor('the message to say what is filtered', async () => (await viewMessage()).startsWith('Filtered ("template"): 2 matching jobs in 1 queue.'), { timeoutMs: 10_000 });
  await screenshot(page, 'tree-filtered.png');
  await titleAction('Clear Job Filter');
  await waitFor('every queue back, with no message', async () => (await labelsAt(1)).length === 2 && (await viewMessage()) === '', { timeoutMs: 15_000 });
  // The user's own layout is back: `reports` was collapsed before the filter.
  assert.equal(await rowAt(page, 1, 'reports ').getAttribute('aria-expanded'), 'false');
});

uiTest('a filter without matches says so, with a link that clears it', async () => {
  // First a filter that matches, as a user narrows a search: the view shows its message...
  await runCommand(page, 'Spool: Filter Jobs…');
  await answer(page, 'template', { expect: 'state:dead kind:shell' });
  await waitFor('the message to say what is filtered', async () => (await viewMessage()).startsWith('Filtered ("template")'), { timeoutMs: 15_000 });
  // ...then one that matches nothing: VS Code shows a view's welcome text (with the link) only
  // while the view has no message, so the message must go.
  await runCommand(page, 'Spool: Filter Jobs…');
  await answer(page, 'no-such-text-anywhere', { expect: 'state:dead kind:shell' });
  const link = queuesPane(page).locator('.welcome-view-content a, .welcome-view-content .monaco-button', { hasText: 'Clear Job Filter' }).first();
  await link.waitFor({ timeout: 15_000 });
  assert.match(((await queuesPane(page).locator('.welcome-view-content').first().textContent()) ?? '').replace(/\s+/g, ' '), /No jobs match the filter\./);
  await link.click();
  await rowAt(page, 1, 'misc ').waitFor({ timeout: 15_000 });
});

uiTest('"Only Dead Jobs" and "Only Running Jobs" in the title menu show one state, and toggle off', async () => {
  await titleMenu('Only Dead Jobs');
  await waitFor('only the queue with dead jobs, showing its Dead group', async () => (await labelsAt(1)).join('|').startsWith('reports ') && (await labelsAt(1)).length === 1 && (await labelsAt(2)).join('|') === 'Dead 2', { timeoutMs: 15_000 });
  await titleMenu('Only Running Jobs');
  await waitFor('only the Running group', async () => (await labelsAt(2)).join('|') === 'Running 1', { timeoutMs: 15_000 });
  await waitFor('the message to say what is filtered', async () => (await viewMessage()).startsWith('Filtered (state: running): 1 matching job in 1 queue.'), { timeoutMs: 10_000 });
  await screenshot(page, 'tree-only-running.png');
  // While on, the menu offers it checked; choosing it turns it off.
  await titleMenu('✓ Only Running Jobs');
  await waitFor('every queue back', async () => (await labelsAt(1)).length === 2 && (await viewMessage()) === '', { timeoutMs: 15_000 });
});

uiTest('Delete Queue asks first, naming how many jobs go with it, then deletes it', async () => {
  await contextMenu(page, rowAt(page, 1, 'misc '), 'Delete Queue…');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(((await dialog.textContent()) ?? '').replace(/\s+/g, ' '), /Delete queue misc\? This deletes the 3 jobs it holds and their history\./);
  await screenshot(page, 'tree-delete-queue.png');
  await dialog.locator('.monaco-button', { hasText: 'Delete Queue' }).click();
  await waitFor('the queue to leave the tree', async () => (await rowAt(page, 1, 'misc ').count()) === 0, { timeoutMs: 15_000 });
  const { queues } = await (await daemon.client()).call('queues.list');
  assert.ok(!queues.some((q) => q.name === 'misc'));
});

uiTest('Enter opens the focused job; Delete asks first, then deletes the selected one', async () => {
  // The queues expanded by the tests before fill the view: give the Queues view the Schedules
  // and Workers views' height while this test looks below them, and open them again after.
  await collapseView(page, 'Schedules');
  await collapseView(page, 'Workers');
  const reports = rowAt(page, 1, 'reports ');
  await expand(reports);
  const completedGroup = rowAt(page, 2, 'Completed ');
  await expand(completedGroup);
  const finished = row(page, /^echo finished/);
  await finished.waitFor({ timeout: 15_000 });
  // As a keyboard user: focus the group (a click toggles it, so open it again), go down, Enter.
  await completedGroup.click();
  await expand(completedGroup);
  await page.keyboard.press('ArrowDown');
  await waitFor('the job to have the focus', async () => ((await finished.getAttribute('class')) ?? '').includes('focused'), { timeoutMs: 10_000 });
  const { jobs } = await (await daemon.client()).call('jobs.list', { queue: 'reports', states: ['completed'] });
  const id = jobs[0]?.id ?? '';
  const tabs = page.locator('.tabs-container .tab');
  const tabsBefore = await tabs.count();
  await page.keyboard.press('Enter');
  await waitFor('the job to open in an editor', async () => (await tabs.count()) > tabsBefore, { timeoutMs: 15_000 });
  assert.equal(await finished.getAttribute('aria-selected'), 'true');
  // Back to the tree, the job still selected: Delete asks, naming the job as the tree shows it.
  await runCommand(page, 'Spool: Focus on Queues View');
  await page.keyboard.press('Delete');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(((await dialog.textContent()) ?? '').replace(/\s+/g, ' '), /Delete job "echo finished" \(\w{8}\) and its run history\?/);
  await dialog.locator('.monaco-button', { hasText: 'Delete' }).first().click();
  await waitFor('the job to be deleted', async () => {
    const client = await daemon.client();
    return client.call('jobs.get', { id }).then(
      () => false,
      () => true,
    );
  }, { timeoutMs: 15_000 });
  await waitFor('the emptied Completed group to disappear', async () => (await rowAt(page, 2, 'Completed ').count()) === 0, { timeoutMs: 15_000 });
  for (const title of ['Schedules', 'Workers']) {
    const header = page.locator('.pane-header', { hasText: title }).first();
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click({ position: { x: 20, y: 10 } });
    await waitFor(`the ${title} view to open again`, async () => (await header.getAttribute('aria-expanded')) === 'true', { timeoutMs: 10_000 });
  }
});

uiTest('expanded queues and groups stay expanded across a daemon restart and a reload', async () => {
  const reports = rowAt(page, 1, 'reports ');
  await expand(reports);
  await expand(rowAt(page, 2, 'Dead '));
  await collapse(rowAt(page, 2, 'Running '));
  await daemon.restart();
  await waitFor('the tree to come back expanded after the restart', async () => (await reports.getAttribute('aria-expanded')) === 'true' && (await rowAt(page, 2, 'Dead ').getAttribute('aria-expanded')) === 'true', { timeoutMs: 60_000 });
  assert.equal(await rowAt(page, 2, 'Running ').getAttribute('aria-expanded'), 'false');
  await page.reload();
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  // The reloaded window restores the side bar with the Spool view in it. (Clicking the activity
  // bar item would hide it again, and while the extension activates a progress badge covers it.)
  await queuesPane(page).locator('.pane-header').waitFor({ timeout: 60_000 });
  await waitFor('the tree to come back expanded after the reload', async () => (await reports.getAttribute('aria-expanded')) === 'true' && (await rowAt(page, 2, 'Dead ').getAttribute('aria-expanded')) === 'true', { timeoutMs: 60_000 });
  assert.equal(await rowAt(page, 2, 'Running ').getAttribute('aria-expanded'), 'false');
});

uiTest('the built-in executors show as alive while the daemon runs', async () => {
  const workers = pane('Workers');
  const header = workers.locator('.pane-header');
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click({ position: { x: 20, y: 10 } });
  const builtin = workers.locator('.monaco-list-row[aria-label*="builtin"]').first();
  await builtin.waitFor({ timeout: 30_000 });
  assert.match(await ariaLabel(builtin), /builtin · .* · alive$/);
});

uiTest('the Schedules view follows schedules added, disabled, enabled and removed from the CLI', async () => {
  const schedules = pane('Schedules');
  const header = schedules.locator('.pane-header');
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click({ position: { x: 20, y: 10 } });
  await schedules.locator('.monaco-list-row[aria-label^="nightly "]').waitFor({ timeout: 30_000 });
  const spool = async (args: string[]): Promise<void> => {
    const result = await runCli(args, { socketPath: daemon.socketPath });
    assert.equal(result.code, 0, `spool ${args.join(' ')}: ${result.stderr}`);
  };
  const weekly = schedules.locator('.monaco-list-row[aria-label^="weekly "]');
  await spool(['schedule', 'add', 'weekly', '--cron', '0 9 * * 1', '--queue', 'reports', '--shell', 'echo weekly']);
  await weekly.waitFor({ timeout: 15_000 });
  await screenshot(page, 'tree-schedule-from-cli.png');
  await spool(['schedule', 'disable', 'weekly']);
  await waitFor('the schedule to show disabled', async () => (await ariaLabel(weekly)).endsWith('disabled'), { timeoutMs: 15_000 });
  await spool(['schedule', 'enable', 'weekly']);
  await waitFor('the schedule to show enabled', async () => /next in/.test(await ariaLabel(weekly)), { timeoutMs: 15_000 });
  await spool(['schedule', 'rm', 'weekly']);
  await waitFor('the deleted schedule to disappear', async () => (await weekly.count()) === 0, { timeoutMs: 15_000 });
});

/** The README's screenshot of the Queues view (docs/images/vscode-queues.png is copied from it). */
uiTest('the Queues view with running and dead jobs, for the README', async () => {
  const reports = rowAt(page, 1, 'reports ');
  await expand(reports);
  await expand(rowAt(page, 2, 'Running '));
  await expand(rowAt(page, 2, 'Dead '));
  await row(page, /sleep 600/).waitFor({ timeout: 15_000 });
  await widenSideBar(page, 200);
  // Away from the side bar's edge, which is highlighted while the pointer is over it.
  await page.mouse.move(1100, 700);
  await screenshot(page, 'tree-queues.png');
});
