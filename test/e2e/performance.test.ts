/**
 * The editor with a large daemon: with 100,000 jobs in one queue, the queue, its Queued group and
 * a text filter show what they should; a job page with 50 runs and 10,000 output lines shows every
 * run and the output's last line; the extension host's memory stays flat while 10,000 jobs
 * complete (host/memory.ts). Each timed path prints its times; their targets (1 s for the tree,
 * 500 ms for the page) are held by `SPOOL_BENCH_PART=editor npm run bench`, which measures the
 * same paths (support/editorTiming.ts) over more rounds.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, runHostSuite, type VsCode } from './harness';
import { reportHostRun } from './support/hostRun';
import { clearFilter, longHistoryRow, seedEditorScenario, timeBigQueue, timeFilter, timeJobPageOpen } from './support/editorTiming';
import { enqueueMany } from './support/seed';
import { ariaLabel, openSpoolView, openWorkbench, rowAt, screenshot } from './support/workbench';

let daemon: TestDaemon;
let vscode: VsCode;
let page: Page;

before(async () => {
  daemon = await startDaemon();
  const client = await daemon.client();
  await seedEditorScenario(client);
  await enqueueMany(client, 10_000, (i) => ({ queue: 'flood', kind: 'noop', payload: { n: i } }));
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
});
after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

test('with 100,000 jobs in a queue, the queue and its Queued group open on the first page', async () => {
  page = await openWorkbench(vscode);
  await openSpoolView(page);
  assert.equal(await ariaLabel(rowAt(page, 1, 'big ')), 'big 100000 queued');
  const { queue, group } = await timeBigQueue(page, 3);
  assert.equal(await ariaLabel(rowAt(page, 2, 'Queued ')), 'Queued 100000');
  await screenshot(page, 'perf-100k.png');
  console.log(`expand queue: ${queue.join(', ')} ms, expand group: ${group.join(', ')} ms; the targets are held by npm run bench`);
});

test('with 100,000 jobs in a queue, a text filter shows its one match', async () => {
  const times = await timeFilter(page, [42_421, 77_777, 99_998]);
  assert.equal(await ariaLabel(rowAt(page, 1, 'big ')), 'big 1 matching');
  await screenshot(page, 'perf-filter-100k.png');
  await clearFilter(page);
  console.log(`filter 100,000 jobs: ${times.join(', ')} ms; the target is held by npm run bench`);
});

// The open time is held to its 500 ms target by `SPOOL_BENCH_PART=editor npm run bench` (seven
// rounds, median and range printed): as a test limit it passed at 478 ms and failed at 723 ms in
// two runs on the same quiet machine. Here the page must show all 50 runs and the output's last
// line each of three times it opens, and the figures are printed.
test('a job page with 50 runs and 10,000 output lines opens with every run and the last line shown', async () => {
  // `big` is open from the first test, with its Queued group's page of 50 jobs above `pages`.
  const jobRow = await longHistoryRow(page, [rowAt(page, 1, 'big ')]);
  const { figures, totals } = await timeJobPageOpen(page, jobRow, 3);
  await screenshot(page, 'perf-job-page.png');
  assert.equal(figures.length, 3);
  console.log(`open a job page (50 runs, 10,000 output lines): ${figures.join(', ')} ms without the webview's bootstrap request (with it: ${totals.join(', ')} ms); the target is held by npm run bench`);
});

test('refreshes only while visible, and extension-host memory while 10,000 jobs complete', async (t) => {
  const run = await runHostSuite(vscode.server, vscode.browser, path.join(__dirname, 'host', 'memory.ts'), { socketPath: daemon.socketPath });
  console.log(run.log.split('\n').filter((l) => l.includes('heap before')).join('\n'));
  await reportHostRun(t, run, ['a hidden Queues view is not refreshed; it refreshes once when shown again', 'extension-host memory stays flat while 10,000 jobs complete']);
});
