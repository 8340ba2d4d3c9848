/**
 * Statements over single jobs (see ./index.ts for the protocol). Every statement that changes a
 * running job for its worker carries `state = 'running' AND worker_id = workerId` in its WHERE,
 * so that a worker whose lease expired changes nothing, whatever it read before.
 */
import type { Job } from '../../../shared/types';

/** A heartbeat's extension of a lease. */
export type JobHeartbeat = {
  id: string;
  workerId: string;
  /** The new expiry (epoch ms); the stored one is kept if later. */
  lease: number;
  now: number;
};

export type JobProgress = {
  id: string;
  workerId: string;
  percent: number;
  message: string | null;
  now: number;
};

export type JobCheckpoint = {
  id: string;
  workerId: string;
  checkpoint: string;
  now: number;
};

export type JobSql = {
  /** One job, or undefined. */
  jobGet(id: string): Job | undefined;
  /**
   * One job, its row locked for the rest of the transaction (PostgreSQL: FOR UPDATE), so that
   * what an operation computes from it still holds when it writes.
   */
  jobGetForUpdate(id: string): Job | undefined;
  /** Extends the lease of a job `workerId` holds; undefined when it does not hold it. */
  jobHeartbeat(p: JobHeartbeat): { leaseExpiresAt: number; cancelRequested: boolean } | undefined;
  /** Records progress on a job `workerId` holds; the job, or undefined when it does not hold it. */
  jobSetProgress(p: JobProgress): Job | undefined;
  /** Stores the checkpoint of a job `workerId` holds; false when it does not hold it. */
  jobSetCheckpoint(p: JobCheckpoint): boolean;
};
