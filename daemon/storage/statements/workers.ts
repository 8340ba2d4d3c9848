/**
 * Statements of the workers concern (see ./index.ts for the protocol): one method per statement,
 * synchronous as SQLite implements them; PostgreSQL implements each asynchronously.
 */

export interface WorkerSql {
  /**
   * How much more weight the worker may take: its registered capacity less the weight of the
   * jobs it holds; null when it declared none (or never registered).
   */
  workerCapacityLeft(workerId: string): number | null;
}
