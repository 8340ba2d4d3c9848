/**
 * Statements over daemons (see ./index.ts for the protocol): the daemon instances running on the
 * store, or stopped (or dead) until a successor has recovered what they left running, and the
 * leader lease that picks the one daemon doing maintenance.
 */

/** A daemon running on the store (or stopped, until a successor has recovered what it left running). */
export interface DaemonInstance {
  /** Chosen by the daemon when it starts: one per process. */
  id: string;
  host: string;
  pid: number;
  /**
   * When the process started, as the kernel counts it (Linux: /proc/<pid>/stat field 22), so that
   * a pid reused by another process is not taken for the daemon; null where it cannot be read.
   */
  processStart: string | null;
  socketPath: string;
  /** The worker id its built-in executors claim under. */
  executorId: string;
  startedAt: number;
  /** Its last heartbeat: when it was last known alive. */
  heartbeatAt: number;
  /** When it stopped cleanly; null while it runs, or if it died. */
  stoppedAt: number | null;
}

/** What a daemon records about itself when it starts. */
export type DaemonRegistration = Pick<DaemonInstance, 'id' | 'host' | 'pid' | 'processStart' | 'socketPath' | 'executorId'>;

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
  /** A daemon-wide setting (the `settings` table): its value, or undefined when it was never set. */
  settingGet(name: string): string | undefined;
  /** Sets a daemon-wide setting for every daemon on the store. */
  settingSet(p: { name: string; value: string; now: number }): void;
}
