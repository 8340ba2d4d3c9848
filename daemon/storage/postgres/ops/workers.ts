/** Workers: registration, listing, liveness. */
import type { Worker, WorkerType } from '../../../../shared/types';
import type { RegisterInput } from '../../../engine/validate/worker';
import { workerNotFound } from '../../../engine/errors';
import { mapWorker } from '../../mappers';
import { text } from '../../rows';
import type { PgTx } from '../db';

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

export async function registerWorker(tx: PgTx, input: RegisterInput, type: WorkerType): Promise<Worker> {
  // A generated id is a UUIDv7 prefixed by the type, which fits the name pattern.
  const id = input.workerId ?? `${type}-${tx.policy.newId()}`;
  // Registering again (a reconnect) keeps started_at and marks the worker alive.
  const row = await tx.row(
    `INSERT INTO workers (id, type, name, host, pid, queues, kinds, concurrency, capacity, started_at, last_heartbeat_at, alive)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, 1)
     ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, host = EXCLUDED.host, pid = EXCLUDED.pid,
       queues = EXCLUDED.queues, kinds = EXCLUDED.kinds, concurrency = EXCLUDED.concurrency, capacity = EXCLUDED.capacity,
       last_heartbeat_at = EXCLUDED.last_heartbeat_at, alive = 1
     RETURNING *`,
    [id, type, input.name, input.host, input.pid, JSON.stringify(input.queues), JSON.stringify(input.kinds), input.concurrency, input.capacity, tx.now()],
  );
  if (!row) throw new Error(`Worker ${id} was registered but cannot be read back`);
  return mapWorker(row, (await runningByWorker(tx, [id])).get(id) ?? []);
}

export async function listWorkers(tx: PgTx): Promise<Worker[]> {
  const rows = await tx.rows('SELECT * FROM workers ORDER BY alive DESC, started_at DESC, id');
  const running = await runningByWorker(tx, rows.map((r) => text(r, 'id')));
  return rows.map((row) => mapWorker(row, running.get(text(row, 'id')) ?? []));
}

export async function touchWorker(tx: PgTx, workerId: string): Promise<void> {
  if ((await tx.run('UPDATE workers SET last_heartbeat_at = $2, alive = 1 WHERE id = $1', [workerId, tx.now()])) === 0) throw workerNotFound(workerId);
}

export async function markWorkerGone(tx: PgTx, workerId: string): Promise<void> {
  if ((await tx.run('UPDATE workers SET alive = 0 WHERE id = $1', [workerId])) === 0) throw workerNotFound(workerId);
}
