/**
 * What the daemon's thread and the WAL checkpointer thread share: the layout of one small
 * SharedArrayBuffer and the data the thread starts with. Imported by both sides, so it holds
 * nothing but constants and types (no better-sqlite3, no worker_threads).
 *
 * Shared memory rather than messages because stopping must be synchronous: `Engine.close()` is,
 * and it must know the checkpointer's connection is closed before it closes its own (the last
 * connection to close checkpoints and removes the WAL file). A message would only be read once
 * the daemon's event loop turns again; `Atomics.wait` lets close() wait in place, and lets the
 * checkpointer sleep between passes yet wake at once when asked to stop.
 */

/** Index of each Int32 slot in the shared array. */
export const SLOT = {
  /** One of the STATE values below. */
  state: 0,
  /** Passes that found new commits and ran a PASSIVE checkpoint. */
  passes: 1,
  /** WAL frames copied into the database file, summed over passes (wraps past 2^31). */
  frames: 2,
  /** Times the WAL was restarted from its beginning by a RESTART checkpoint. */
  restarts: 3,
  /** Size of the WAL in frames after the last pass. */
  walFrames: 4,
  /** How many of those frames are in the database file (equal: the WAL is fully checkpointed). */
  backfilled: 5,
  /** Write transactions the store has committed (counted by the daemon's thread; wraps). */
  commits: 6,
  /** The commit count read at the start of the last pass: equal to `commits`, the pass saw them all. */
  seenCommits: 7,
  /** How many of `commits` were quiet (bookkeeping: counted without waking the thread; wraps). */
  quietCommits: 8,
} as const;

export const SLOTS = 9;

/**
 * The checkpointer's life, moved forward with compareExchange so that both threads agree:
 * starting → running → stopping → stopped, or starting → stopped when the engine closes before
 * the thread has even loaded (it then never opens the database).
 */
export const STATE = { starting: 0, running: 1, stopping: 2, stopped: 3 } as const;

export interface CheckpointerData {
  dbPath: string;
  control: SharedArrayBuffer;
  /** Wait between two looks (and two passes) while commits keep coming. With none, the thread sleeps until one. */
  minIntervalMs: number;
  /** A pass runs once the WAL holds this many frames not yet in the database file... */
  passFrames: number;
  /** ...or this long after the first commit the last pass did not see, whichever comes first. */
  maxDelayMs: number;
  /** A WAL this many frames long is restarted from its beginning (see checkpointer.ts). */
  restartFrames: number;
  /**
   * With nothing committed since the last pass the thread sleeps this long at most, then looks
   * again: quiet commits (WalCheckpointer.committed) do not wake it.
   */
  quietLookMs: number;
}
