/**
 * `SPOOL_BENCH_PART=dashboard npm run bench`: the dashboard's first paint in a real VS Code
 * (code-server and headless Chromium, as the e2e tests run it) with 7 days of history for 20
 * queues (a minute row per queue for the whole week and an hour row per queue for the days the
 * daemon rolls up, written into the daemon's database before the dashboard opens):
 * - "Spool: Open Dashboard": from choosing the command to the page having drawn its charts of the
 *   last hour (target < 500 ms: the first paint);
 * - "Last day" (1,440 points a queue) and "Last week" (168 hour points a queue): from the click to
 *   the charts drawn again.
 * The page marks each draw with its time (`data-drawn-at` on its root, the same clock as this
 * process). Medians of the rounds, with the range; it needs `bash scripts/e2e-setup.sh` once, and
 * is skipped without it.
 *
 * Exit status: see ./editorProgram.ts.
 */
import Database from 'better-sqlite3';
import type { Frame, Page } from 'playwright-core';
import { waitFor } from '../test/e2e/harness';
import { dashboardFrame } from '../test/e2e/support/dashboard';
import { openSpoolView, openWorkbench, rowAt, runCommand } from '../test/e2e/support/workbench';
import { bucketOf, DAY_MS, HOUR_MS, MINUTE_MS } from '../daemon/engine/history';
import { figure, ROUNDS, runEditorProgram } from './editorProgram';

const QUEUES = 20;
const DAYS = 7;

/** A histogram of `n` times around `ms`, as the daemon stores it. */
function histogram(n: number, ms: number): string {
  if (n === 0) return '{}';
  const low = bucketOf(ms / 2);
  const high = bucketOf(ms * 2);
  return JSON.stringify({ [low]: Math.ceil(n / 2), [high]: Math.floor(n / 2) });
}

/** 7 days of minute rows and the rolled-up hour rows, for queues q01…q20, written in one transaction. */
function seedHistory(dbPath: string, queues: string[], now: number): number {
  const db = new Database(dbPath);
  try {
    db.pragma('busy_timeout = 10000');
    const columns = 'at, queue, enqueued, started, completed, failed, dead, cancelled, wait_hist, wait_max, run_hist, run_max, backlog, running, written_at';
    const minute = db.prepare(`INSERT OR REPLACE INTO history_minutes (daemon, ${columns}) VALUES ('bench', ${columns.replace(/(\w+)/g, '@$1')})`);
    const hour = db.prepare(`INSERT OR REPLACE INTO history_hours (${columns}) VALUES (${columns.replace(/(\w+)/g, '@$1')})`);
    const firstMinute = Math.floor((now - DAYS * DAY_MS) / MINUTE_MS) * MINUTE_MS;
    const lastRolledHour = Math.floor((now - DAY_MS) / HOUR_MS) * HOUR_MS;
    let rows = 0;
    db.transaction(() => {
      queues.forEach((queue, q) => {
        for (let at = firstMinute; at < now; at += MINUTE_MS) {
          // A daily rhythm, different per queue, and a failure now and then.
          const load = Math.round((10 + q) * (1.2 + Math.sin((at / DAY_MS) * 2 * Math.PI + q)));
          const failed = at % (7 * MINUTE_MS * (q + 1)) === 0 ? 2 : 0;
          const row = {
            at,
            queue,
            enqueued: load,
            started: load,
            completed: load - failed,
            failed,
            dead: failed > 0 && q % 3 === 0 ? 1 : 0,
            cancelled: 0,
            wait_hist: histogram(load, 40 + q * 5),
            wait_max: load === 0 ? null : 200 + q,
            run_hist: histogram(load, 300 + q * 20),
            run_max: load === 0 ? null : 1500 + q,
            backlog: load % 17,
            running: Math.min(load, 4),
            written_at: at + MINUTE_MS,
          };
          minute.run(row);
          rows += 1;
          if (at % HOUR_MS === 0 && at < lastRolledHour) {
            hour.run({ ...row, enqueued: load * 60, started: load * 60, completed: (load - failed) * 60, failed: failed * 60, dead: row.dead * 60, wait_hist: histogram(load * 60, 40 + q * 5), run_hist: histogram(load * 60, 300 + q * 20), written_at: at + HOUR_MS });
            rows += 1;
          }
        }
      });
    })();
    return rows;
  } finally {
    db.close();
  }
}

/** When the page last drew its charts (its clock is this machine's), once that is after `since`. */
async function drawnAfter(page: Page, since: number, frame?: Frame): Promise<number> {
  return waitFor(
    'the charts to be drawn',
    async () => {
      const f = frame ?? (await dashboardFrame(page));
      const at = Number(await f.locator('main#root').getAttribute('data-drawn-at').catch(() => null));
      return Number.isFinite(at) && at >= since ? at : null;
    },
    { timeoutMs: 60_000, intervalMs: 5 },
  );
}

runEditorProgram(
  'Dashboard',
  `Dashboard in VS Code (code-server, headless Chromium): ${DAYS} days of history for ${QUEUES} queues, ${ROUNDS} rounds each`,
  async (daemon) => {
    const client = await daemon.client();
    const queues = Array.from({ length: QUEUES }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
    for (const queue of queues) await client.call('jobs.enqueue', { queue, kind: 'k', payload: null, delayMs: DAY_MS });
    const seeded = seedHistory(daemon.dbPath, queues, Date.now());
    console.log(`  ${seeded.toLocaleString('en-US')} history rows written`);
  },
  async (vscode) => {
    const page = await openWorkbench(vscode);
    // The dashboard's command is offered once the extension is connected to the daemon.
    await openSpoolView(page);
    await rowAt(page, 1, 'q01 ').waitFor({ timeout: 60_000 });
    const open: number[] = [];
    const day: number[] = [];
    const week: number[] = [];
    // One open first, not counted: the first webview of a window starts without the delay the others have.
    for (let round = 0; round <= ROUNDS; round++) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ timeout: 15_000 });
      await input.fill('>Spool: Open Dashboard');
      const entry = page.locator('.quick-input-widget .monaco-list-row[aria-label^="Spool: Open Dashboard"]').first();
      await entry.waitFor({ timeout: 15_000 });
      const t0 = Date.now();
      await entry.click();
      const drawn = await drawnAfter(page, t0);
      const frame = await dashboardFrame(page);
      const t1 = Date.now();
      await frame.locator('button[data-range="day"]').click();
      const dayDrawn = await drawnAfter(page, t1, frame);
      const t2 = Date.now();
      await frame.locator('button[data-range="week"]').click();
      const weekDrawn = await drawnAfter(page, t2, frame);
      if (round > 0) {
        open.push(drawn - t0);
        day.push(dayDrawn - t1);
        week.push(weekDrawn - t2);
      }
      await runCommand(page, 'View: Close All Editors');
      await waitFor('the dashboard to close', async () => (await page.locator('.editor-group-container .tab').count()) === 0, { timeoutMs: 15_000 });
    }
    return [figure('open the dashboard, charts of the last hour', open, 500, 44), figure('switch to the last day (1,440 points a queue)', day, null, 44), figure('switch to the last week (168 points a queue)', week, null, 44)];
  },
);
