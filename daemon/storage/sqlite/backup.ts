/**
 * An online backup of the SQLite file: SQLite's backup API, run on the daemon's own connection,
 * so that commits made during the copy (by this same connection) are carried into it rather than
 * making it start over, and jobs keep being enqueued and claimed meanwhile. The copy is written
 * under a temporary name, 0600 from the start, and renamed into place once complete with its
 * SHA-256 checksum beside it, in `sha256sum` format.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256OfFile } from '../../../shared/client/backups';
import { SpoolError, errorMessage } from '../../../shared/protocol/errors';
import { ErrorCode, type BackupResult } from '../../../shared/protocol';
import type { Db } from './db';
import { createPrivateFile } from './permissions';
import { isStorageFull } from './sqliteErrors';

/** Copies the database `db` to `target` (absolute), with `target.sha256` beside it. */
export async function backupDatabase(db: Db, target: string, now: () => number = Date.now): Promise<BackupResult> {
  if (!path.isAbsolute(target)) {
    throw new SpoolError(ErrorCode.InvalidParams, `The backup path must be absolute (got ${target.slice(0, 256)}).`, { field: 'path' });
  }
  const folder = path.dirname(target);
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) {
    throw new SpoolError(ErrorCode.InvalidParams, `Cannot write the backup ${target}: the folder ${folder} does not exist. Create it first.`, { field: 'path' });
  }
  const live = path.resolve(db.name);
  if ([live, `${live}-wal`, `${live}-shm`].includes(fs.existsSync(target) ? fs.realpathSync(target) : target)) {
    throw new SpoolError(ErrorCode.InvalidParams, `${target} is the daemon's own database: a backup must go to another file.`, { field: 'path' });
  }
  const started = now();
  const partial = path.join(folder, `.${path.basename(target)}.partial-${process.pid}`);
  try {
    createPrivateFile(partial);
    await db.backup(partial);
    fs.chmodSync(partial, 0o600);
    const sha256 = await sha256OfFile(partial);
    const bytes = fs.statSync(partial).size;
    const checksumPath = `${target}.sha256`;
    const checksumPartial = `${partial}.sha256`;
    createPrivateFile(checksumPartial);
    fs.writeFileSync(checksumPartial, `${sha256}  ${path.basename(target)}\n`);
    fs.renameSync(partial, target);
    fs.renameSync(checksumPartial, checksumPath);
    return { path: target, checksumPath, sha256, bytes, ms: now() - started };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    fs.rmSync(`${partial}.sha256`, { force: true });
    fs.rmSync(`${partial}-journal`, { force: true });
    if (error instanceof SpoolError) throw error;
    if (isStorageFull(error) || (error instanceof Error && 'code' in error && error.code === 'ENOSPC')) {
      throw new SpoolError(ErrorCode.StorageFull, `The disk holding ${folder} is full: the backup was not written. Free some space there or pick another folder.`, {
        field: 'path',
      });
    }
    const reason = errorMessage(error);
    throw new SpoolError(ErrorCode.InvalidParams, `Cannot write the backup ${target}: ${reason}.`, { field: 'path' });
  }
}
