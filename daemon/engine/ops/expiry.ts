/**
 * Expiry, written once for every store: a job that has not started by its `expiresAt` ends
 * dead, with the reason in its last error. The claim never starts such a job (its statements
 * skip it), so the upkeep that ends it may come late without a late claim slipping through.
 */
import type { Job } from '../../../shared/protocol/types';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';
import { settleDependents } from './dependencies';
import { runJobsEnded } from './workflowRuns';

/** The last error of a job that expired. */
export const EXPIRED_REASON = 'expired before it started';

/**
 * One batch of expiry: up to batchSize waiting jobs past their expiry end dead; how many were
 * looked at. The engine runs batches, one transaction each, while they come back full. Jobs
 * that depend on an expired job are settled as for any dead job, and its workflow run counts it.
 */
export function* expireBatch(c: OpContext): Op<number> {
  const now = c.now();
  const expired = yield* sql('jobExpiredWaiting', { now, limit: c.policy.batchSize });
  const ended: Job[] = [];
  for (const job of expired) {
    const dead = yield* sql('jobExpire', { id: job.id, from: job.state, now, reason: EXPIRED_REASON });
    if (!dead) continue;
    c.changes.job(dead);
    ended.push(dead);
  }
  const ofRuns = ended.filter((job) => job.workflowRunId !== null);
  if (ofRuns.length > 0) yield* runJobsEnded(c, ofRuns);
  const withDependents = ended.filter((job) => job.dependents > 0);
  if (withDependents.length > 0) yield* settleDependents(c, withDependents);
  return expired.length;
}
