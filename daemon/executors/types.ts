/**
 * What every built-in executor (shell, http) provides: start a job, report how it ended, and
 * stop it on request. The pool (pool.ts) turns outcomes into engine calls.
 */
import type { Spawner } from '../../shared/client/processGroup';
import { isSpoolError } from '../../shared/protocol/errors';
import type { ClaimedJob, ResourceLimits } from '../../shared/protocol/types';
import type { JobOutput } from '../../shared/client/shellJob';

/** How an attempt ended, from the executor's point of view. */
export type Outcome =
  | { kind: 'completed'; result: unknown }
  /** `retryAt`: when the next attempt may start (epoch ms), as an HTTP answer's Retry-After asked. */
  | { kind: 'failed'; error: string; exitCode?: number; httpStatus?: number; permanent?: boolean; retryAt?: number }
  /** Stopped because a cancel was requested. */
  | { kind: 'cancelled' }
  /** Stopped because the daemon is shutting down: the job stays `running` and is recovered at the next start. */
  | { kind: 'stopped' };

export type StopReason = 'cancel' | 'timeout' | 'shutdown';

export interface RunningJob {
  /** Settles once the work has really ended (for shell: every process of the group is gone). */
  readonly done: Promise<Outcome>;
  stop(reason: StopReason): void;
  /** Stops the work where it is, its timeout's clock with it (shell only: SIGSTOP to the group). */
  pause?(): void;
  /** Goes on after a pause (SIGCONT). */
  resume?(): void;
}

export interface ExecutorContext {
  /** The job, with its dependencies and their results when it has any. */
  job: ClaimedJob;
  output: JobOutput;
  /** After SIGTERM, how long a process group has before SIGKILL. */
  killGraceMs: number;
  /** The built-in executors' worker id, which holds the job's lease. */
  workerId: string;
  /** The daemon's socket, told to the job's command (SPOOL_SOCKET). */
  socketPath: string;
  /** The resource limits of the job's queue, which the job's own override field by field. */
  queueLimits: ResourceLimits;
  /** How a shell job's process is started: the daemon's launcher (launcher.ts). */
  spawner?: Spawner;
}

export type Executor = (context: ExecutorContext) => RunningJob;

/** A failed outcome for a payload the executor cannot run: retrying would not help. */
export function invalidPayload(kind: string, message: string): RunningJob {
  return {
    done: Promise.resolve({ kind: 'failed', error: `Invalid ${kind} payload: ${message}`, permanent: true }),
    stop: () => undefined,
  };
}

/**
 * Checks the job's payload with its kind's checker (shared/domain/rules/payloads.ts) and
 * runs it; a payload the checker refuses fails the job permanently with the checker's message.
 * Enqueue refuses such payloads already, so this is for jobs stored before it did.
 */
export function withPayload<P>(kind: string, check: () => P, run: (payload: P) => RunningJob): RunningJob {
  let payload: P;
  try {
    payload = check();
  } catch (error) {
    if (!isSpoolError(error)) throw error;
    return invalidPayload(kind, error.message);
  }
  return run(payload);
}
