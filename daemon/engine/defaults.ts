/**
 * Settings of a queue created on first use, and the kinds the daemon runs itself. These are
 * documented in the README; a queue can change any of them with `queues.configure`.
 */
import type { Backoff } from '../../shared/protocol/types';
import { NEW_QUEUE_BACKOFF } from '../../shared/domain/backoff';

export const QUEUE_DEFAULTS = {
  concurrency: null,
  /** Three tries: a flaky job gets two more chances, a broken one reaches the dead set soon. */
  maxAttempts: 3,
  /** 1 s, 2 s, 4 s, … up to an hour, ±30%. */
  backoff: { ...NEW_QUEUE_BACKOFF } satisfies Backoff,
  /** Lease length (and a shell job's time limit): five minutes. */
  timeoutMs: 5 * 60_000,
  /** Finished jobs are kept a week. */
  retentionMs: 7 * 24 * 3_600_000,
} as const;

/** Kinds run by the daemon's own executors; remote workers never get them. */
export const BUILTIN_KINDS: readonly string[] = ['shell', 'http'];

/** Jobs moved per transaction by bulk work (purge, retention, reaping), so no write lock is held long. */
export const UPKEEP_BATCH = 1000;

/** How the worker id of a daemon's own executors begins (daemon/executors/pool.ts, builtinWorkerId). */
export const BUILTIN_WORKER_PREFIX = 'builtin:';
