/**
 * The conformance suite on the SQLite store: every test gets a fresh database file in a fresh
 * temporary folder, removed when the test ends. A second engine on the same store (a second
 * daemon) opens the same file, as a second process would.
 */
import * as path from 'node:path';
import { sqliteStorage } from '../../daemon/storage/sqlite/backend';
import { tempDir } from '../helpers/engineTest';
import type { StoreFactory } from './harness';
import { defineAll } from './suite';

const sqlite: StoreFactory = (t) => {
  const dbPath = path.join(tempDir(t, 'spool-conformance-'), 'spool.db');
  return { storage: sqliteStorage({ dbPath }), shared: () => sqliteStorage({ dbPath }) };
};

defineAll(sqlite);
