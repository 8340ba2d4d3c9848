/**
 * Migration 12: an index on the last 8 characters of a job's id.
 *
 * The views show a job by the last 8 characters of its id: a UUIDv7 begins with its creation
 * time, so jobs enqueued together share their first characters and the tail is the part that
 * tells them apart. A user who copies those 8 characters into Go to Job or `spool job` needs the
 * job they name, among every job the file holds; `jobs.list { idSuffix }` finds it through this
 * index (one equality on the expression, written the same way in list.ts so that the planner
 * matches it) instead of reading every id. Longer suffixes use the same range and check the
 * rest on the few rows it returns.
 */
export const jobIdSuffixIndex = `
CREATE INDEX jobs_id_suffix ON jobs (substr(id, -8));
`;
