/**
 * Reading a job page (a webview) in the workbench. VS Code puts each webview in an iframe that
 * holds the page in a second, inner iframe; the page is found among all the frames by its
 * `main#root` and its title, whichever editor group or tab it is in.
 */
import type { Frame, Page } from 'playwright-core';
import { waitFor } from './wait';

/** The frame of the job page whose title (its `<h1>`) is or matches `title`, once it shows. */
export async function jobPageFrame(page: Page, title: string | RegExp, options: { timeoutMs?: number; intervalMs?: number; ready?: (frame: Frame) => Promise<boolean> } = {}): Promise<Frame> {
  return waitFor(
    `the job page "${String(title)}"`,
    async () => {
      for (const frame of page.frames()) {
        if (frame.isDetached()) continue;
        try {
          const heading = frame.locator('main#root h1');
          if ((await heading.count()) === 0) continue;
          const text = (await heading.first().textContent()) ?? '';
          if (typeof title === 'string' ? text !== title : !title.test(text)) continue;
          if (!(await frame.locator('main#root h1').first().isVisible())) continue;
          if (options.ready && !(await options.ready(frame))) continue;
          return frame;
        } catch {
          // A frame that navigated or went away meanwhile: look at the others.
        }
      }
      return null;
    },
    { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: options.intervalMs ?? 100 },
  );
}

/** The page's text as shown (cells and terms apart), spaces collapsed. */
export async function pageText(frame: Frame, selector = 'main#root'): Promise<string> {
  return (await frame.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
}

/** The state the page shows (`data-state`: queued, delayed, running, …). */
export async function pageState(frame: Frame): Promise<string> {
  return (await frame.locator('main#root [data-state]').first().getAttribute('data-state')) ?? '';
}

/** The actions of the page's buttons, in order. */
export async function pageButtons(frame: Frame): Promise<string[]> {
  return frame.locator('main#root .actions button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action') ?? ''));
}

/** How many rows the runs table has. */
export async function runRows(frame: Frame): Promise<number> {
  return frame.locator('main#root table.runs tbody tr').count();
}

/** The editor tabs' labels. */
export async function tabLabels(page: Page): Promise<string[]> {
  return page.locator('.tabs-container .tab .label-name').evaluateAll((tabs) => tabs.map((t) => (t.textContent ?? '').trim()));
}
