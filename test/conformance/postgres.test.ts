/**
 * The conformance suite on the PostgreSQL store: one real server for this test process
 * (test/helpers/postgres.ts), a fresh database for every test, dropped when the test ends. A
 * second engine on the same store (a second daemon) opens the same database.
 */
import { postgresStore } from '../../daemon/storage/postgres';
import { sharedPostgres } from '../helpers/postgres';
import type { TestStoreFactory, TestStore } from './harness';
import { defineAll } from './suite';
import { defineStatements, type StatementStoreFactory } from './statements';

const postgres: TestStoreFactory = (t): TestStore => {
  // The factories are synchronous; the database is made first and every call awaits it.
  const url = sharedPostgres().then((server) => server.database(t));
  const open = () => postgresStore({ url: () => url, poolSize: 4 });
  return { store: open(), shared: open };
};

// The statement-level suite: one fresh database per describe block, dropped after it.
const postgresRaw: StatementStoreFactory = {
  kind: 'postgres',
  open: (cleanup) => {
    const url = sharedPostgres().then((server) => server.database(cleanup));
    return postgresStore({ url: () => url, poolSize: 4 });
  },
};

defineAll(postgres);
defineStatements(postgresRaw);
