/**
 * A job's output, written once for every store: appending lines to the running attempt (under
 * the per-job cap, see ../../storage/statements/output.ts) and reading them back, a page after a
 * seq or the newest lines.
 */
import { jobNotFound } from '../../../shared/protocol/errors';
import type { JobOutputResult } from '../../../shared/protocol';
import { TERMINAL_STATES, type Job, type OutputStream } from '../../../shared/protocol/types';
import { truncateLine } from '../../../shared/domain/outputLines';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/**
 * Appends `lines` to the output of `job`'s current run (the caller holds its lease, or is ending
 * it), each cut to the stored line limit, and records them for the job's followers.
 */
export function* appendLines(c: OpContext, job: Job, stream: Exclude<OutputStream, 'marker'>, lines: readonly string[]): Op<void> {
  if (lines.length === 0) return;
  const written = yield* sql('outputAppend', {
    jobId: job.id,
    attempt: job.attempts,
    stream,
    lines: lines.map((line) => truncateLine(line)),
    now: c.now(),
    cap: c.policy.maxOutputLinesPerJob,
  });
  c.changes.output(job.id, job.queue, written);
}

/** A page of a job's output lines after `after`; done once the job has finished and this page is its last. Rejects with JobNotFound. */
export function* output(id: string, after: number, limit: number): Op<JobOutputResult> {
  const job = yield* sql('jobGet', id);
  if (!job) throw jobNotFound(id);
  const lines = yield* sql('outputPage', { jobId: id, after, limit });
  const last = lines[lines.length - 1];
  return { lines, nextAfter: last ? last.seq : after, done: TERMINAL_STATES.includes(job.state) && lines.length < limit };
}

/** The newest `last` lines, oldest first. Rejects with JobNotFound. */
export function* outputTail(id: string, last: number): Op<JobOutputResult> {
  const job = yield* sql('jobGet', id);
  if (!job) throw jobNotFound(id);
  const lines = yield* sql('outputTail', { jobId: id, last });
  // Nothing is newer than the lines returned, so a finished job's output is complete here.
  return { lines, nextAfter: lines[lines.length - 1]?.seq ?? 0, done: TERMINAL_STATES.includes(job.state) };
}
