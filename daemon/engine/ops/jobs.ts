/**
 * Reading and managing single jobs, written once for every store: a job with its history (and,
 * as they move here, listing, output pages, cancel, retry, update, delete and the bulk forms).
 */
import { jobNotFound } from '../../../shared/errors';
import type { JobWithRuns } from '../../../shared/protocol';
import { sql, type Op } from '../../storage/statements';

/** A job and its runs. Rejects with JobNotFound. */
export function* getJob(id: string): Op<JobWithRuns> {
  const job = yield* sql('jobGet', id);
  if (!job) throw jobNotFound(id);
  return { job, runs: yield* sql('runsOfJob', id) };
}
