/**
 * Statements over unique locks (see ./index.ts for the protocol): one row per "such job" (the
 * hash of a rule and the parts of a job its `by` names), holding the job that has the place and
 * until when. The engine (daemon/engine/ops/unique.ts) decides whether a holder still holds;
 * these only insert a missing row and swap a holder for another, each a single statement on
 * the row's key, so that two daemons enqueueing the same job at once are ordered by the
 * database: of two inserts one finds the row there, of two swaps from the same holder one
 * finds the holder changed.
 */

/** A lock as stored. */
export type UniqueLock = {
  hash: string;
  jobId: string;
  /** `unique`: when the window ends; `debounce`: the waiting job's run time; `throttle`: the earliest start of the next job. */
  until: number;
};

export interface UniqueSql {
  /** Inserts the lock unless one with its hash exists (whoever holds it); true when inserted. */
  uniqueLockInsert(lock: UniqueLock): boolean;
  /** The lock with this hash, or undefined. */
  uniqueLockGet(hash: string): UniqueLock | undefined;
  /** Gives the lock to `jobId` until `until` if `previousJobId` still holds it; true when swapped. */
  uniqueLockReplace(p: UniqueLock & { previousJobId: string }): boolean;
  /** Deletes up to `limit` locks whose `until` is before `before`; how many. */
  uniqueLockDeleteExpired(p: { before: number; limit: number }): number;
}
