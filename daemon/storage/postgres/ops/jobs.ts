/** Reading jobs: one job with its runs, listings, output pages. */
import type { JobOutputResult, JobWithRuns } from '../../../../shared/protocol';
import type { Job } from '../../../../shared/types';
import type { ListInput } from '../../../engine/validate/jobs';
import { runsOf } from './runs';
import type { PgTx } from '../db';
import { getJobRow } from './common';
import { notImplemented } from './stub';

export async function getJob(tx: PgTx, id: string): Promise<JobWithRuns> {
  const job = await getJobRow(tx, id);
  const runs = await runsOf(tx, id);
  return { job, runs };
}

export async function listJobs(tx: PgTx, input: ListInput): Promise<Job[]> { return notImplemented('listJobs', tx, input); }
export async function output(tx: PgTx, id: string, after: number, limit: number): Promise<JobOutputResult> { return notImplemented('output', tx, id, after, limit); }
export async function outputTail(tx: PgTx, id: string, last: number): Promise<JobOutputResult> { return notImplemented('outputTail', tx, id, last); }
