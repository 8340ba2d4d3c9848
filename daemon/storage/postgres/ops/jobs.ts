/** Reading jobs: one job with its runs, output pages. */
import type { JobOutputResult, JobWithRuns } from '../../../../shared/protocol';
import { TERMINAL_STATES } from '../../../../shared/types';
import { mapOutputLine } from '../../mappers';
import type { PgTx } from '../db';
import { getJobRow } from './common';
import { runsOf } from './runs';

export async function getJob(tx: PgTx, id: string): Promise<JobWithRuns> {
  const job = await getJobRow(tx, id);
  const runs = await runsOf(tx, id);
  return { job, runs };
}

/** A page of a job's output lines after `after`; done once the job has finished and this page is its last. */
export async function output(tx: PgTx, id: string, after: number, limit: number): Promise<JobOutputResult> {
  const job = await getJobRow(tx, id);
  const lines = (await tx.rows('SELECT * FROM job_output WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [id, after, limit])).map(mapOutputLine);
  const last = lines[lines.length - 1];
  return { lines, nextAfter: last ? last.seq : after, done: TERMINAL_STATES.includes(job.state) && lines.length < limit };
}

/** The newest `last` lines, oldest first: nothing is newer, so a finished job's output is complete here. */
export async function outputTail(tx: PgTx, id: string, last: number): Promise<JobOutputResult> {
  const job = await getJobRow(tx, id);
  const lines = (await tx.rows('SELECT * FROM (SELECT * FROM job_output WHERE job_id = $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq', [id, last])).map(mapOutputLine);
  return { lines, nextAfter: lines[lines.length - 1]?.seq ?? 0, done: TERMINAL_STATES.includes(job.state) };
}
