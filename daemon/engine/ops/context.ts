/**
 * What every job operation works with: the engine's policy as plain values and pure functions
 * (never I/O: SQLite runs an operation inside a transaction that must not span an await), and
 * the sink of what the operation's transaction changed.
 */
import type { ChangeSink } from '../../storage/statements';
import type { Backoff } from '../../../shared/protocol/types';
import type { JobRules } from '../rules';

/** The policy an engine runs its operations with; made once per engine. */
export interface Policy {
  /** The clock, epoch ms (injected by tests). */
  now(): number;
  /** A new id for a job or worker: a UUIDv7 of now, so ids sort by creation time. */
  newId(): string;
  /** The smallest id a job created at `time` can have (retention finds old jobs by id). */
  firstIdAt(time: number): string;
  /** What a job's state allows, how a failure ends, how long a lease runs. */
  rules: JobRules;
  /** The settings a queue gets when its first job creates it. */
  queueDefaults: {
    concurrency: number | null;
    maxAttempts: number;
    backoff: Backoff;
    timeoutMs: number;
    retentionMs: number | null;
  };
  /** Rows moved per transaction by bulk work (purge, retention, reaping, bulk actions). */
  batchSize: number;
  /** Most output lines kept per job; older ones go, with a marker line. */
  maxOutputLinesPerJob: number;
}

/** One operation's context: the policy, and where its transaction's changes go. */
export interface OpContext {
  readonly policy: Policy;
  readonly changes: ChangeSink;
  /** The policy's clock. */
  now(): number;
  /** Who the operation acts for, recorded in the job's history (./actor.ts): a user, `token <name>`, or `daemon`. */
  readonly who: string;
}

/** The context of one transaction's operation. */
export function opContext(policy: Policy, changes: ChangeSink, who = 'daemon'): OpContext {
  return { policy, changes, now: policy.now, who };
}
