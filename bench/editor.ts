/**
 * `SPOOL_BENCH_PART=editor npm run bench`: the editor's timed paths in a real VS Code
 * (code-server and headless Chromium, as the e2e tests run it), measured in the browser as a user
 * sees them (test/e2e/support/editorTiming.ts):
 * - with 100,000 jobs in one queue, expanding the queue and then its Queued group (target < 1 s each);
 * - a text filter showing the one job that matches among them (target < 1 s);
 * - opening the page of a job with 50 runs and 10,000 output lines, from the click on its row to
 *   the page showing its runs and the output's last line, less code-server's own webview bootstrap
 *   request (target < 500 ms).
 * Each target is held by the median of the rounds; the range is printed beside it. Run by
 * bench/main.ts with tsx, since it drives the browser with the e2e tests' helpers; it needs
 * `bash scripts/e2e-setup.sh` once, and is skipped without it.
 *
 * Exit status: see ./editorProgram.ts.
 */
import { clearFilter, longHistoryRow, seedEditorScenario, timeBigQueue, timeFilter, timeJobPageOpen } from '../test/e2e/support/editorTiming';
import { openSpoolView, openWorkbench, rowAt } from '../test/e2e/support/workbench';
import { figure, ROUNDS, runEditorProgram } from './editorProgram';

runEditorProgram(
  'Editor',
  `Editor in VS Code (code-server, headless Chromium), ${ROUNDS} rounds each`,
  async (daemon) => seedEditorScenario(await daemon.client()),
  async (vscode) => {
    const page = await openWorkbench(vscode);
    await openSpoolView(page);
    const met: boolean[] = [];
    const { queue, group } = await timeBigQueue(page, ROUNDS);
    met.push(figure('expand a queue of 100,000 jobs', queue, 1000));
    met.push(figure('expand its Queued group', group, 1000));
    const filter = await timeFilter(page, Array.from({ length: ROUNDS }, (_, i) => 12_345 + i * 12_007));
    met.push(figure('filter 100,000 jobs to one', filter, 1000));
    await clearFilter(page);
    const jobRow = await longHistoryRow(page, [rowAt(page, 1, 'big ')]);
    // One open first, not counted: the first webview of a window starts without the delay the
    // others have (see editorTiming.ts).
    await timeJobPageOpen(page, jobRow, 1);
    const { figures, totals } = await timeJobPageOpen(page, jobRow, ROUNDS);
    met.push(figure('open a job page (50 runs, 10,000 lines)', figures, 500));
    console.log(`    with code-server's webview bootstrap request: ${totals.join(', ')} ms`);
    return met;
  },
);
