/**
 * Statements over daemons (see ./index.ts for the protocol): the daemon instances running on the
 * store, or stopped (or dead) until a successor has recovered what they left running, and the
 * leader lease that picks the one daemon doing maintenance.
 */
import type { DaemonInstance, DaemonRegistration } from '../backend';

/** A daemon's claim on a role's lease (see leaderHold). */
export type LeaderLease = {
  role: string;
  daemonId: string;
  now: number;
  /** How long the lease runs from `now`; 0 gives it up. */
  ttlMs: number;
};

export interface DaemonSql {
  /** Records a daemon as running from `now`, replacing what was recorded under its id before. */
  daemonUpsert(p: DaemonRegistration & { now: number }): void;
  /** One daemon, or undefined. */
  daemonGet(id: string): DaemonInstance | undefined;
  /** Every daemon recorded, oldest first. */
  daemonList(): DaemonInstance[];
  /** The daemon's heartbeat at `now`: its executors' worker id, or undefined when it has no row or is recorded as stopped. */
  daemonHeartbeat(p: { id: string; now: number }): string | undefined;
  /** The daemon stopped cleanly at `now`: its executors' worker id, or undefined when it has no row. */
  daemonStop(p: { id: string; now: number }): string | undefined;
  /** Removes the daemon's row: its executors' worker id, or undefined when it had none. */
  daemonDelete(id: string): string | undefined;
  /**
   * Takes or keeps the lease on `role` for `daemonId`: true while this daemon holds it. A lease
   * another daemon holds is taken over only once it has expired. Maintenance (the lease reaper,
   * retention) runs on the holder only.
   */
  leaderHold(p: LeaderLease): boolean;
}
