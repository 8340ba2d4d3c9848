/**
 * The conformance suite on the SQLite store: every test gets a fresh database file in a fresh
 * temporary folder, removed when the test ends. A second engine on the same store (a second
 * daemon) opens the same file, as a second process would.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sqliteStore } from '../../daemon/storage/sqlite';
import { tempDir } from '../helpers/engineTest';
import type { TestStoreFactory } from './harness';
import { defineAll } from './suite';
import { defineStatements, type StatementStoreFactory } from './statements';

const sqlite: TestStoreFactory = (t) => {
  const dbPath = path.join(tempDir(t, 'spool-conformance-'), 'spool.db');
  return { store: sqliteStore({ dbPath }), shared: () => sqliteStore({ dbPath }) };
};

// The statement-level suite: one database file per describe block, in a folder removed after it.
const sqliteRaw: StatementStoreFactory = {
  kind: 'sqlite',
  open: (cleanup) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-statements-'));
    cleanup.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    return sqliteStore({ dbPath: path.join(dir, 'spool.db') });
  },
};

defineAll(sqlite);
defineStatements(sqliteRaw);
