/**
 * Feedback after every action, driven as a user drives it in code-server: Enqueue Job through
 * its numbered steps (a typo refused inline and corrected, Back used), the note naming the job
 * with Show Output, Enqueue Current File asking for the queue (and hidden with no file open),
 * three deaths in quick succession reported as one notification, Stop Daemon asking first, and
 * the Schedules and Workers views saying why they are empty once the daemon is gone.
 * Screenshots go to .test-artifacts/ (feedback-enqueue-steps.png is the README's Enqueue image).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, waitFor, type VsCode } from './harness';
import { killJobs } from './support/seed';
import { answer, contextMenu, openSpoolView, openWorkbench, runCommand, screenshot, statusBarText, widenSideBar, uiTestOn } from './support/workbench';

const uiTest = uiTestOn(() => page, 'feedback-');

let daemon: TestDaemon;
let vscode: VsCode;
let page: Page;

before(async () => {
  daemon = await startDaemon();
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  page = await openWorkbench(vscode);
  await showSpool();
  await waitFor('the extension to be connected', async () => (await statusBarText(page)).includes('running'), { timeoutMs: 60_000 });
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

function quickInput(): { widget: Locator; input: Locator; title: Locator; message: Locator; rows: Locator } {
  const widget = page.locator('.quick-input-widget');
  return {
    widget,
    input: widget.locator('.quick-input-box input'),
    title: widget.locator('.quick-input-title'),
    message: widget.locator('.quick-input-message'),
    rows: widget.locator('.monaco-list-row'),
  };
}

async function textOf(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Waits until the open quick input's title says `text` (the step it shows). */
async function atStep(text: string): Promise<void> {
  await waitFor(`the quick input at "${text}"`, async () => (await textOf(quickInput().title)).includes(text), { timeoutMs: 15_000 });
}

/** Opens the Spool view unless it shows already (a click on its icon then would close it). */
async function showSpool(): Promise<void> {
  if (await page.locator('.pane-header', { hasText: 'Queues' }).first().isVisible()) return;
  await openSpoolView(page);
}

/** A notification toast whose text matches. */
function toast(text: RegExp | string): Locator {
  return page.locator('.notification-toast', { hasText: text });
}

uiTest('Enqueue Job: a typo is refused as it is typed and kept, Back returns to the kind, and each step says where it is', async () => {
  const q = quickInput();
  await runCommand(page, 'Spool: Enqueue Job…');
  await atStep('Spool: Enqueue Job — step 1 of 4');
  // A space is not allowed in a queue name: the problem replaces the "New queue" item at once.
  await q.input.fill('fb demo');
  await waitFor('the queue name to be refused inline', async () => (await textOf(q.rows.first())).includes('"fb demo" is not a valid queue name'), { timeoutMs: 10_000 });
  await page.keyboard.press('Enter');
  // Enter on the problem does nothing: the step and what was typed stay.
  await atStep('step 1 of 4');
  assert.equal(await q.input.inputValue(), 'fb demo');
  await answer(page, 'fb-demo');

  await atStep('step 2 of 4');
  await answer(page, 'http', { expect: 'Kind of job' });
  await atStep('step 3 of 7');
  await q.input.fill('example.com/hook');
  await waitFor('the URL to be refused inline', async () => (await textOf(q.rows.first())).includes('is not a URL'), { timeoutMs: 10_000 });
  // Changed our mind: Back to the kind, which keeps the answer it had.
  await q.widget.locator('.codicon-quick-input-back').first().click();
  await atStep('step 2 of 7');
  await answer(page, 'shell', { expect: 'Kind of job' });
  await atStep('step 3 of 4');
  await answer(page, 'echo hello from the steps', { expect: 'Shell command to run' });

  await atStep('step 4 of 4');
  // A bare number is not a duration, here as in the CLI.
  await q.input.fill('delay=30');
  await waitFor('the delay to be refused inline', async () => (await textOf(q.message)).includes('delay is not a duration: a number needs a unit'), { timeoutMs: 10_000 });
  // Out of the way of the title, where a hover would show a tooltip over it.
  await page.mouse.move(700, 600);
  await screenshot(page, 'feedback-enqueue-steps.png');
  await page.keyboard.press('Enter');
  await atStep('step 4 of 4');
  assert.equal(await q.input.inputValue(), 'delay=30');
  await answer(page, 'attempts=1');

  const note = toast('Spool: enqueued shell job').first();
  await note.waitFor({ timeout: 30_000 });
  assert.match(await textOf(note), /Spool: enqueued shell job [0-9a-f]{8} \(echo hello from the steps\) in fb-demo\./);
  await screenshot(page, 'feedback-enqueued-note.png');
  await note.locator('.monaco-button', { hasText: 'Show Output' }).click();
  await page.locator('.editor-instance .view-lines', { hasText: 'hello from the steps' }).first().waitFor({ timeout: 30_000 });
  const { jobs } = await (await daemon.client()).call('jobs.list', { queue: 'fb-demo' });
  assert.equal(jobs.length, 1);
  assert.deepEqual(jobs[0]?.payload, { command: 'echo hello from the steps', cwd: vscode.server.workspace });
  assert.equal(jobs[0]?.maxAttempts, 1);
});

uiTest('Enqueue Current File asks for the queue, offers the last one first, and is hidden with no file open', async () => {
  const q = quickInput();
  const script = path.join(vscode.server.workspace, 'fb-run.sh');
  fs.writeFileSync(script, '#!/bin/sh\necho ran from a file\n');
  // From the Explorer's context menu first.
  await page.keyboard.press('Control+Shift+E');
  const fileRow = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'fb-run.sh' }).first();
  await fileRow.waitFor({ timeout: 30_000 });
  await contextMenu(page, fileRow, 'Enqueue Current File as Shell Job');
  await atStep('Spool: Enqueue fb-run.sh');
  await answer(page, 'fb-files', { expect: 'Queue: pick one or type a new name' });
  const note = toast(/in fb-files\./).first();
  await note.waitFor({ timeout: 30_000 });
  assert.match(await textOf(note), /Spool: enqueued shell job [0-9a-f]{8} \(\/bin\/sh '.*\) in fb-files\./);

  // Then from the palette with the file open: the queue used last in this workspace comes
  // first, so Enter takes it.
  await fileRow.click();
  await page.locator('.tab', { hasText: 'fb-run.sh' }).first().waitFor({ timeout: 15_000 });
  await runCommand(page, 'Spool: Enqueue Current File as Shell Job');
  await atStep('Spool: Enqueue fb-run.sh');
  await waitFor('the last queue to be offered first', async () => ((await q.rows.first().getAttribute('aria-label')) ?? '').startsWith('fb-files'), { timeoutMs: 15_000 });
  await page.keyboard.press('Escape');

  await runCommand(page, 'View: Close All Editors');
  await page.keyboard.press('F1');
  await q.input.fill('>Spool: Enqueue Current File');
  // The palette answers with "similar commands" (Enqueue Job…) or none at all, never this one.
  await waitFor('the palette to answer', async () => /No matching commands|Spool: Enqueue Job/.test(await textOf(q.widget)), { timeoutMs: 15_000 });
  assert.equal(await q.widget.locator('.monaco-list-row[aria-label^="Spool: Enqueue Current File"]').count(), 0, 'the command is hidden with no file open');
  await page.keyboard.press('Escape');
  const { jobs } = await (await daemon.client()).call('jobs.list', { queue: 'fb-files' });
  assert.equal(jobs.length, 1, 'the second enqueue was cancelled');
  await showSpool();
});

uiTest('three jobs that die within a few seconds raise one notification, with Retry All and Show', async () => {
  await showSpool();
  for (let i = 0; i < 3; i++) {
    await runCommand(page, 'Spool: Enqueue Job…');
    await answer(page, 'fb-bulk', { expect: 'Queue: pick one or type a new name' });
    await answer(page, 'custom', { expect: 'Kind of job' });
    await answer(page, 'doomed', { expect: 'The job kind your workers claim' });
    await answer(page, `{"n":${i}}`, { expect: 'JSON payload' });
    await answer(page, '', { expect: 'Options (optional)' });
    await waitFor(`job ${i + 1} to be enqueued`, async () => (await (await daemon.client()).call('jobs.list', { queue: 'fb-bulk' })).jobs.length === i + 1, { timeoutMs: 15_000 });
  }
  await runCommand(page, 'Notifications: Clear All Notifications');
  // A worker fails all three at once, as a bad deploy would.
  await killJobs(await daemon.client(), 'fb-bulk', 'doomed', 3, 'the disk is full');
  const merged = toast('jobs in fb-bulk died').first();
  await merged.waitFor({ timeout: 30_000 });
  assert.equal(await textOf(merged.locator('.notification-list-item-message')), 'Spool: 3 jobs in fb-bulk died: the disk is full …');
  assert.equal(await toast('is dead').count(), 0, 'no notification per job');
  assert.equal(await merged.locator('.monaco-button', { hasText: 'Retry All' }).count(), 1);
  assert.equal(await merged.locator('.monaco-button', { hasText: /^Show$/ }).count(), 1);
  await screenshot(page, 'feedback-merged-deaths.png');
  await merged.locator('.monaco-button', { hasText: 'Retry All' }).click();
  await waitFor('the three jobs to be queued again', async () => {
    const { jobs } = await (await daemon.client()).call('jobs.list', { queue: 'fb-bulk', states: ['queued'] });
    return jobs.length === 3;
  });
});

uiTest('Create Schedule shows the cron in words and its next fire times in its zone and locally, then reuses the job steps', async () => {
  const q = quickInput();
  await showSpool();
  await runCommand(page, 'Spool: Create Schedule…');
  await atStep('Spool: Create Schedule — step 1 of 7');
  await answer(page, 'fb-nightly', { expect: 'Schedule name' });
  await answer(page, 'Europe/Paris', { expect: 'Time zone' });
  await atStep('step 3 of 7');
  await q.input.fill('0 27 * * *');
  await waitFor('the hour to be refused inline', async () => (await textOf(q.message)).includes('hour field'), { timeoutMs: 10_000 });
  await q.input.fill('0 3 * * *');
  // The times are the daemon's zone's and the editor's; the test reads their shape, not the date.
  const preview = /^Every day at 03:00\. Next: (\w{3} \d{1,2} \w{3} \d{4} 03:00, ){2}\w{3} \d{1,2} \w{3} \d{4} 03:00 \(Europe\/Paris\)(; .* \(local, .*\))?\.$/;
  await waitFor('the cron in words with its next fire times', async () => preview.test(await textOf(q.message)), { timeoutMs: 10_000 });
  await page.mouse.move(700, 600);
  await screenshot(page, 'feedback-schedule-cron.png');
  await page.keyboard.press('Enter');
  await answer(page, 'fb-sched', { expect: 'Queue: pick one or type a new name' });
  await answer(page, 'shell', { expect: 'Kind of job' });
  await answer(page, 'echo nightly from the steps', { expect: 'Shell command to run' });
  await atStep('step 7 of 7');
  await answer(page, 'delay=5m', { expect: 'Options (optional)' });
  // A schedule's job has no delay (the schedule says when): refused inline, and kept.
  await waitFor('the delay option to be refused', async () => (await textOf(q.message)).includes('Unknown option "delay"'), { timeoutMs: 10_000 });
  assert.equal(await q.input.inputValue(), 'delay=5m');
  await answer(page, 'attempts=2');
  await toast('schedule fb-nightly created').first().waitFor({ timeout: 30_000 });
  const { schedule } = await (await daemon.client()).call('schedules.get', { name: 'fb-nightly' });
  assert.equal(schedule.cron, '0 3 * * *');
  assert.equal(schedule.timezone, 'Europe/Paris');
  assert.equal(schedule.queue, 'fb-sched');
  assert.deepEqual(schedule.job, { kind: 'shell', payload: { command: 'echo nightly from the steps', cwd: vscode.server.workspace }, maxAttempts: 2 });
});

uiTest('Stop Daemon asks first; once stopped, the Schedules and Workers views say why they are empty', async () => {
  await showSpool();
  await runCommand(page, 'Spool: Stop Daemon');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await textOf(dialog), /Stop the Spool daemon\? It serves every VS Code window and terminal using it, not only this one\./);
  await screenshot(page, 'feedback-stop-confirmation.png');
  await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached', timeout: 15_000 });
  assert.equal((await (await daemon.client()).call('daemon.status')).pid > 0, true, 'the daemon still answers');

  await runCommand(page, 'Spool: Stop Daemon');
  await dialog.waitFor({ timeout: 15_000 });
  await dialog.locator('.monaco-button', { hasText: 'Stop Daemon' }).click();
  await waitFor('the status bar to say disconnected', async () => (await statusBarText(page)).includes('disconnected'), { timeoutMs: 60_000 });
  const schedules = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Schedules' }) }).first();
  const workers = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Workers' }) }).first();
  await schedules.locator('.welcome-view-content', { hasText: 'Schedules are kept by the Spool daemon, which is not running.' }).waitFor({ timeout: 15_000 });
  await workers.locator('.welcome-view-content', { hasText: 'Workers connect to the Spool daemon, which is not running.' }).waitFor({ timeout: 15_000 });
  await widenSideBar(page, 120);
  await screenshot(page, 'feedback-disconnected-views.png');
});
