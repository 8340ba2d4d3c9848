/**
 * Runs a suite of tests inside the VS Code extension host, the way VS Code's own browser tests
 * do: the page URL carries a payload naming the extension under development (the installed
 * .vsix) and a test entry; the workbench loads the entry, calls its `run()`, and reports the
 * outcome through two functions the page exposes, `codeAutomationLog` and `codeAutomationExit`.
 *
 * The suite (a TypeScript file under test/e2e/host/) is bundled with esbuild next to a
 * config.json the suite reads, and writes results.json with one entry per test, so the node
 * test runner outside can show each host test by name.
 */
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from './browser';
import type { CodeServer } from './codeServer';
import { artifactPath } from './paths';
import { waitFor } from './wait';
import type { HostResult } from '../host/framework';
import { errorMessage } from '../../../shared/protocol/errors';

export interface HostRun {
  exitCode: number;
  results: HostResult[];
  /** Messages the workbench forwarded through codeAutomationLog. */
  log: string;
}

export async function runHostSuite(
  server: CodeServer,
  browser: Browser,
  suite: string,
  config: Record<string, unknown>,
  options: { timeoutMs?: number } = {},
): Promise<HostRun> {
  const dir = fs.mkdtempSync(path.join(server.scratch, 'suite-'));
  await esbuild.build({
    entryPoints: [suite],
    outfile: path.join(dir, 'entry.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'error',
  });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));

  let log = '';
  let exitCode: number | undefined;
  // A page of its own: the functions a page exposes cannot be exposed twice.
  const page = await browser.context.newPage();
  await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
    log += `[${type}] ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`;
  });
  await page.exposeFunction('codeAutomationExit', (code: number) => {
    exitCode = code;
  });
  const remote = (p: string): string => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(server.extensionPath)],
    ['extensionTestsPath', remote(path.join(dir, 'entry.js'))],
    ['skipWelcome', 'true'],
  ];
  const url = `${server.url}/?folder=${encodeURIComponent(server.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  // Only until the page answers: what counts is the suite's exit code, waited for below. Waiting
  // for the workbench's "load" event as well timed out at 30 s on a loaded machine.
  await page.goto(url, { waitUntil: 'commit' });
  try {
    await waitFor('the extension-host tests to finish', () => exitCode !== undefined, { timeoutMs: options.timeoutMs ?? 180_000, intervalMs: 200 });
  } catch (error) {
    await page.screenshot({ path: artifactPath(`host-timeout-${path.basename(suite, '.ts')}.png`) });
    throw new Error(`${errorMessage(error)}\nworkbench log:\n${log}\ncode-server log:\n${server.log()}`);
  } finally {
    await page.close();
  }
  const resultsFile = path.join(dir, 'results.json');
  const results: HostResult[] = fs.existsSync(resultsFile) ? parseResults(fs.readFileSync(resultsFile, 'utf8')) : [];
  return { exitCode: exitCode ?? 1, results, log };
}

function parseResults(text: string): HostResult[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('results.json of a host suite is not an array');
  return parsed.map((entry: unknown): HostResult => {
    if (typeof entry !== 'object' || entry === null) throw new Error('results.json holds a non-object entry');
    const name = 'name' in entry && typeof entry.name === 'string' ? entry.name : '(unnamed)';
    const error = 'error' in entry && typeof entry.error === 'string' ? entry.error : null;
    const durationMs = 'durationMs' in entry && typeof entry.durationMs === 'number' ? entry.durationMs : 0;
    return { name, error, durationMs };
  });
}
