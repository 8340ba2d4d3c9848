/**
 * The daemons running on the store, written once for every store, so that a daemon can tell its
 * dead predecessors; and the leader lease that picks the one daemon doing maintenance.
 *
 * A daemon's heartbeat also refreshes its built-in executors' worker row, so they show as seen
 * while their daemon runs, and its stop (or a successor forgetting it) shows them as gone.
 */
import type { DaemonInstance, DaemonRegistration } from '../../storage/statements/daemons';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/** Records a daemon as running from now (again, if the id was recorded before). */
export function* registerDaemon(c: OpContext, registration: DaemonRegistration): Op<DaemonInstance> {
  yield* sql('daemonUpsert', { ...registration, now: c.now() });
  const recorded = yield* sql('daemonGet', registration.id);
  if (!recorded) throw new Error(`Daemon ${registration.id} was recorded but cannot be read back`);
  return recorded;
}

/** Every daemon recorded, oldest first. */
export function* listDaemons(): Op<DaemonInstance[]> {
  return yield* sql('daemonList');
}

/** The daemon is alive now, and so are its executors (if their row is still its own, by `pid`). False if it has no row or is recorded as stopped. */
export function* daemonHeartbeat(c: OpContext, id: string, pid: number): Op<boolean> {
  const now = c.now();
  const executorId = yield* sql('daemonHeartbeat', { id, now });
  if (executorId === undefined) return false;
  yield* sql('workerExecutorSeen', { id: executorId, pid, now });
  return true;
}

/** The daemon stopped cleanly; its executors (if still its own, by `pid`) show as gone. False if it has no row. */
export function* daemonStopped(c: OpContext, id: string, pid: number): Op<boolean> {
  const executorId = yield* sql('daemonStop', { id, now: c.now() });
  if (executorId === undefined) return false;
  yield* sql('workerExecutorGone', { id: executorId, pid });
  return true;
}

/** A successor has recovered what the daemon left: its row goes, and its executors (if still its, by `pid`) show as gone. False if it had no row. */
export function* forgetDaemon(id: string, pid: number): Op<boolean> {
  const executorId = yield* sql('daemonDelete', id);
  if (executorId === undefined) return false;
  yield* sql('workerExecutorGone', { id: executorId, pid });
  return true;
}

/**
 * Takes or keeps the lease on `role` for `daemonId` for `ttlMs` from now: true while this
 * daemon holds it; a `ttlMs` of 0 gives it up. Maintenance (the lease reaper, retention) runs
 * on one daemon at a time where several machines share the store.
 */
export function* holdLeadership(c: OpContext, role: string, daemonId: string, ttlMs: number): Op<boolean> {
  return yield* sql('leaderHold', { role, daemonId, now: c.now(), ttlMs });
}
