/**
 * Reports a host suite's outcome to node's test runner: one subtest per host test, failing with
 * the host's message, plus a check that the run's exit code agrees.
 */
import * as assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { HostRun } from './hostTests';

export async function reportHostRun(t: TestContext, run: HostRun, expected: string[]): Promise<void> {
  const byName = new Map(run.results.map((r) => [r.name, r]));
  for (const name of expected) {
    await t.test(name, () => {
      const result = byName.get(name);
      assert.ok(result, `the host test did not run (the suite stopped early?)\n${run.log}`);
      if (result.error !== null) assert.fail(result.error);
    });
  }
  assert.equal(run.exitCode, run.results.every((r) => r.error === null) ? 0 : 1, 'the exit code matches the results');
  assert.deepEqual(run.results.map((r) => r.name), expected, 'every host test ran, in order');
}
