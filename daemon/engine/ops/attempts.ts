/**
 * The worker side of a running job, written once for every store: heartbeat, progress,
 * checkpoint (and, as they move here, output, complete, fail, release and how an attempt ends).
 *
 * Only the worker holding the lease (the job is running and its worker_id is the caller's) may
 * act. Everyone else gets LeaseLost and nothing changes; the statements carry the same
 * condition in their WHERE, so the rule holds even between two daemons on one store.
 */
import { jobNotFound, type SpoolError } from '../../../shared/errors';
import type { HeartbeatResult } from '../../../shared/protocol';
import type { Job } from '../../../shared/types';
import { sql, type Op } from '../../storage/statements';
import { leaseLost as leaseLostError } from '../errors';
import type { OpContext } from './context';

/** LeaseLost (or JobNotFound) for `workerId` on job `id`, worded from the job and its history as they are now. */
export function* leaseLost(id: string, workerId: string): Op<SpoolError> {
  const job = yield* sql('jobGet', id);
  if (!job) return jobNotFound(id);
  const runs = yield* sql('runsOfJob', id);
  return leaseLostError(job, workerId, runs.some((run) => run.workerId === workerId));
}

/** The job, its row locked, if `workerId` holds its lease; LeaseLost or JobNotFound otherwise. */
export function* requireLease(id: string, workerId: string): Op<Job> {
  const job = yield* sql('jobGetForUpdate', id);
  if (!job || job.state !== 'running' || job.workerId !== workerId) throw yield* leaseLost(id, workerId);
  return job;
}

/** Extends the lease by `extendMs` (default: the job's timeout) from now. */
export function* heartbeat(c: OpContext, id: string, workerId: string, extendMs: number | undefined): Op<HeartbeatResult> {
  const now = c.now();
  const job = yield* requireLease(id, workerId);
  const result = yield* sql('jobHeartbeat', { id, workerId, lease: c.policy.rules.leaseUntil(job, extendMs, now), now });
  if (!result) throw yield* leaseLost(id, workerId);
  return result;
}

/** Records progress, percent and message. */
export function* progress(c: OpContext, id: string, workerId: string, percent: number, message: string | null): Op<void> {
  const job = yield* sql('jobSetProgress', { id, workerId, percent, message, now: c.now() });
  if (!job) throw yield* leaseLost(id, workerId);
  c.changes.job(job);
}

/** Stores the job's checkpoint, handed to its next attempt. */
export function* checkpoint(c: OpContext, id: string, workerId: string, value: string): Op<void> {
  if (!(yield* sql('jobSetCheckpoint', { id, workerId, checkpoint: value, now: c.now() }))) throw yield* leaseLost(id, workerId);
}
