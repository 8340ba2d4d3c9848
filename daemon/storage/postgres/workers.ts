/**
 * Statements over workers (../statements/workers.ts), in PostgreSQL.
 */
import type { AsyncPart } from '../statements';
import type { WorkerSql } from '../statements/workers';
import { int } from '../rows';
import type { PgTx } from './db';

export const workerStatements: AsyncPart<PgTx, WorkerSql> = {
  /**
   * The worker's row is locked first and the weight read after, in a statement of its own (a
   * fresh snapshot under READ COMMITTED): two claims of one worker on two daemons then count
   * each other's jobs.
   */
  async workerCapacityLeft(tx, workerId) {
    const worker = await tx.row('SELECT capacity FROM workers WHERE id = $1 AND capacity IS NOT NULL FOR UPDATE', [workerId]);
    if (!worker) return null;
    const held = await tx.row(`SELECT coalesce(sum(weight), 0) AS held FROM jobs WHERE state = 'running' AND worker_id = $1`, [workerId]);
    return int(worker, 'capacity') - (held ? int(held, 'held') : 0);
  },
};
