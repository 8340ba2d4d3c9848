/**
 * The job listing (see ./index.ts for the protocol): filters, three orders and keyset (cursor)
 * pagination. A page starts after the last row of the previous one by the order's key, so page
 * 1,000 costs what page 1 costs.
 */
import type { JobFilter, JobOrder } from '../../../shared/protocol';
import type { Job } from '../../../shared/protocol/types';

/** Where a page starts: after this job, by the order's key. */
export type JobListCursor = { id: string; runAt: number };

export type JobListQuery = JobFilter & {
  order: JobOrder;
  limit: number;
  after?: JobListCursor | undefined;
  /** What "delayed" is measured against. */
  now: number;
};

export type ListSql = {
  /** Up to `limit` jobs matching the filter, in order, after the cursor. */
  jobList(q: JobListQuery): Job[];
};
