/**
 * Owner-only files for the database. A job's payload can hold a secret, so the database folder
 * is made 0700 and the database, its -wal and -shm, the daemon's log and backups 0600, whatever
 * the umask (a umask of 000 would otherwise give 0777 folders and 0666 files). Files an older
 * version left readable by others are tightened at start-up, and the caller logs what changed.
 * Files that are not the daemon user's own (another user's, or writable by others) are refused
 * before anything is opened or changed (checkDatabaseFiles).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { notOwnReason } from '../../../shared/client/fileTrust';
import { folderOpenToOthers } from '../../../shared/client/socketTrust';
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';

/** What was tightened, in words for the log: "spool.db 0644 → 0600". */
export type PermissionChange = string;

/** The files SQLite keeps beside a database: its write-ahead log and its shared-memory index. */
export function sidecarFiles(dbPath: string): string[] {
  return [`${dbPath}-wal`, `${dbPath}-shm`];
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/**
 * Creates the folder (and any missing parents) 0700. An existing folder is tightened only when
 * `tightenExisting` says it is Spool's own (the default data folder): a folder the user named
 * with --db, such as /tmp, is theirs to set, and the files in it are owner-only anyway.
 */
export function ensurePrivateFolder(dir: string, tightenExisting: boolean): PermissionChange[] {
  const absolute = path.resolve(dir);
  // mkdirSync's mode is filtered through the umask; chmod is not, so each folder made here is
  // set explicitly. recursive returns the first folder it created; its descendants are new too.
  const first = fs.mkdirSync(absolute, { recursive: true, mode: 0o700 });
  if (first !== undefined) {
    for (let folder = absolute; ; folder = path.dirname(folder)) {
      fs.chmodSync(folder, 0o700);
      if (folder === first || folder === path.dirname(folder)) break;
    }
    return [];
  }
  if (!tightenExisting) return [];
  const change = tighten(absolute, 0o700);
  return change === null ? [] : [change];
}

/**
 * Takes from `file` the permissions `mode` does not allow, if it exists, belongs to this user and
 * has any; returns what changed, or null. Bits are only ever removed: a database made read-only
 * (0444) becomes 0400, not writable. A file owned by someone else is left alone (chmod would fail for anyone
 * but root, and root must not silently take over another user's file's mode).
 */
export function tighten(file: string, mode: number): PermissionChange | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
  if (stat.isSymbolicLink() || (stat.mode & 0o777 & ~mode) === 0 || stat.uid !== process.getuid?.()) return null;
  const tightened = stat.mode & 0o777 & mode;
  try {
    fs.chmodSync(file, tightened);
  } catch (error) {
    // A read-only file system: nothing can be changed, and opening says what is wrong.
    if (error instanceof Error && 'code' in error && error.code === 'EROFS') return null;
    throw error;
  }
  return `${file} ${octal(stat.mode)} → ${octal(tightened)}`;
}

/**
 * Creates the database file empty and 0600 if it is missing, before SQLite opens it: SQLite
 * creates a new database with 0644 filtered by the umask, and gives its -wal and -shm the
 * database file's mode, so the mode set here is the one all three get.
 */
export function createPrivateFile(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return;
    throw error;
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}

/** Tightens the database and its -wal and -shm to 0600; returns what changed. */
export function tightenDatabaseFiles(dbPath: string): PermissionChange[] {
  const changes: PermissionChange[] = [];
  for (const file of [dbPath, ...sidecarFiles(dbPath)]) {
    const change = tighten(file, 0o600);
    if (change !== null) changes.push(change);
  }
  return changes;
}

/** The names of the database's files in messages. */
const FILE_ROLES: Record<string, string> = { '': 'the database', '-wal': "the database's write-ahead log", '-shm': "the database's shared-memory index" };

/**
 * Refuses (Forbidden, naming the file and why) a database, -wal or -shm that another user owns,
 * that other users may write, or that is not a regular file (a folder given as --db by mistake),
 * and a database folder others may write without the sticky bit (anyone could swap the files).
 * Runs before anything is created, opened or tightened. Returns whether the database file
 * exists with content (an existing database, to be checked to be Spool's before it is opened).
 */
export function checkDatabaseFiles(dbPath: string): boolean {
  const uid = process.getuid?.();
  const folder = path.dirname(path.resolve(dbPath));
  let existing = false;
  if (uid === undefined) return fs.existsSync(dbPath) && fs.statSync(dbPath).size > 0;
  if (fs.existsSync(folder)) {
    const open = folderOpenToOthers(folder);
    if (open !== null) {
      throw new SpoolError(
        ErrorCode.Forbidden,
        `Refusing the database ${dbPath}: ${open.replace('their own socket', 'their own database')}. Keep the database in a folder only you can write (chmod 700 ${folder}), or pick another --db.`,
        { field: 'db' },
      );
    }
  }
  for (const [suffix, role] of Object.entries(FILE_ROLES)) {
    const file = `${dbPath}${suffix}`;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') continue;
      throw error;
    }
    if (!stat.isFile()) {
      const kind = stat.isDirectory() ? 'a folder' : 'not a regular file';
      const advice = suffix === '' && stat.isDirectory() ? `Name a database file in it instead, such as --db ${path.join(dbPath, 'spool.db')}.` : 'Point --db elsewhere.';
      throw new SpoolError(ErrorCode.InvalidParams, `Refusing ${role} ${file}: it is ${kind}, not a database file. ${advice}`, { field: 'db' });
    }
    const reason = notOwnReason(stat, uid);
    if (reason !== null) {
      throw new SpoolError(
        ErrorCode.Forbidden,
        `Refusing ${role} ${file}: ${reason}, so its jobs and their payloads could be read or planted by someone else. ` +
          'Keep the database in a folder only you can write (a shared folder such as /tmp is not one), or, if the file is yours, make it yours alone (chown, chmod 600).',
        { field: 'db' },
      );
    }
    if (suffix === '') existing = stat.size > 0;
  }
  return existing;
}
