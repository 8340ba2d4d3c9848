/**
 * The conformance suite on the PostgreSQL store: one real server for this test process
 * (test/helpers/postgres.ts), a fresh database for every test, dropped when the test ends. A
 * second engine on the same store (a second daemon) opens the same database.
 */
import { postgresStorage } from '../../daemon/storage/postgres/index';
import { sharedPostgres } from '../helpers/postgres';
import type { StoreFactory, TestStore } from './harness';
import { defineStatements, type StatementStoreFactory } from './statements';
import { defineBackoff } from './suite/backoff';
import { defineBatch } from './suite/batch';
import { defineCore } from './suite/core';
import { defineCounters } from './suite/counters';
import { defineDaemons } from './suite/daemons';
import { defineDelayed } from './suite/delayed';
import { defineLease } from './suite/lease';
import { defineList } from './suite/list';
import { defineManage } from './suite/manage';
import { defineOutput } from './suite/output';
import { definePayloads } from './suite/payloads';
import { defineProjects } from './suite/projects';
import { defineRateLimit } from './suite/rate-limit';
import { defineSchedules } from './suite/schedules';
import { defineTokens } from './suite/tokens';
import { defineUpkeep } from './suite/upkeep';
import { defineValidation } from './suite/validation';
import { defineWeights } from './suite/weights';

const postgres: StoreFactory = (t): TestStore => {
  // The factories are synchronous; the database is made first and every call awaits it.
  const url = sharedPostgres().then((server) => server.database(t));
  const open = () => postgresStorage({ url: () => url, poolSize: 4 });
  return { storage: open(), shared: open };
};

// The statement-level suite: one fresh database per describe block, dropped after it.
const postgresRaw: StatementStoreFactory = {
  kind: 'postgres',
  open: (cleanup) => {
    const url = sharedPostgres().then((server) => server.database(cleanup));
    return postgresStorage({ url: () => url, poolSize: 4 });
  },
};

defineBackoff(postgres);
defineBatch(postgres);
defineCore(postgres);
defineCounters(postgres);
defineDaemons(postgres);
defineDelayed(postgres);
defineLease(postgres);
defineList(postgres);
defineManage(postgres);
defineOutput(postgres);
definePayloads(postgres);
defineProjects(postgres);
defineRateLimit(postgres);
defineSchedules(postgres);
defineTokens(postgres);
defineUpkeep(postgres);
defineValidation(postgres);
defineWeights(postgres);
defineStatements(postgresRaw);
