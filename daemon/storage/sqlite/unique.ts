/**
 * SQL over unique locks (../statements/unique.ts, migration 15). Each statement reads or writes
 * one row by its key; SQLite's write lock orders every enqueue anyway, so the swap's condition
 * on the holder never fails here unless the holder changed earlier in the same transaction.
 */
import type { UniqueLock, UniqueSql } from '../statements/unique';
import type { Db } from './db';
import { int, text, toRow } from './row';

export class UniqueStatements implements UniqueSql {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly replaceStmt;
  private readonly deleteExpiredStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO unique_locks (hash, job_id, until) VALUES (@hash, @jobId, @until) ON CONFLICT (hash) DO NOTHING');
    this.getStmt = db.prepare('SELECT hash, job_id, until FROM unique_locks WHERE hash = @hash');
    this.replaceStmt = db.prepare('UPDATE unique_locks SET job_id = @jobId, until = @until WHERE hash = @hash AND job_id = @previousJobId');
    this.deleteExpiredStmt = db.prepare('DELETE FROM unique_locks WHERE hash IN (SELECT hash FROM unique_locks WHERE until < @before ORDER BY until LIMIT @limit)');
  }

  uniqueLockInsert(lock: UniqueLock): boolean {
    return this.insertStmt.run(lock).changes > 0;
  }

  uniqueLockGet(hash: string): UniqueLock | undefined {
    const raw: unknown = this.getStmt.get({ hash });
    if (raw === undefined) return undefined;
    const row = toRow(raw, 'unique lock');
    return { hash: text(row, 'hash'), jobId: text(row, 'job_id'), until: int(row, 'until') };
  }

  uniqueLockReplace(p: UniqueLock & { previousJobId: string }): boolean {
    return this.replaceStmt.run(p).changes > 0;
  }

  uniqueLockDeleteExpired(p: { before: number; limit: number }): number {
    return this.deleteExpiredStmt.run(p).changes;
  }
}
