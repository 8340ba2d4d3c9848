/**
 * A small test runner for code that runs inside the VS Code extension host. The workbench
 * loads a bundled suite and calls its exported `run()`; a rejection is reported as exit code 1.
 * Each test's outcome also goes to results.json beside the bundle, so the node test runner can
 * report every host test by name (see test/e2e/support/hostTests.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface HostResult {
  name: string;
  /** Null when the test passed. */
  error: string | null;
  durationMs: number;
}

export type HostTest = (config: HostConfig) => Promise<void> | void;
export type HostConfig = Record<string, unknown>;

/** Read a string the outside test put in config.json. */
export function configString(config: HostConfig, key: string): string {
  const value = config[key];
  if (typeof value !== 'string') throw new Error(`config.json of the host suite has no string "${key}"`);
  return value;
}

/** Builds the `run()` the workbench calls: the tests run one after another, in order. */
export function hostSuite(tests: Record<string, HostTest>): () => Promise<void> {
  return async () => {
    const config: unknown = JSON.parse(fs.readFileSync(path.join(__dirname, 'config.json'), 'utf8'));
    const hostConfig: HostConfig = typeof config === 'object' && config !== null ? { ...config } : {};
    const results: HostResult[] = [];
    for (const [name, test] of Object.entries(tests)) {
      const started = Date.now();
      try {
        await test(hostConfig);
        results.push({ name, error: null, durationMs: Date.now() - started });
        console.log(`ok - ${name}`);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        results.push({ name, error: message, durationMs: Date.now() - started });
        console.log(`not ok - ${name}\n${message}`);
      }
      fs.writeFileSync(path.join(__dirname, 'results.json'), JSON.stringify(results, null, 2));
    }
    const failed = results.filter((r) => r.error !== null).length;
    if (failed > 0) throw new Error(`${failed} of ${results.length} extension-host tests failed`);
  };
}
