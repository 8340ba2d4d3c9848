/**
 * Headless Debian chromium driven by playwright-core, with a fresh profile and HOME each time.
 * playwright's own browser download is blocked on these machines, so the executable is given.
 */
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, tempDir } from './paths';

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** What the page printed to its console, for failure messages. */
  consoleLog(): string;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const { dir, remove } = tempDir('spool-chromium-');
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 900 },
      env: { ...process.env, HOME: dir },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (error) {
    remove();
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  let consoleText = '';
  page.on('console', (message) => {
    consoleText += `[${message.type()}] ${message.text()}\n`;
  });
  return {
    context,
    page,
    consoleLog: () => consoleText,
    close: async () => {
      await context.close();
      remove();
    },
  };
}
