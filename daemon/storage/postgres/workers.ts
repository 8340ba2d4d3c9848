/**
 * Statements over workers (../statements/workers.ts), in PostgreSQL: the daemon's own executors
 * and remote workers that registered, with the jobs each is running.
 */
import type { AsyncPart } from '../statements';
import type { WorkerSql } from '../statements/workers';
import { mapWorker } from '../mappers';
import { int, text } from '../rows';
import type { PgTx } from './db';

/** The running jobs of these workers, by worker (jobs_running_worker: the running set is small). */
async function runningByWorker(tx: PgTx, ids: string[]): Promise<Map<string, string[]>> {
  const byWorker = new Map<string, string[]>();
  if (ids.length === 0) return byWorker;
  const rows = await tx.rows(`SELECT worker_id, id FROM jobs WHERE state = 'running' AND worker_id = ANY($1::text[]) ORDER BY id`, [ids]);
  for (const row of rows) {
    const worker = text(row, 'worker_id');
    const list = byWorker.get(worker);
    if (list) list.push(text(row, 'id'));
    else byWorker.set(worker, [text(row, 'id')]);
  }
  return byWorker;
}

export const workerStatements: AsyncPart<PgTx, WorkerSql> = {
  async workerUpsert(tx, w) {
    // Registering again (a reconnect) keeps started_at and marks the worker alive.
    await tx.run(
      `INSERT INTO workers (id, type, name, host, pid, queues, kinds, concurrency, capacity, started_at, last_heartbeat_at, alive)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, 1)
       ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, host = EXCLUDED.host, pid = EXCLUDED.pid,
         queues = EXCLUDED.queues, kinds = EXCLUDED.kinds, concurrency = EXCLUDED.concurrency, capacity = EXCLUDED.capacity,
         last_heartbeat_at = EXCLUDED.last_heartbeat_at, alive = 1`,
      [w.id, w.type, w.name, w.host, w.pid, w.queues, w.kinds, w.concurrency, w.capacity, w.now],
    );
  },

  async workerGet(tx, id) {
    const row = await tx.row('SELECT * FROM workers WHERE id = $1', [id]);
    return row === undefined ? undefined : mapWorker(row, (await runningByWorker(tx, [id])).get(id) ?? []);
  },

  async workerList(tx) {
    const rows = await tx.rows('SELECT * FROM workers ORDER BY alive DESC, started_at DESC, id');
    const running = await runningByWorker(tx, rows.map((r) => text(r, 'id')));
    return rows.map((row) => mapWorker(row, running.get(text(row, 'id')) ?? []));
  },

  async workerTouch(tx, p) {
    return (await tx.run('UPDATE workers SET last_heartbeat_at = $2, alive = 1 WHERE id = $1', [p.id, p.now])) > 0;
  },

  async workerMarkGone(tx, id) {
    return (await tx.run('UPDATE workers SET alive = 0 WHERE id = $1', [id])) > 0;
  },

  async workerExecutorSeen(tx, p) {
    await tx.run(`UPDATE workers SET last_heartbeat_at = $3, alive = 1 WHERE id = $1 AND type = 'builtin' AND pid IS NOT DISTINCT FROM $2`, [p.id, p.pid, p.now]);
  },

  async workerExecutorGone(tx, p) {
    await tx.run(`UPDATE workers SET alive = 0 WHERE id = $1 AND type = 'builtin' AND pid IS NOT DISTINCT FROM $2`, [p.id, p.pid]);
  },

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
