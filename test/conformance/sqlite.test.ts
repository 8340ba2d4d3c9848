/**
 * The conformance suite on the SQLite store: every test gets a fresh database file in a fresh
 * temporary folder, removed when the test ends. A second engine on the same store (a second
 * daemon) opens the same file, as a second process would.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sqliteStorage } from '../../daemon/storage/sqlite/backend';
import { tempDir } from '../helpers/engineTest';
import type { StoreFactory } from './harness';
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

const sqlite: StoreFactory = (t) => {
  const dbPath = path.join(tempDir(t, 'spool-conformance-'), 'spool.db');
  return { storage: sqliteStorage({ dbPath }), shared: () => sqliteStorage({ dbPath }) };
};

// The statement-level suite: one database file per describe block, in a folder removed after it.
const sqliteRaw: StatementStoreFactory = {
  kind: 'sqlite',
  open: (cleanup) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-statements-'));
    cleanup.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    return sqliteStorage({ dbPath: path.join(dir, 'spool.db') });
  },
};

defineBackoff(sqlite);
defineBatch(sqlite);
defineCore(sqlite);
defineCounters(sqlite);
defineDaemons(sqlite);
defineDelayed(sqlite);
defineLease(sqlite);
defineList(sqlite);
defineManage(sqlite);
defineOutput(sqlite);
definePayloads(sqlite);
defineProjects(sqlite);
defineRateLimit(sqlite);
defineSchedules(sqlite);
defineTokens(sqlite);
defineUpkeep(sqlite);
defineValidation(sqlite);
defineWeights(sqlite);
defineStatements(sqliteRaw);
