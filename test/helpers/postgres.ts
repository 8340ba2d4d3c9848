/**
 * The tests' PostgreSQL: the throwaway server of scripts/pgServer.ts (the benchmark uses it too),
 * one per test process, with a database per test. No mock anywhere: every PostgreSQL test in the
 * suite talks to a real server.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { TestDaemon } from './daemon';

export { PgServer, pgBin, sharedPostgres } from '../../scripts/pgServer';

/**
 * What node-postgres prints when one client is given a query while another is still running on
 * it (`client.query()` queued behind a query in flight: deprecated, and removed in pg 9).
 */
export const DRIVER_WARNING = /already executing a query|DeprecationWarning/;

/**
 * Fails the file, once its tests have run, if node-postgres warned in this process (overlapping
 * queries on one client, say): call it at the top of a file that opens stores or clients itself.
 */
export function failOnDriverWarnings(): void {
  const seen: string[] = [];
  const listener = (warning: Error): void => {
    if (DRIVER_WARNING.test(`${warning.name} ${warning.message}`)) seen.push(warning.message);
  };
  process.on('warning', listener);
  after(() => {
    process.off('warning', listener);
    assert.deepEqual(seen, [], 'node-postgres warned in this process');
  });
}

/** Fails if a daemon's standard error holds a warning of node-postgres. */
export function assertNoDriverWarnings(log: string, who = 'the daemon'): void {
  const lines = log.split('\n').filter((line) => DRIVER_WARNING.test(line));
  assert.deepEqual(lines, [], `${who} printed a warning of node-postgres`);
}

/**
 * The daemons a file starts on PostgreSQL, checked and stopped once its tests have run: none may
 * have printed a warning of node-postgres, and each is stopped, not killed (a clean stop ends the
 * shell jobs the daemon runs), then its folder removed. Push each daemon started to the list.
 */
export function daemonsStoppedAfter(): TestDaemon[] {
  const daemons: TestDaemon[] = [];
  after(async () => {
    for (const d of daemons) assertNoDriverWarnings(d.log());
    await Promise.all(daemons.map((d) => d.stop().catch(() => undefined)));
    await Promise.all(daemons.map((d) => d.dispose()));
  });
  return daemons;
}
