/**
 * Backup files as the CLI and the daemon's scheduled backups name, prune, check and restore
 * them. A backup is a SQLite file with its SHA-256 beside it (`FILE.sha256`, `sha256sum`
 * format); restoring is a file copy into a stopped daemon's database path, checked (by the
 * caller's `check`: the daemon program runs SQLite's integrity check) before it replaces anything,
 * so this needs no database driver (shared/ must not load one).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Timestamped backups in a folder: `spool-2026-11-24T23-15-00-123Z.db` (UTC, sortable by name). */
const TIMESTAMPED = /^spool-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/;

/** The name of a backup taken at `at` (epoch ms) in `dir`. */
export function timestampedBackupPath(dir: string, at: number): string {
  const stamp = new Date(at).toISOString().replace(/:/g, '-').replace('.', '-');
  return path.join(dir, `spool-${stamp}.db`);
}

/**
 * Removes all but the newest `keep` timestamped backups in `dir` (with their checksums); files
 * of other names are never touched. Returns the paths removed.
 */
export function pruneBackups(dir: string, keep: number): string[] {
  const backups = fs
    .readdirSync(dir)
    .filter((name) => TIMESTAMPED.test(name))
    .sort()
    .reverse();
  const removed: string[] = [];
  for (const name of backups.slice(keep)) {
    const file = path.join(dir, name);
    fs.rmSync(file, { force: true });
    fs.rmSync(`${file}.sha256`, { force: true });
    removed.push(file);
  }
  return removed;
}

/** SHA-256 of a file in hex, streamed. */
export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Why a backup cannot be restored, in words for the user, or null when it checks out. */
export async function verifyBackup(file: string): Promise<string | null> {
  if (!fs.existsSync(file)) return `${file} does not exist.`;
  const checksumFile = `${file}.sha256`;
  if (!fs.existsSync(checksumFile)) return `${checksumFile} is missing: a backup is restored only with the checksum \`spool backup\` wrote beside it.`;
  const expected = /^([0-9a-f]{64})\s/.exec(fs.readFileSync(checksumFile, 'utf8'))?.[1];
  if (expected === undefined) return `${checksumFile} does not hold a SHA-256 checksum in sha256sum format.`;
  const actual = await sha256OfFile(file);
  if (actual !== expected) return `${file} does not match its checksum (${checksumFile} says ${expected.slice(0, 12)}…, the file is ${actual.slice(0, 12)}…): it is damaged or was changed.`;
  const header = Buffer.alloc(16);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (header.toString('latin1') !== 'SQLite format 3\0') return `${file} is not a SQLite database.`;
  return null;
}

/** A backup that is not a whole Spool database: nothing was replaced. */
export class DamagedBackupError extends Error {}

/**
 * Puts a verified backup in place of the database at `dbPath` (whose daemon is stopped): copied
 * beside it under a temporary name (0600), checked there with `check` (why it is not a whole
 * Spool database, or null; the copy is removed and DamagedBackupError thrown when it says why),
 * renamed over it, and the old database's -wal and -shm
 * removed, since they belong to the file replaced and SQLite would apply them to the new one.
 * The database replaced is kept as `dbPath.before-restore` for the user to delete. Returns that
 * path, or null when there was no database.
 */
export function restoreBackup(file: string, dbPath: string, check: (copy: string) => string | null): string | null {
  const folder = path.dirname(dbPath);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const partial = `${dbPath}.restore-partial`;
  const removePartial = (): void => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${partial}${suffix}`, { force: true });
  };
  removePartial();
  fs.copyFileSync(file, partial);
  fs.chmodSync(partial, 0o600);
  // The copy is what will be served, so the copy is checked (a read of the backup could differ).
  let problem: string | null;
  try {
    problem = check(partial);
  } catch (error) {
    removePartial();
    throw error;
  }
  if (problem !== null) {
    removePartial();
    throw new DamagedBackupError(`${file} is not a whole Spool database: ${problem}`);
  }
  const fd = fs.openSync(partial, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  let kept: string | null = null;
  if (fs.existsSync(dbPath)) {
    kept = `${dbPath}.before-restore`;
    fs.renameSync(dbPath, kept);
  }
  for (const side of [`${dbPath}-wal`, `${dbPath}-shm`]) {
    if (!fs.existsSync(side)) continue;
    // The replaced database's WAL goes with it (so `kept` is whole), never onto the new file.
    if (kept !== null) fs.renameSync(side, `${kept}${side.slice(dbPath.length)}`);
    else fs.rmSync(side, { force: true });
  }
  fs.renameSync(partial, dbPath);
  return kept;
}
