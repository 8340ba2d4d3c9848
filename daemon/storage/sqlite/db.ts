/**
 * Opening the SQLite file the queue lives in, with the pragmas every Spool connection needs.
 */
import Database from 'better-sqlite3';
import * as path from 'node:path';
import { defaultDbPath } from '../../../shared/client/paths';
import * as fs from 'node:fs';
import { readOnlyDatabase } from './sqliteErrors';
import { checkDatabaseFiles, createPrivateFile, ensurePrivateFolder, sidecarFiles, tightenDatabaseFiles, type PermissionChange } from './permissions';
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import { errorMessage } from '../../../shared/protocol/errors';

export type Db = Database.Database;

export interface OpenOptions {
  /** synchronous=FULL: a commit survives power loss, not just a process crash. */
  durable?: boolean;
  /** How long a writer waits for another process's write lock before failing. */
  busyTimeoutMs?: number;
  /**
   * Told what was made owner-only when files or Spool's data folder were readable by others
   * (left so by an older version); the daemon logs it. Not called when nothing changed.
   */
  permissionsTightened?: (changes: PermissionChange[]) => void;
}

/**
 * Spool's own data folder (`$XDG_DATA_HOME/spool`, `~/.local/share/spool`), the one folder an
 * existing copy of which is made 0700: a folder named with --db or SPOOL_DB is the user's.
 */
function isDefaultDataFolder(dir: string): boolean {
  return dir === path.dirname(defaultDbPath({ ...process.env, SPOOL_DB: undefined }));
}

/**
 * Opens (and creates, with its folder) the database file. The folder is made 0700 and the file
 * 0600 whatever the umask (see permissions.ts).
 *
 * - WAL lets readers (the CLI, a second daemon's listing) run beside the one writer.
 * - synchronous=NORMAL in WAL mode loses at most the last commits on power loss, never
 *   corrupts; `durable` switches to FULL for those who need every commit on disk.
 * - busy_timeout makes a second process wait for the write lock instead of failing at once;
 *   together with BEGIN IMMEDIATE (see Store.write) two processes can share one file.
 * - foreign_keys is off by default in SQLite; runs and output cascade from their job.
 * - cache_size -16000 = 16 MB of page cache per connection. The hot pages are few whatever the
 *   backlog (claims read the start of the claim index, enqueues append at the end of each
 *   B-tree): with a million jobs, claims cost the same with 16 MB as with 32 MB, and the
 *   daemon's resident memory after loading them was 119-125 MB instead of 145-151 MB.
 */
export function openDatabase(dbPath: string, options: OpenOptions = {}): Db {
  const folder = path.dirname(path.resolve(dbPath));
  // Nothing is created or tightened before the files are known to be this user's own, and an
  // existing file to be a Spool database: a file given by mistake keeps its mode.
  if (checkDatabaseFiles(dbPath)) checkSpoolSchema(dbPath);
  const changes = ensurePrivateFolder(folder, isDefaultDataFolder(folder));
  createPrivateFile(dbPath);
  changes.push(...tightenDatabaseFiles(dbPath));
  if (changes.length > 0) options.permissionsTightened?.(changes);
  // SQLite opens a file it may not write read-only without a word, and every write then fails
  // with "attempt to write a readonly database": refuse at start instead, saying which.
  for (const target of [dbPath, folder, ...sidecarFiles(dbPath).filter((file) => fs.existsSync(file))]) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (error) {
      throw readOnlyDatabase(dbPath, `${target} is not writable: ${errorMessage(error)}`);
    }
  }
  let db: Db;
  try {
    db = new Database(dbPath);
  } catch (error) {
    throw new Error(`Cannot open the Spool database at ${dbPath}: ${errorMessage(error)}. Check that the folder is writable.`);
  }
  try {
    // Checked again now that SQLite has opened them: a -wal or -shm another user created in a
    // shared folder between the first check and the open is refused before anything is read.
    checkDatabaseFiles(dbPath);
  } catch (error) {
    db.close();
    throw error;
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  enableWal(db, busyTimeoutMs);
  db.pragma(`synchronous = ${options.durable ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -16000');
  db.pragma('temp_store = MEMORY');
  return db;
}

/**
 * Switches the file to WAL. On a new file that several processes open at once, SQLite can answer
 * SQLITE_BUSY here without calling the busy handler (it would deadlock otherwise), so the switch
 * is retried, with a short synchronous pause, until the busy timeout has passed.
 */
function enableWal(db: Db, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!(error instanceof Database.SqliteError) || error.code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.floor(Math.random() * 10));
    }
  }
}

/**
 * Refuses an existing SQLite file that is not a Spool database (it has tables, but not Spool's
 * schema_migrations), before Spool adds its tables to it or changes its mode. Read-only: a file
 * that is not SQLite at all fails here with SQLite's "file is not a database", which the store
 * words for the user.
 */
function checkSpoolSchema(dbPath: string): void {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all().map(String);
    if (tables.length > 0 && !tables.includes('schema_migrations')) {
      const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ', …' : '');
      throw new SpoolError(
        ErrorCode.InvalidParams,
        `Refusing the database ${dbPath}: it is a SQLite database, but not a Spool one (its tables: ${shown}). Point --db at a Spool database or at a new file.`,
        { field: 'db' },
      );
    }
  } finally {
    db.close();
  }
}
