/**
 * Opening a job page with a long history, timed as a user sees it: from the click on the job's
 * row to the page showing its runs and the output's last line. Shared by the e2e test (which
 * checks the page shows everything) and `SPOOL_BENCH_PART=jobpage npm run bench` (which holds
 * the time to its target): a wall-clock limit belongs in the benchmark, where rounds are many and
 * the figure is printed with its range, not in a test a busy machine fails.
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
import { seedJobHistory } from './seed';
import { waitFor } from './wait';
import { collapse, expand, row, rowAt, runCommand } from './workbench';

/** The job both callers open: 50 runs of 200 lines, the 10,000 lines the daemon keeps of a job. */
export const LONG_HISTORY = { queue: 'pages', kind: 'suite', payload: { suite: 'integration' }, runs: 50, linesPerRun: 200 } as const;
const TITLE = 'pages › suite {"suite":"integration"}';
const LAST_LINE = 'run 50 line 200: checking suite 14';

export async function seedLongHistory(client: SpoolClient): Promise<void> {
  await seedJobHistory(client, { ...LONG_HISTORY, payload: { ...LONG_HISTORY.payload } });
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
