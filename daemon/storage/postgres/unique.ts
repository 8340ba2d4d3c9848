/**
 * Statements over unique locks (../statements/unique.ts), in PostgreSQL. Two daemons enqueueing
 * the same unique job at once are ordered by the lock row: the second INSERT … ON CONFLICT DO
 * NOTHING waits for the first transaction and, when it commits, inserts nothing; the second
 * swap's UPDATE waits too and then re-checks `job_id` on the row as committed (READ COMMITTED),
 * finding the holder changed. Neither decides from a read made before the other committed.
 */
import type { AsyncPart } from '../statements';
import type { UniqueSql } from '../statements/unique';
import { int, text } from '../rows';
import type { PgTx } from './db';

export const uniqueStatements: AsyncPart<PgTx, UniqueSql> = {
  async uniqueLockInsert(tx, lock) {
    return (await tx.run('INSERT INTO unique_locks (hash, job_id, until) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [lock.hash, lock.jobId, lock.until])) > 0;
  },

  async uniqueLockGet(tx, hash) {
    const row = await tx.row('SELECT hash, job_id, until FROM unique_locks WHERE hash = $1', [hash]);
    return row === undefined ? undefined : { hash: text(row, 'hash'), jobId: text(row, 'job_id'), until: int(row, 'until') };
  },

  async uniqueLockReplace(tx, p) {
    return (await tx.run('UPDATE unique_locks SET job_id = $2, until = $3 WHERE hash = $1 AND job_id = $4', [p.hash, p.jobId, p.until, p.previousJobId])) > 0;
  },

  async uniqueLockDeleteExpired(tx, p) {
    return tx.run('DELETE FROM unique_locks WHERE hash IN (SELECT hash FROM unique_locks WHERE until < $1 ORDER BY until LIMIT $2)', [p.before, p.limit]);
  },
};
