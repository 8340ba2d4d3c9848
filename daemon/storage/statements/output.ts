/**
 * Statements over job_output (see ./index.ts for the protocol): a job's output lines, numbered
 * per job by `seq` across attempts and capped per job. When the cap is passed, the oldest lines
 * go and one marker line takes the seq of the newest line dropped, saying how many were dropped
 * in all.
 */
import type { OutputLine, OutputStream } from '../../../shared/protocol/types';

/** Lines to append to a job's output (already cut to the line limit). */
export type OutputAppend = {
  jobId: string;
  /** The attempt number of the job's current run. */
  attempt: number;
  stream: Exclude<OutputStream, 'marker'>;
  lines: string[];
  now: number;
  /** Most lines kept for the job. */
  cap: number;
};

export type OutputSql = {
  /**
   * Appends lines to the job's current run and enforces the cap (the caller holds the job's row
   * lock, so two appends never number alike). The lines as a reader will find them: the marker
   * first when one was (re)written, and no line already dropped. Empty for a job that is gone.
   */
  outputAppend(p: OutputAppend): OutputLine[];
  /** When the job's latest output line was written; undefined if it has none. */
  outputLastAt(jobId: string): number | undefined;
  /** Up to `limit` lines after seq `after`, in order. */
  outputPage(p: { jobId: string; after: number; limit: number }): OutputLine[];
  /** The newest `last` lines, oldest first. */
  outputTail(p: { jobId: string; last: number }): OutputLine[];
};
