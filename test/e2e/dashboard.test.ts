/**
 * The dashboard and the job timeline in code-server, driven as a user drives them: a real daemon
 * runs a known workload (a `charts` queue with three jobs that complete and two that die, a
 * `flaky` job that fails twice then succeeds, and a `resize` job in `images` that no worker
 * takes). Spool: Open Dashboard shows each queue's health with the warning for `images` in
 * words, and charts whose data (the series the page drew, kept in `data-series`) add up to the
 * workload; the flaky job's page shows its three runs as a waterfall. Screenshots go to
 * .test-artifacts/ (dashboard.png and job-timeline.png are the ones docs/vscode.md shows).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, tempDir, waitFor, type VsCode } from './harness';
import { dashboardFrame } from './support/dashboard';
import { jobPageFrame, pageText } from './support/jobPage';
import { expand, openSpoolView, openWorkbench, queuesPane, row, rowAt, runCommand, screenshot, uiTestOn, widenSideBar } from './support/workbench';

const uiTest = uiTestOn(() => page, 'dashboard-');

let daemon: TestDaemon;
let client: SpoolClient;
let vscode: VsCode;
let page: Page;
let work: { dir: string; remove: () => void };
let flaky: Job;
/** Whether the daemon answers `stats.history` (it keeps history): the charts need it. */
let keepsHistory = false;

async function settled(id: string, states: readonly Job['state'][]): Promise<Job> {
  return waitFor(`job ${id} to be ${states.join(' or ')}`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return states.includes(job.state) ? job : null;
  }, { timeoutMs: 60_000 });
}

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
  work = tempDir('spool-dash-');
  const counter = path.join(work.dir, 'n');
  const ended: Promise<Job>[] = [];
  for (const command of ['true', 'true', 'true', 'exit 2', 'exit 2']) {
    const { job } = await client.call('jobs.enqueue', { queue: 'charts', kind: 'shell', payload: { command }, maxAttempts: 1 });
    ended.push(settled(job.id, ['completed', 'dead']));
  }
  // Fails on its first two runs, succeeds on the third.
  const { job } = await client.call('jobs.enqueue', {
    queue: 'flaky',
    kind: 'shell',
    payload: { command: `n=$(($(cat ${counter} 2>/dev/null || echo 0)+1)); echo $n > ${counter}; [ $n -ge 3 ]` },
    maxAttempts: 3,
    backoff: { strategy: 'fixed', baseMs: 300, jitter: 0 },
  });
  flaky = await settled(job.id, ['completed', 'dead']);
  await Promise.all(ended);
  await client.call('jobs.enqueue', { queue: 'images', kind: 'resize', payload: { file: 'a.png' } });
  keepsHistory = await client.call('stats.history', { from: 0, to: 60_000, step: 'minute' }).then(
    () => true,
    () => false,
  );
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  page = await openWorkbench(vscode);
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
  work?.remove();
});

uiTest('Open Dashboard shows each queue\'s health, and why the resize job in images waits, in words', async () => {
  await openSpoolView(page);
  await rowAt(page, 1, 'charts ').waitFor({ timeout: 30_000 });
  await runCommand(page, 'Spool: Open Dashboard');
  const frame = await dashboardFrame(page);
  const images = frame.locator('table.health tr.queue[data-queue="images"]');
  await images.waitFor({ timeout: 30_000 });
  assert.equal(await images.locator('[data-field="waiting"]').textContent(), '1');
  assert.match((await images.locator('[data-field="oldest"]').textContent()) ?? '', /^\d/);
  assert.equal(flaky.state, 'completed');
  const warning = await pageText(frame, 'table.health tr.warnings[data-queue="images"]');
  assert.equal(warning, '⚠ 1 job of kind resize waits: no worker takes kind resize on queue images.');
  assert.equal(await frame.locator('table.health tr.warnings[data-queue="charts"]').count(), 0, 'nothing waits in charts: no warning');
  if (!keepsHistory) assert.match(await pageText(frame), /history could not be read|keeps no history/);
  // The charts' test takes it again with the charts drawn, when the daemon keeps history.
  await screenshot(page, 'dashboard.png');
});

/** The series a chart of the page drew, as it keeps them in `data-series`. */
async function drawnSeries(frame: Frame, chart: string): Promise<{ label: string; values: (number | null)[] }[]> {
  const box = frame.locator(`section.chart[data-chart="${chart}"]`);
  await box.waitFor({ timeout: 30_000 });
  await waitFor(`the ${chart} chart to be drawn`, async () => (await box.locator('canvas').count()) > 0 && (await box.getAttribute('data-series')) !== null, { timeoutMs: 30_000 });
  return JSON.parse((await box.getAttribute('data-series')) ?? '[]') as { label: string; values: (number | null)[] }[];
}

function total(series: { label: string; values: (number | null)[] }[], label: string): number {
  return (series.find((s) => s.label === label)?.values ?? []).reduce<number>((t, v) => t + (v ?? 0), 0);
}

test('the charts show the workload: throughput by outcome adds up to the jobs that ran, one line per queue', async (t) => {
  if (!keepsHistory) {
    t.skip('the daemon does not answer stats.history: it keeps no history yet');
    return;
  }
  try {
    const frame = await dashboardFrame(page);
    // Three completed in charts and the flaky job's success; its two failures; two dead in charts.
    await waitFor('the throughput to add up', async () => {
      const s = await drawnSeries(frame, 'throughput');
      return total(s, 'completed') === 4 && total(s, 'failed') === 2 && total(s, 'dead') === 2 && total(s, 'cancelled') === 0;
    }, { timeoutMs: 30_000 });
    const times = JSON.parse((await frame.locator('section.chart[data-chart="throughput"]').getAttribute('data-times')) ?? '[]') as number[];
    assert.equal(times.length, 60, 'the last hour, a point a minute');
    const failures = await drawnSeries(frame, 'failures');
    assert.deepEqual(failures.map((s) => s.label), ['charts', 'flaky', 'images']);
    assert.ok(failures.find((s) => s.label === 'charts')?.values.includes(40), 'charts: 2 of 5 failed in a minute');
    await screenshot(page, 'dashboard.png');
  } catch (error) {
    await screenshot(page, 'failed-dashboard-charts.png');
    throw error;
  }
});

uiTest('the job page of a job that failed twice then succeeded shows its three runs as a waterfall', async () => {
  // The Spool icon toggles the side bar: clicked only when the Queues view is not showing.
  if (!(await queuesPane(page).isVisible())) await openSpoolView(page);
  await widenSideBar(page, 120);
  const queue = rowAt(page, 1, 'flaky ');
  await queue.waitFor({ timeout: 30_000 });
  await expand(queue);
  await expand(rowAt(page, 2, 'Completed '));
  const jobRow = row(page, /counter|cat /);
  await jobRow.waitFor({ timeout: 15_000 });
  await jobRow.click();
  const frame = await jobPageFrame(page, /^flaky › /, { ready: async (f) => (await f.locator('.waterfall').count()) > 0 });
  const rows = frame.locator('.waterfall .wf-row');
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-run'), e.getAttribute('data-outcome')])), [
    ['1', 'failed'],
    ['2', 'failed'],
    ['3', 'completed'],
  ]);
  const words = await pageText(frame, '.waterfall');
  assert.match(words, /run 1 · attempt 1 waited in the queue \S+ · ran \S+, failed run 2 · attempt 2 backoff and queue \S+ · ran \S+, failed run 3 · attempt 3 backoff and queue \S+ · ran \S+, completed/);
  // The 300 ms backoff shows: the waits before runs 2 and 3 are drawn, as wide as they lasted.
  assert.equal(await frame.locator('.waterfall rect.wait-backoff').count(), 2);
  await screenshot(page, 'job-timeline.png');
});
