/**
 * The conformance suite on the SQLite store: every test gets a fresh database file in a fresh
 * temporary folder, removed when the test ends. A second engine on the same store (a second
 * daemon) opens the same file, as a second process would.
 */
import * as path from 'node:path';
import { sqliteStore } from '../../daemon/storage/sqlite';
import { tempDir } from '../helpers/engineTest';
import type { TestStoreFactory } from './harness';
import { defineAll } from './suite';

const sqlite: TestStoreFactory = (t) => {
  const dbPath = path.join(tempDir(t, 'spool-conformance-'), 'spool.db');
  return { store: sqliteStore({ dbPath }), shared: () => sqliteStore({ dbPath }) };
};

defineAll(sqlite);
