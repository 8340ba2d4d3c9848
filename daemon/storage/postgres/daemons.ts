/**
 * Statements over daemons (../statements/daemons.ts), in PostgreSQL: the daemons running on the
 * database, and the leader lease (River's river_leader), one row per role in `leaders`, held by
 * one daemon until it expires.
 */
import type { AsyncPart } from '../statements';
import type { DaemonSql } from '../statements/daemons';
import { mapDaemon } from '../mappers';
import { text, type Row } from '../rows';
import type { PgTx } from './db';

/** The executor id a RETURNING gave, or undefined when no row matched. */
function executorOf(row: Row | undefined): string | undefined {
  return row === undefined ? undefined : text(row, 'executor_id');
}

export const daemonStatements: AsyncPart<PgTx, DaemonSql> = {
  async daemonUpsert(tx, r) {
    await tx.run(
      `INSERT INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, NULL)
       ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, process_start = EXCLUDED.process_start,
         socket = EXCLUDED.socket, executor_id = EXCLUDED.executor_id, started_at = EXCLUDED.started_at,
         heartbeat_at = EXCLUDED.heartbeat_at, stopped_at = NULL`,
      [r.id, r.host, r.pid, r.processStart, r.socketPath, r.executorId, r.now],
    );
  },

  async daemonGet(tx, id) {
    const row = await tx.row('SELECT * FROM daemons WHERE id = $1', [id]);
    return row === undefined ? undefined : mapDaemon(row);
  },

  async daemonList(tx) {
    return (await tx.rows('SELECT * FROM daemons ORDER BY started_at, id')).map(mapDaemon);
  },

  async daemonHeartbeat(tx, p) {
    return executorOf(await tx.row('UPDATE daemons SET heartbeat_at = $2 WHERE id = $1 AND stopped_at IS NULL RETURNING executor_id', [p.id, p.now]));
  },

  async daemonStop(tx, p) {
    return executorOf(await tx.row('UPDATE daemons SET stopped_at = $2, heartbeat_at = $2 WHERE id = $1 RETURNING executor_id', [p.id, p.now]));
  },

  async daemonDelete(tx, id) {
    return executorOf(await tx.row('DELETE FROM daemons WHERE id = $1 RETURNING executor_id', [id]));
  },

  /**
   * One statement takes a free or expired lease, or renews this daemon's own; a lease another
   * daemon holds and keeps renewing is never taken. Times are the daemons' clocks (epoch ms), as
   * every time in the store is: daemons whose clocks disagree by more than the lease's length
   * could overlap for that long, and the work they guard (reaping, retention) is safe to run
   * twice anyway. A lease another daemon holds, unexpired, is seen first without a lock: the
   * upsert, which would wait for the holder's renewal to commit (its row lock), is then not
   * tried at all.
   */
  async leaderHold(tx, p) {
    const row = await tx.row(
      `INSERT INTO leaders AS l (role, daemon_id, elected_at, expires_at)
       SELECT $1::text, $2::text, $3::bigint, $4::bigint
       WHERE NOT EXISTS (SELECT 1 FROM leaders WHERE role = $1 AND daemon_id <> $2 AND expires_at > $3)
       ON CONFLICT (role) DO UPDATE SET
         daemon_id = EXCLUDED.daemon_id,
         elected_at = CASE WHEN l.daemon_id = EXCLUDED.daemon_id THEN l.elected_at ELSE EXCLUDED.elected_at END,
         expires_at = EXCLUDED.expires_at
       WHERE l.daemon_id = EXCLUDED.daemon_id OR l.expires_at <= $3
       RETURNING daemon_id`,
      [p.role, p.daemonId, p.now, p.now + p.ttlMs],
    );
    return row !== undefined && p.ttlMs > 0;
  },

  async settingGet(tx, name) {
    const row = await tx.row('SELECT value FROM settings WHERE name = $1', [name]);
    return row === undefined ? undefined : text(row, 'value');
  },

  async settingSet(tx, p) {
    await tx.run(
      `INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
      [p.name, p.value, p.now],
    );
  },
};
