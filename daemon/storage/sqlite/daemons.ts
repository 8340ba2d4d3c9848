/**
 * SQL over daemons (../statements/daemons.ts): the daemon instances running (or stopped without
 * a successor yet) on this file, with their heartbeats (migration 9), and the leader lease,
 * which SQLite does without.
 */
import type { DaemonInstance, DaemonRegistration } from '../statements/daemons';
import type { DaemonSql } from '../statements/daemons';
import type { Db } from './db';
import { mapDaemon } from '../mappers';
import { toRow } from './row';

export class DaemonStatements implements DaemonSql {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly allStmt;
  private readonly heartbeatStmt;
  private readonly stoppedStmt;
  private readonly deleteStmt;
  private readonly settingGetStmt;
  private readonly settingSetStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`
      INSERT OR REPLACE INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
      VALUES (@id, @host, @pid, @processStart, @socketPath, @executorId, @now, @now, NULL)`);
    this.byIdStmt = db.prepare('SELECT * FROM daemons WHERE id = @id');
    this.settingGetStmt = db.prepare('SELECT value FROM settings WHERE name = @name').pluck();
    this.settingSetStmt = db.prepare(`
      INSERT INTO settings (name, value, updated_at) VALUES (@name, @value, @now)
      ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    this.allStmt = db.prepare('SELECT * FROM daemons ORDER BY started_at, id');
    this.heartbeatStmt = db.prepare('UPDATE daemons SET heartbeat_at = @now WHERE id = @id AND stopped_at IS NULL RETURNING executor_id').pluck();
    this.stoppedStmt = db.prepare('UPDATE daemons SET stopped_at = @now, heartbeat_at = @now WHERE id = @id RETURNING executor_id').pluck();
    this.deleteStmt = db.prepare('DELETE FROM daemons WHERE id = @id RETURNING executor_id').pluck();
  }

  daemonUpsert(p: DaemonRegistration & { now: number }): void {
    this.insertStmt.run(p);
  }

  daemonGet(id: string): DaemonInstance | undefined {
    const raw = this.byIdStmt.get({ id });
    return raw === undefined ? undefined : mapDaemon(toRow(raw, 'daemon'));
  }

  daemonList(): DaemonInstance[] {
    return this.allStmt.all().map((raw) => mapDaemon(toRow(raw, 'daemon')));
  }

  daemonHeartbeat(p: { id: string; now: number }): string | undefined {
    return executorOf(this.heartbeatStmt.get(p));
  }

  daemonStop(p: { id: string; now: number }): string | undefined {
    return executorOf(this.stoppedStmt.get(p));
  }

  daemonDelete(id: string): string | undefined {
    return executorOf(this.deleteStmt.get({ id }));
  }

  /**
   * Unlike PostgreSQL, SQLite keeps no leader lease: the daemons sharing a file are on one
   * machine and their writes serialize on the file's lock anyway, so every daemon may maintain
   * (reap leases, apply retention) and each is always the leader.
   */
  leaderHold(): boolean {
    return true;
  }

  settingGet(name: string): string | undefined {
    const value: unknown = this.settingGetStmt.get({ name });
    return typeof value === 'string' ? value : undefined;
  }

  settingSet(p: { name: string; value: string; now: number }): void {
    this.settingSetStmt.run(p);
  }
}

/** The executor id a RETURNING gave, or undefined when no row matched. */
function executorOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
