/**
 * SQL over daemons: the daemon instances running (or stopped without a successor yet) on this
 * file, with their heartbeats (migration 9). Recording a heartbeat also refreshes the daemon's
 * built-in executors' worker row, so they show as seen while their daemon runs.
 */
import type { DaemonInstance, DaemonRegistration } from '../backend';
import type { Db } from './db';
import { mapDaemon } from '../mappers';
import { toRow } from './row';


export class DaemonStatements {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly allStmt;
  private readonly heartbeatStmt;
  private readonly stoppedStmt;
  private readonly deleteStmt;
  private readonly executorSeenStmt;
  private readonly executorGoneStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`
      INSERT OR REPLACE INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
      VALUES (@id, @host, @pid, @processStart, @socketPath, @executorId, @now, @now, NULL)`);
    this.byIdStmt = db.prepare('SELECT * FROM daemons WHERE id = @id');
    this.allStmt = db.prepare('SELECT * FROM daemons ORDER BY started_at, id');
    this.heartbeatStmt = db.prepare('UPDATE daemons SET heartbeat_at = @now WHERE id = @id AND stopped_at IS NULL RETURNING executor_id').pluck();
    this.stoppedStmt = db.prepare('UPDATE daemons SET stopped_at = @now, heartbeat_at = @now WHERE id = @id RETURNING executor_id').pluck();
    this.deleteStmt = db.prepare('DELETE FROM daemons WHERE id = @id RETURNING executor_id').pluck();
    // Only the executors' own row, and only while it belongs to this daemon's pid: a daemon that
    // took the socket (and so the executor id) over must not be marked by its predecessor.
    this.executorSeenStmt = db.prepare(`UPDATE workers SET last_heartbeat_at = @now, alive = 1 WHERE id = @id AND type = 'builtin' AND pid IS @pid`);
    this.executorGoneStmt = db.prepare(`UPDATE workers SET alive = 0 WHERE id = @id AND type = 'builtin' AND pid IS @pid`);
  }

  insert(values: DaemonRegistration & { now: number }): void {
    this.insertStmt.run(values);
  }

  get(id: string): DaemonInstance | undefined {
    const raw = this.byIdStmt.get({ id });
    return raw === undefined ? undefined : mapDaemon(toRow(raw, 'daemon'));
  }

  all(): DaemonInstance[] {
    return this.allStmt.all().map((raw) => mapDaemon(toRow(raw, 'daemon')));
  }

  /** False when the daemon has no row, or is recorded as stopped. */
  heartbeat(id: string, pid: number, now: number): boolean {
    const executorId: unknown = this.heartbeatStmt.get({ id, now });
    if (typeof executorId !== 'string') return false;
    this.executorSeenStmt.run({ id: executorId, pid, now });
    return true;
  }

  stopped(id: string, pid: number, now: number): boolean {
    const executorId: unknown = this.stoppedStmt.get({ id, now });
    if (typeof executorId !== 'string') return false;
    this.executorGoneStmt.run({ id: executorId, pid });
    return true;
  }

  delete(id: string, pid: number): boolean {
    const executorId: unknown = this.deleteStmt.get({ id });
    if (typeof executorId !== 'string') return false;
    this.executorGoneStmt.run({ id: executorId, pid });
    return true;
  }
}
