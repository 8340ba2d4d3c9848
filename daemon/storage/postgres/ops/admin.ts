/**
 * The daemons running on the database, and access tokens. Recording a daemon's heartbeat also
 * refreshes its built-in executors' worker row, so they show as seen while their daemon runs.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode, type TokenScope } from '../../../../shared/protocol';
import type { DaemonInstance, DaemonRegistration, StoredToken } from '../../backend';
import { mapDaemon, oneOf } from '../../mappers';
import { int, text, type Row } from '../../rows';
import type { PgTx } from '../db';


const SCOPES: readonly TokenScope[] = ['admin', 'worker', 'read'];

function mapToken(row: Row): StoredToken {
  return { name: text(row, 'name'), scope: oneOf(row, 'scope', SCOPES), hash: text(row, 'hash'), createdAt: int(row, 'created_at') };
}

export async function registerDaemon(tx: PgTx, r: DaemonRegistration): Promise<DaemonInstance> {
  const row = await tx.row(
    `INSERT INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, NULL)
     ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, process_start = EXCLUDED.process_start,
       socket = EXCLUDED.socket, executor_id = EXCLUDED.executor_id, started_at = EXCLUDED.started_at,
       heartbeat_at = EXCLUDED.heartbeat_at, stopped_at = NULL
     RETURNING *`,
    [r.id, r.host, r.pid, r.processStart, r.socketPath, r.executorId, tx.now()],
  );
  if (!row) throw new Error(`Daemon ${r.id} was recorded but cannot be read back`);
  return mapDaemon(row);
}

export async function listDaemons(tx: PgTx): Promise<DaemonInstance[]> {
  return (await tx.rows('SELECT * FROM daemons ORDER BY started_at, id')).map(mapDaemon);
}

/**
 * Only the executors' own row, and only while it belongs to this daemon's pid: a daemon that
 * took the socket (and so the executor id) over must not be marked by its predecessor.
 */
async function executorSeen(tx: PgTx, executorId: string, pid: number, now: number): Promise<void> {
  await tx.run(`UPDATE workers SET last_heartbeat_at = $3, alive = 1 WHERE id = $1 AND type = 'builtin' AND pid IS NOT DISTINCT FROM $2`, [executorId, pid, now]);
}

async function executorGone(tx: PgTx, executorId: string, pid: number): Promise<void> {
  await tx.run(`UPDATE workers SET alive = 0 WHERE id = $1 AND type = 'builtin' AND pid IS NOT DISTINCT FROM $2`, [executorId, pid]);
}

export async function daemonHeartbeat(tx: PgTx, id: string, pid: number): Promise<boolean> {
  const now = tx.now();
  const row = await tx.row('UPDATE daemons SET heartbeat_at = $2 WHERE id = $1 AND stopped_at IS NULL RETURNING executor_id', [id, now]);
  if (!row) return false;
  await executorSeen(tx, text(row, 'executor_id'), pid, now);
  return true;
}

export async function daemonStopped(tx: PgTx, id: string, pid: number): Promise<boolean> {
  const row = await tx.row('UPDATE daemons SET stopped_at = $2, heartbeat_at = $2 WHERE id = $1 RETURNING executor_id', [id, tx.now()]);
  if (!row) return false;
  await executorGone(tx, text(row, 'executor_id'), pid);
  return true;
}

export async function forgetDaemon(tx: PgTx, id: string, pid: number): Promise<boolean> {
  const row = await tx.row('DELETE FROM daemons WHERE id = $1 RETURNING executor_id', [id]);
  if (!row) return false;
  await executorGone(tx, text(row, 'executor_id'), pid);
  return true;
}

/** Stores the token's hash (never the token). Two daemons creating one name at once: one wins, the other is refused. */
export async function createToken(tx: PgTx, token: StoredToken): Promise<void> {
  const inserted = await tx.run('INSERT INTO tokens (name, scope, hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING', [
    token.name,
    token.scope,
    token.hash,
    token.createdAt,
  ]);
  if (inserted === 0) {
    throw new SpoolError(ErrorCode.AlreadyExists, `A token named "${token.name}" exists already. Revoke it first (spool token revoke ${token.name}), or pick another name.`, { field: 'name' });
  }
}

export async function listTokens(tx: PgTx): Promise<StoredToken[]> {
  return (await tx.rows('SELECT * FROM tokens ORDER BY name')).map(mapToken);
}

export async function revokeToken(tx: PgTx, name: string): Promise<boolean> {
  return (await tx.run('DELETE FROM tokens WHERE name = $1', [name])) > 0;
}
