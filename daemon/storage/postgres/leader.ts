/**
 * The leader lease (River's river_leader): one row per role in `leaders`, held by one daemon
 * until it expires. One statement takes a free or expired lease, or renews this daemon's own,
 * and answers whether this daemon holds it; a lease another daemon holds and keeps renewing is
 * never taken. Times are the daemons' clocks (epoch ms), as every time in the store is: daemons
 * whose clocks disagree by more than the lease's length could overlap for that long, and the
 * work they guard (reaping, retention) is safe to run twice anyway.
 */
import type { PgTx } from './db';

export async function holdLeadership(tx: PgTx, role: string, daemonId: string, ttlMs: number): Promise<boolean> {
  const now = tx.now();
  const row = await tx.row(
    `INSERT INTO leaders AS l (role, daemon_id, elected_at, expires_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (role) DO UPDATE SET
       daemon_id = EXCLUDED.daemon_id,
       elected_at = CASE WHEN l.daemon_id = EXCLUDED.daemon_id THEN l.elected_at ELSE EXCLUDED.elected_at END,
       expires_at = EXCLUDED.expires_at
     WHERE l.daemon_id = EXCLUDED.daemon_id OR l.expires_at <= $3
     RETURNING daemon_id`,
    [role, daemonId, now, now + ttlMs],
  );
  return row !== undefined && ttlMs > 0;
}
