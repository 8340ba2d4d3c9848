/**
 * Job ids as people type and read them. The views and `spool jobs` show a job by the last 8
 * characters of its id (a UUIDv7 begins with its creation time, so jobs enqueued together share
 * their first characters); a person may name a job by its whole id or by such an end of it.
 */

/** How many characters of its id's end a job is shown by. */
export const SHOWN_ID_LENGTH = 8;

/** A whole job id: a UUID, lowercase. */
export const WHOLE_JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The end of a job id: at least the 8 characters the views show (fewer name too many jobs to be
 * worth a lookup), at most one less than a whole id (36 characters that are not a whole id
 * cannot be the end of one).
 */
export const JOB_ID_END = /^[0-9a-f-]{8,35}$/;

/** The end of a job's id that the views show. */
export function shortId(id: string): string {
  return id.length > SHOWN_ID_LENGTH ? id.slice(-SHOWN_ID_LENGTH) : id;
}

/** What typed text names: a whole id, the end of one (to look up), nothing, or not an id. */
export type JobIdText = { kind: 'whole'; id: string } | { kind: 'end'; suffix: string } | { kind: 'empty' } | { kind: 'invalid' };

/** Reads a typed job id, case and surrounding spaces ignored. */
export function readJobId(text: string): JobIdText {
  const s = text.trim().toLowerCase();
  if (WHOLE_JOB_ID.test(s)) return { kind: 'whole', id: s };
  if (JOB_ID_END.test(s)) return { kind: 'end', suffix: s };
  return s === '' ? { kind: 'empty' } : { kind: 'invalid' };
}
