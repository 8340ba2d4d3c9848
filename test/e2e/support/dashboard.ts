/** The dashboard webview in code-server, for the e2e tests and the dashboard benchmark. */
import type { Frame, Page } from 'playwright-core';
import { waitFor } from './wait';

/** The dashboard's frame, once its health table is drawn. */
export async function dashboardFrame(page: Page): Promise<Frame> {
  return waitFor(
    'the dashboard',
    async () => {
      for (const frame of page.frames()) {
        if (frame.isDetached()) continue;
        try {
          if ((await frame.locator('main#root table.health').count()) > 0 && /^Dashboard/.test((await frame.locator('main#root h1').first().textContent()) ?? '')) return frame;
        } catch {
          // A frame that navigated or went away meanwhile.
        }
      }
      return null;
    },
    { timeoutMs: 60_000 },
  );
}
