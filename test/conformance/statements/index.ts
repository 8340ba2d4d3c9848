/**
 * The statement-level conformance suite: every statement of daemon/storage/statements/ called
 * raw on a store, without the engine, so that a store implementing a statement differently
 * from the other is caught at that statement rather than somewhere behind an engine call. A
 * `<store>.test.ts` file calls `defineStatements` with its factory, next to the engine-level
 * suite.
 *
 * The last test checks that the suite called every statement the stores have, so that a new
 * statement without a test here fails.
 */
import { defineGroupStatements } from './groups';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SqliteDatabase } from '../../../daemon/storage/sqlite/database';
import { sqliteStatements } from '../../../daemon/storage/sqlite/statements';
import { postgresStatements } from '../../../daemon/storage/postgres/statements';
import { tempDir } from '../../helpers/engineTest';
import { defineAdminStatements } from './admin';
import { defineAgeingStatements, defineGroupPruneStatements } from './ageing';
import { defineDependencyStatements } from './dependencies';
import { defineExpiryStatements } from './expiry';
import { exercised, type StatementStoreFactory } from './harness';
import { defineHistoryStatements } from './history';
import { defineJobStatements } from './jobs';
import { defineMakingStatements } from './making';
import { defineQueueStatements } from './queues';
import { defineScheduleStatements } from './schedules';
import { defineUniqueStatements } from './unique';
import { defineWorkflowStatements } from './workflows';

export type { StatementStoreFactory } from './harness';

/**
 * Statements the suite does not call, each with why. Empty: a name may be added here only with
 * a reason that holds for both stores.
 */
const LEFT_OUT: Readonly<Record<string, string>> = {};

/** Whether this run filters tests by name: then the suite did not run whole, and coverage cannot be judged. */
function filtered(): boolean {
  return [...process.execArgv, ...process.argv].some((arg) => arg.startsWith('--test-name-pattern') || arg.startsWith('--test-skip-pattern') || arg === '--test-only');
}

export function defineStatements(factory: StatementStoreFactory): void {
  defineJobStatements(factory);
  defineMakingStatements(factory);
  defineQueueStatements(factory);
  defineScheduleStatements(factory);
  defineAdminStatements(factory);
  defineDependencyStatements(factory);
  defineWorkflowStatements(factory);
  defineGroupStatements(factory);
  defineUniqueStatements(factory);
  defineExpiryStatements(factory);
  defineHistoryStatements(factory);
  defineAgeingStatements(factory);
  defineGroupPruneStatements(factory);

  describe('statements: coverage', () => {
    it('calls every statement of the stores, the listed exceptions aside', (t) => {
      if (filtered()) {
        t.skip('tests are filtered by name: the suite did not run whole');
        return;
      }
      const store = new SqliteDatabase(path.join(tempDir(t, 'spool-statements-'), 'spool.db'), { now: Date.now() });
      t.after(() => store.close());
      // bound() binds every method of SQLite's table classes, helpers included: the statements
      // are the names PostgreSQL's table (plain object literals, checked by TypeScript to hold
      // exactly the statements) has too.
      const sqliteNames = Object.keys(sqliteStatements(store));
      const statements = sqliteNames.filter((name) => name in postgresStatements);
      assert.deepEqual(
        Object.keys(postgresStatements).filter((name) => !sqliteNames.includes(name)),
        [],
        "every statement of PostgreSQL's table is in SQLite's",
      );
      const expected = statements.filter((name) => !(name in LEFT_OUT)).sort();
      const missing = expected.filter((name) => !exercised.has(name as never));
      assert.deepEqual(missing, [], `statements no test here calls (${exercised.size} of ${expected.length} called)`);
      t.diagnostic(`${expected.length} statements, every one called; left out: ${Object.keys(LEFT_OUT).length}`);
    });
  });
}
