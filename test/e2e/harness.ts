/**
 * The end-to-end harness: the packaged extension in a real VS Code (code-server) in headless
 * chromium. A test calls `openVsCode()` once, uses `runHostSuite` for extension-host tests or
 * the page for UI tests, and registers `close()` with `after`, which ends the browser and the
 * server and removes their folders.
 */
import { launchBrowser, type Browser } from './support/browser';
import { startCodeServer, type CodeServer } from './support/codeServer';
import { packageExtension } from './support/package';
import { tempDir } from './support/paths';

export { runHostSuite } from './support/hostTests';
export { waitFor } from './support/wait';
export { artifactPath, tempDir } from './support/paths';

export interface VsCode {
  server: CodeServer;
  browser: Browser;
  close(): Promise<void>;
}

export interface VsCodeOptions {
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Open the workspace with workspace trust on, so it is untrusted (restricted mode). */
  workspaceTrust?: boolean;
}

export async function openVsCode(options: VsCodeOptions = {}): Promise<VsCode> {
  const packaging = tempDir('spool-vsix-');
  let server: CodeServer | undefined;
  try {
    const vsixPath = await packageExtension(packaging.dir);
    server = await startCodeServer({ vsixPath, ...options });
    const browser = await launchBrowser();
    const started = server;
    return {
      server: started,
      browser,
      close: async () => {
        await browser.close();
        await started.stop();
      },
    };
  } catch (error) {
    await server?.stop();
    throw error;
  } finally {
    packaging.remove();
  }
}
