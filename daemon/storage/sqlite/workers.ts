/**
 * SQL over workers (../statements/workers.ts): the daemon's own executors and remote workers
 * that registered.
 */
import type { Worker } from '../../../shared/protocol/types';
import type { WorkerExecutor, WorkerSql, WorkerWrite } from '../statements/workers';
import type { Db } from './db';
import { mapWorker } from '../mappers';
import { int, text, toRow } from './row';

export class WorkerStatements implements WorkerSql {
  private readonly upsertStmt;
  private readonly byIdStmt;
  private readonly allStmt;
  private readonly touchStmt;
  private readonly goneStmt;
  private readonly runningStmt;
  private readonly capacityLeftStmt;
  private readonly executorSeenStmt;
  private readonly executorGoneStmt;

  constructor(db: Db) {
    // Registering again (a reconnect) keeps started_at and marks the worker alive.
    this.upsertStmt = db.prepare(`
      INSERT INTO workers (id, type, name, host, pid, queues, kinds, concurrency, capacity, started_at, last_heartbeat_at, alive)
      VALUES (@id, @type, @name, @host, @pid, @queues, @kinds, @concurrency, @capacity, @now, @now, 1)
      ON CONFLICT (id) DO UPDATE SET type = excluded.type, name = excluded.name, host = excluded.host, pid = excluded.pid,
        queues = excluded.queues, kinds = excluded.kinds, concurrency = excluded.concurrency, capacity = excluded.capacity,
        last_heartbeat_at = excluded.last_heartbeat_at, alive = 1`);
    this.byIdStmt = db.prepare('SELECT * FROM workers WHERE id = @id');
    this.allStmt = db.prepare('SELECT * FROM workers ORDER BY alive DESC, started_at DESC, id');
    this.touchStmt = db.prepare('UPDATE workers SET last_heartbeat_at = @now, alive = 1 WHERE id = @id');
    this.goneStmt = db.prepare('UPDATE workers SET alive = 0 WHERE id = @id');
    this.runningStmt = db.prepare(`SELECT id FROM jobs INDEXED BY jobs_lease WHERE state = 'running' AND worker_id = @id ORDER BY id`);
    // The worker's capacity less the weight it holds; the running set is small (jobs_lease).
    this.capacityLeftStmt = db.prepare(`
      SELECT capacity - (SELECT coalesce(sum(weight), 0) FROM jobs INDEXED BY jobs_lease WHERE state = 'running' AND worker_id = @id) AS room
      FROM workers WHERE id = @id AND capacity IS NOT NULL`);
    this.executorSeenStmt = db.prepare(`UPDATE workers SET last_heartbeat_at = @now, alive = 1 WHERE id = @id AND type = 'builtin' AND pid IS @pid`);
    this.executorGoneStmt = db.prepare(`UPDATE workers SET alive = 0 WHERE id = @id AND type = 'builtin' AND pid IS @pid`);
  }

  workerUpsert(values: WorkerWrite): void {
    this.upsertStmt.run(values);
  }

  workerGet(id: string): Worker | undefined {
    const raw = this.byIdStmt.get({ id });
    return raw === undefined ? undefined : mapWorker(toRow(raw, 'worker'), this.runningJobIds(id));
  }

  workerList(): Worker[] {
    return this.allStmt.all().map((raw) => {
      const row = toRow(raw, 'worker');
      return mapWorker(row, this.runningJobIds(text(row, 'id')));
    });
  }

  workerTouch(p: { id: string; now: number }): boolean {
    return this.touchStmt.run(p).changes > 0;
  }

  workerMarkGone(id: string): boolean {
    return this.goneStmt.run({ id }).changes > 0;
  }

  workerExecutorSeen(p: WorkerExecutor): void {
    this.executorSeenStmt.run(p);
  }

  workerExecutorGone(p: Omit<WorkerExecutor, 'now'>): void {
    this.executorGoneStmt.run(p);
  }

  private runningJobIds(id: string): string[] {
    return this.runningStmt.all({ id }).map((raw) => text(toRow(raw, 'running job'), 'id'));
  }

  /** Statement of ../statements/workers.ts: the worker's capacity less what it holds, null when it declared none. */
  workerCapacityLeft(id: string): number | null {
    const raw = this.capacityLeftStmt.get({ id });
    return raw === undefined ? null : int(toRow(raw, 'worker capacity'), 'room');
  }
}
