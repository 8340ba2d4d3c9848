/**
 * The editor's timed paths, measured in the browser as a user sees them: with 100,000 jobs in a
 * queue, expanding the queue and its Queued group, and a text filter finding one job; and opening
 * the page of a job with 50 runs and 10,000 output lines, from the click on its row to the page
 * showing its runs and the output's last line. Shared by the e2e test (which checks that each
 * shows what it should) and `SPOOL_BENCH_PART=editor npm run bench` (which holds the times to
 * their targets): a wall-clock limit belongs in the benchmark, where rounds are several and the
 * figure is printed with its range, not in a test a busy machine fails.
 *
 * VS Code 1.100 in the browser (code-server) starts every webview but the first of a window about
 * a second late, whatever the webview shows: the request for its bootstrap page
 * (`webview/browser/pre/fake.html`) answers at once and then takes ~990 ms to end (measured here:
 * responseStart 4 ms, responseEnd 990 ms; the first webview's ends in 25 ms). It happens before
 * the page's own document is written, it is the same for every extension's webview, and desktop
 * VS Code loads webviews without that request. So the figure is the time from the click to the
 * page showing its runs and output, less the time that request took; both are kept.
 */
import type { Frame, Locator, Page, Request } from 'playwright-core';
import type { SpoolClient } from '../../../shared/client/client';
import { jobPageFrame, runRows } from './jobPage';
import { enqueueMany, seedJobHistory } from './seed';
import { waitFor } from './wait';
import { answer, ariaLabel, collapse, expand, queuesPane, row, rowAt, runCommand } from './workbench';

/** The job both callers open: 50 runs of 200 lines, the 10,000 lines the daemon keeps of a job. */
export const LONG_HISTORY = { queue: 'pages', kind: 'suite', payload: { suite: 'integration' }, runs: 50, linesPerRun: 200 } as const;
const TITLE = 'pages › suite {"suite":"integration"}';
const LAST_LINE = 'run 50 line 200: checking suite 14';

/** The `big` queue's 100,000 jobs, never claimed (no worker serves kind `bulk`), and the long-history job. */
export async function seedEditorScenario(client: SpoolClient): Promise<void> {
  await enqueueMany(client, BIG_QUEUE_JOBS, (i) => ({ queue: 'big', kind: 'bulk', payload: { n: i } }));
  await seedJobHistory(client, { ...LONG_HISTORY, payload: { ...LONG_HISTORY.payload } });
}

export const BIG_QUEUE_JOBS = 100_000;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/**
 * Times from a click on a collapsed row to its first child being shown, after Refresh dropped
 * every loaded page (so the group's page is fetched from the daemon each time), `rounds` times.
 */
export async function timeExpand(page: Page, parent: Locator, firstChild: Locator, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await collapse(parent);
    // The view's title actions show while the pointer is over its header.
    await queuesPane(page).locator('.pane-header').hover();
    await queuesPane(page).locator('.pane-header .action-label[aria-label="Refresh Queues"]').click();
    await rowAt(page, 1, 'big ').waitFor({ timeout: 10_000 });
    const started = Date.now();
    await parent.click();
    await firstChild.waitFor({ timeout: 10_000 });
    times.push(Date.now() - started);
  }
  return times;
}

/** The `big` queue and its Queued group opened, each timed `rounds` times. */
export async function timeBigQueue(page: Page, rounds: number): Promise<{ queue: number[]; group: number[] }> {
  const big = rowAt(page, 1, 'big ');
  await big.waitFor({ timeout: 60_000 });
  const queue = await timeExpand(page, big, rowAt(page, 2, 'Queued '), rounds);
  const group = await timeExpand(page, rowAt(page, 2, 'Queued '), row(page, /^bulk: \{"n":0\}/), rounds);
  return { queue, group };
}

/**
 * Time from Enter in the filter's input box to the matching job being shown, the tree narrowed
 * and expanded to it; one round per `n`, each looking for another job so no page loaded before
 * helps. The filter is cleared afterwards, and the unfiltered tree waited for.
 */
export async function timeFilter(page: Page, ns: number[]): Promise<number[]> {
  const times: number[] = [];
  for (const n of ns) {
    await runCommand(page, 'Spool: Filter Jobs…');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    const text = `"n":${n}}`;
    await input.fill(text);
    await waitFor('the filter input to take the text', async () => (await input.inputValue()) === text, { timeoutMs: 10_000 });
    const started = Date.now();
    await page.keyboard.press('Enter');
    await row(page, new RegExp(`^bulk: \\{"n":${n}\\}`)).waitFor({ timeout: 10_000 });
    times.push(Date.now() - started);
  }
  return times;
}

/**
 * Clears the filter (an empty answer). The tree is redrawn afterwards with rows of new ids (the
 * filtered ones are gone): wait for the unfiltered `big` row, so what follows acts on the tree as
 * it stays and not on a filtered row about to be replaced.
 */
export async function clearFilter(page: Page): Promise<void> {
  await runCommand(page, 'Spool: Filter Jobs…');
  await answer(page, '', { expect: 'state:dead kind:shell' });
  await waitFor('the tree without the filter', async () => (await ariaLabel(rowAt(page, 1, 'big '))) === `big ${BIG_QUEUE_JOBS} queued`, { timeoutMs: 15_000 });
}

function webviewBootstrapTimer(target: Page): { take(): number; dispose(): void } {
  const started = new Map<Request, number>();
  let total = 0;
  const onRequest = (request: Request): void => {
    if (request.url().includes('/webview/browser/pre/fake.html')) started.set(request, Date.now());
  };
  const onFinished = (request: Request): void => {
    const at = started.get(request);
    if (at !== undefined) total += Date.now() - at;
    started.delete(request);
  };
  target.context().on('request', onRequest);
  target.context().on('requestfinished', onFinished);
  return {
    take: () => {
      const taken = total;
      total = 0;
      return taken;
    },
    dispose: () => {
      target.context().off('request', onRequest);
      target.context().off('requestfinished', onFinished);
    },
  };
}

/** The long-history job's row in the Queues view, its queue and Dead group opened (others closed above it). */
export async function longHistoryRow(page: Page, closeFirst: Locator[] = []): Promise<Locator> {
  // The tree draws only the rows in sight: a queue opened above `pages` can push its row out.
  for (const open of closeFirst) await collapse(open);
  await expand(rowAt(page, 1, 'pages '));
  await expand(rowAt(page, 2, 'Dead '));
  const jobRow = row(page, /"suite":"integration"/);
  await jobRow.waitFor({ timeout: 15_000 });
  return jobRow;
}

export interface JobPageTimes {
  /** Click to page shown, less the webview bootstrap request, per round (ms). */
  figures: number[];
  /** Click to page shown, per round (ms). */
  totals: number[];
}

/** Opens the job page `rounds` times from a closed editor, each until its 50 runs and last output line show. */
export async function timeJobPageOpen(page: Page, jobRow: Locator, rounds: number): Promise<JobPageTimes> {
  const shown = async (frame: Frame): Promise<boolean> => (await runRows(frame)) === LONG_HISTORY.runs && ((await frame.locator('#output').textContent()) ?? '').endsWith(LAST_LINE);
  const bootstrap = webviewBootstrapTimer(page);
  const times: JobPageTimes = { figures: [], totals: [] };
  try {
    for (let i = 0; i < rounds; i++) {
      await runCommand(page, 'View: Close All Editors');
      await waitFor('no editor to be open', async () => (await page.locator('.tabs-container .tab').count()) === 0, { timeoutMs: 10_000 });
      bootstrap.take();
      const started = Date.now();
      await jobRow.click();
      await jobPageFrame(page, TITLE, { ready: shown, intervalMs: 10, timeoutMs: 10_000 });
      const total = Date.now() - started;
      times.totals.push(total);
      times.figures.push(total - bootstrap.take());
    }
  } finally {
    bootstrap.dispose();
  }
  return times;
}
