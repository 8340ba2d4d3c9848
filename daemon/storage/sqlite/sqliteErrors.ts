/**
 * SQLite's failures in words a user can act on. SQLite says "file is not a database" or
 * "attempt to write a readonly database" without naming the file or what to do; these name the
 * database's path and the fix. A full disk gets its own protocol code (StorageFull) rather than
 * an internal error, so a client can tell "try again after freeing space" from a bug.
 */
import Database from 'better-sqlite3';
import { SpoolError, errorMessage } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';

/** SQLite's primary result code: extended codes (SQLITE_READONLY_DBMOVED) start with it. */
function primaryCode(error: unknown): string | null {
  if (!(error instanceof Database.SqliteError)) return null;
  const match = /^SQLITE_[A-Z]+/.exec(error.code);
  return match === null ? null : match[0];
}

/** Whether SQLite failed for lack of room (a full disk or quota). */
export function isStorageFull(error: unknown): boolean {
  return primaryCode(error) === 'SQLITE_FULL';
}

/** The StorageFull error for a write the disk had no room for; nothing of it was stored. */
export function storageFull(dbPath: string): SpoolError {
  return new SpoolError(
    ErrorCode.StorageFull,
    `The disk holding the Spool database ${dbPath} is full: nothing of this request was stored. Free some space on it, then send the request again.`,
  );
}

/**
 * The error to report when opening (or first reading or migrating) the database failed: SQLite's
 * words with the path and what to do, for the failures a bad file causes; other errors are
 * returned as they were.
 */
export function databaseOpenError(dbPath: string, error: unknown): Error {
  const words = errorMessage(error);
  switch (primaryCode(error)) {
    case 'SQLITE_NOTADB':
      return new Error(
        `${dbPath} is not a SQLite database (SQLite: "${words}"): it may be another kind of file, damaged, or encrypted. ` +
          'Point --db at the right file, or move this one aside and start again: the daemon then creates an empty database, into which ' +
          '`spool restore FILE` can put a backup.',
      );
    case 'SQLITE_CORRUPT':
      return new Error(
        `The Spool database ${dbPath} is damaged (SQLite: "${words}"). Stop every daemon using it, move it aside (with its -wal and -shm), ` +
          'and restore a backup with `spool restore FILE`; `sqlite3 FILE .recover` may save what is readable.',
      );
    case 'SQLITE_READONLY':
      return readOnlyDatabase(dbPath, words);
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
    case 'SQLITE_AUTH':
      return new Error(
        `Cannot open the Spool database ${dbPath} (SQLite: "${words}"). Check that your user may read and write it and its folder (SQLite creates ` +
          'its -wal and -shm beside it) and that the file system is not mounted read-only, or point --db elsewhere.',
      );
    case 'SQLITE_FULL':
      return new Error(`Cannot open the Spool database ${dbPath}: the disk holding it is full (SQLite: "${words}"). Free some space on it, then start again.`);
    default:
      return error instanceof Error ? error : new Error(words);
  }
}

/** The database (or what SQLite must create beside it) cannot be written by this user. */
export function readOnlyDatabase(dbPath: string, words: string): Error {
  return new Error(
    `Cannot write the Spool database ${dbPath} (${words}): the file, its -wal or -shm, or its folder is read-only for this user, ` +
      'or the file system is mounted read-only. Give your user write access to them (and the folder), or point --db at a writable place.',
  );
}

/** Whether SQLite refused a write because the database is read-only. */
export function isReadOnly(error: unknown): boolean {
  return primaryCode(error) === 'SQLITE_READONLY';
}
