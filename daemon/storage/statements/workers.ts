/**
 * Statements over workers (see ./index.ts for the protocol): the daemon's built-in executors and
 * the remote workers that registered, shown in the UI.
 */
import type { Worker } from '../../../shared/protocol/types';

/** A worker's columns as registering writes them. */
export type WorkerWrite = {
  id: string;
  type: string;
  name: string | null;
  host: string | null;
  pid: number | null;
  /** JSON text of the queue names. */
  queues: string;
  /** JSON text of the kinds. */
  kinds: string;
  concurrency: number | null;
  capacity: number | null;
  now: number;
};

/** A daemon's built-in executors' worker row, as long as it still belongs to the daemon's pid. */
export type WorkerExecutor = {
  id: string;
  pid: number;
  now: number;
};

export interface WorkerSql {
  /**
   * How much more weight the worker may take: its registered capacity less the weight of the
   * jobs it holds; null when it declared none (or never registered).
   */
  workerCapacityLeft(workerId: string): number | null;
  /** Registers a worker, or registers it again (a reconnect): started_at is kept and it is marked alive. */
  workerUpsert(p: WorkerWrite): void;
  /** One worker with its running jobs, or undefined. */
  workerGet(id: string): Worker | undefined;
  /** Every worker with its running jobs: alive ones first, newest first. */
  workerList(): Worker[];
  /** The worker was heard from at `now`; false when there is no such worker. */
  workerTouch(p: { id: string; now: number }): boolean;
  /** The worker's connection closed; false when there is no such worker. */
  workerMarkGone(id: string): boolean;
  /**
   * The executors' row is seen alive at `now`, only while it belongs to the daemon's pid: a
   * daemon that took the socket (and so the executor id) over must not be marked by its
   * predecessor.
   */
  workerExecutorSeen(p: WorkerExecutor): void;
  /** The executors' row shows as gone, on the same condition as workerExecutorSeen. */
  workerExecutorGone(p: Omit<WorkerExecutor, 'now'>): void;
}
