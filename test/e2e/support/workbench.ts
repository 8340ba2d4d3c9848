/**
 * Driving the VS Code workbench as a user does: the activity bar, the tree rows, the command
 * palette, context menus and the status bar. Selectors follow VS Code 1.100's DOM.
 */
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { VsCode } from '../harness';
import { artifactPath } from './paths';
import { waitFor } from './wait';

export async function openWorkbench(vscode: VsCode): Promise<Page> {
  const page = vscode.browser.page;
  // Waited for until the workbench is drawn, not until the page's load event: on a loaded
  // machine that took over 30 s, playwright's default for goto, though the workbench came.
  await page.goto(`${vscode.server.url}/?folder=${encodeURIComponent(vscode.server.workspace)}`, { waitUntil: 'commit', timeout: 60_000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  return page;
}

export async function openSpoolView(page: Page): Promise<void> {
  const item = page.locator('.activitybar [aria-label="Spool"]').first();
  await item.waitFor({ timeout: 60_000 });
  await item.click();
  await page.locator('.pane-header', { hasText: 'Queues' }).first().waitFor({ timeout: 30_000 });
}

/** Drag the side bar's edge so tree labels are not cut (screenshots are read by people). */
export async function widenSideBar(page: Page, by: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) throw new Error('the side bar is not visible');
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x + 1, y);
  await page.mouse.down();
  await page.mouse.move(x + by, y, { steps: 5 });
  await page.mouse.up();
  await waitFor('the side bar to widen', async () => ((await page.locator('.part.sidebar').boundingBox())?.width ?? 0) > box.width + by / 2, { timeoutMs: 5000 });
}

/** Collapse a view of the side bar (Schedules, Workers) so the views left open get its height. */
export async function collapseView(page: Page, title: string): Promise<void> {
  const header = page.locator('.pane-header', { hasText: title }).first();
  // Click the title end of the header: its other end holds the view's actions.
  if ((await header.getAttribute('aria-expanded')) === 'true') await header.click({ position: { x: 20, y: 10 } });
  await waitFor(`the ${title} view to collapse`, async () => (await header.getAttribute('aria-expanded')) === 'false', { timeoutMs: 10_000 });
}

/** The Queues view's tree rows. */
export function queuesPane(page: Page): Locator {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Queues' }) }).first();
}

/** A row of the Queues view whose accessible label (label + description) matches. */
export function row(page: Page, label: RegExp): Locator {
  return queuesPane(page).locator('.monaco-list-row').filter({ has: page.locator('.label-name'), hasText: label }).first();
}

/** A row whose aria-label starts with `prefix` (queues and groups: "label description"), at a tree depth. */
export function rowAt(page: Page, level: number, prefix: string): Locator {
  return queuesPane(page).locator(`.monaco-list-row[aria-level="${level}"][aria-label^="${prefix}"]`).first();
}

export async function ariaLabel(locator: Locator): Promise<string> {
  return (await locator.getAttribute('aria-label')) ?? '';
}

export async function expand(rowLocator: Locator): Promise<void> {
  if ((await rowLocator.getAttribute('aria-expanded')) !== 'true') await rowLocator.click();
  await waitFor('the row to expand', async () => (await rowLocator.getAttribute('aria-expanded')) === 'true', { timeoutMs: 15_000 });
}

export async function collapse(rowLocator: Locator): Promise<void> {
  if ((await rowLocator.getAttribute('aria-expanded')) === 'true') await rowLocator.click();
  await waitFor('the row to collapse', async () => (await rowLocator.getAttribute('aria-expanded')) === 'false', { timeoutMs: 15_000 });
}

/** Right-click a row and choose a context-menu entry. */
export async function contextMenu(page: Page, rowLocator: Locator, entry: string): Promise<void> {
  await rowLocator.click({ button: 'right' });
  const item = page.locator('.context-view .monaco-menu .action-item', { hasText: entry }).first();
  await item.waitFor({ timeout: 15_000 });
  // A menu ignores a click that comes right after it opened (so the right-click's release does
  // not pick an entry); hover to focus the entry, then accept it with Enter once it is focused.
  await item.hover();
  await waitFor(`the "${entry}" menu entry to take focus`, async () => ((await item.getAttribute('class')) ?? '').includes('focused'), { timeoutMs: 10_000 });
  await page.keyboard.press('Enter');
  await item.waitFor({ state: 'detached', timeout: 15_000 });
}

/** F1, type a command's title, Enter. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // A webview that has just taken the focus (a job page) may swallow the key before it forwards
  // keys to the workbench; the command center in the title bar opens the same input by mouse.
  if (!(await input.waitFor({ timeout: 3_000 }).then(() => true, () => false))) {
    await page.locator('.command-center .search-label, .command-center-center').first().click();
  }
  await input.waitFor({ timeout: 15_000 });
  // The palette's matcher does not take the "…" of titles that open more input; type the words.
  await input.fill(`>${title.replace(/…$/, '')}`);
  // An entry's aria-label is its title, followed by ", recently used" once it has been run.
  const entry = page.locator(`.quick-input-widget .monaco-list-row[aria-label^="${title}"]`).first();
  await entry.waitFor({ timeout: 15_000 });
  await entry.click();
}

/**
 * Type into the open quick input (a pick or an input box) and press Enter. `expect` waits for a
 * text of the step (its placeholder or prompt) first; `screenshot` is taken just before Enter.
 */
export async function answer(page: Page, text: string, options: { expect?: string; screenshot?: string } = {}): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  if (options.expect !== undefined) {
    const expected = options.expect;
    await waitFor(`the quick input to ask "${expected}"`, async () => ((await input.getAttribute('placeholder')) ?? '').includes(expected) || ((await widget.textContent()) ?? '').includes(expected), { timeoutMs: 15_000 });
  }
  await input.fill(text);
  await waitFor(`the quick input to take "${text}"`, async () => (await input.inputValue()) === text, { timeoutMs: 10_000 });
  if (options.screenshot !== undefined) await screenshot(page, options.screenshot);
  await page.keyboard.press('Enter');
}

export async function statusBarText(page: Page): Promise<string> {
  const item = page.locator('[id="spool.spool.spool.status"]');
  return ((await item.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const file = artifactPath(name);
  await page.screenshot({ path: file });
  return file;
}

/**
 * Clicks a tree row until `done` holds. VS Code re-resolves a tree's rows whenever the view
 * redraws (the views redraw every 10 s so that relative times move), and a click that lands on
 * a row as it is re-resolved runs a command VS Code has just disposed ("Actual command not
 * found"): a person clicks again, and so does this, up to three times. `done` is then waited for
 * with the full deadline, so a click that never works still fails.
 */
export async function clickRowUntil(row: Locator, what: string, done: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const disposed = row.page().locator('.notifications-toasts').getByText('Actual command not found');
  for (let attempt = 0; attempt < 3; attempt++) {
    const errorsBefore = await disposed.count();
    await row.click();
    if (await waitFor(what, done, { timeoutMs: 3_000 }).then(() => true, () => false)) return;
    // Clicked again only when this click hit a disposed command; a slow click is waited for.
    if ((await disposed.count()) <= errorsBefore || (await row.count()) === 0) break;
  }
  await waitFor(what, done, { timeoutMs });
}

/**
 * `test`, but a failure leaves a screenshot of what the page showed (`failed-<prefix><name>.png`
 * in the artifacts folder). `page` is read when the test runs: suites open it in `before`.
 */
export function uiTestOn(page: () => Page, prefix = ''): (name: string, fn: () => Promise<void>) => void {
  return (name, fn) =>
    test(name, async () => {
      try {
        await fn();
      } catch (error) {
        await screenshot(page(), `failed-${prefix}${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`);
        throw error;
      }
    });
}
