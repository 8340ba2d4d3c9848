/**
 * Statements over queues (see ./index.ts for the protocol): a queue's settings, its creation with
 * the defaults by its first job, and its token bucket's state.
 */
import type { Backoff, Queue } from '../../../shared/types';

/**
 * A queue's settings (its counts are added by the caller). Declared here, where the statements'
 * row types live, and re-exported by ../mappers.ts, which maps rows to it.
 */
export type QueueSettings = Omit<Queue, 'counts' | 'delayed'>;

/** The settings a queue gets when its first job (or a pause) creates it. */
export type QueueDefaults = {
  concurrency: number | null;
  maxAttempts: number;
  backoff: Backoff;
  timeoutMs: number;
  retentionMs: number | null;
};

/** A rate limit's token bucket as the queue row keeps it: tokens null means a full bucket. */
export type QueueRateState = {
  tokens: number | null;
  refilledAt: number | null;
};

export interface QueueSql {
  /** A queue's settings, or undefined. */
  queueGet(name: string): QueueSettings | undefined;
  /** A queue's settings, its row locked for the rest of the transaction (PostgreSQL: FOR UPDATE). */
  queueGetForUpdate(name: string): QueueSettings | undefined;
  /** Inserts the queue with the defaults unless it exists; true when it inserted. */
  queueCreate(p: { name: string; defaults: QueueDefaults; now: number }): boolean;
  /** Stores a queue's token bucket as of `refilledAt`. */
  queueSetRateState(p: { name: string; tokens: number; refilledAt: number }): void;
}
