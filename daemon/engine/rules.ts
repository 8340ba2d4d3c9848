/**
 * The job rules the engine's operations (./ops/) apply to a job as the store read it in the same
 * transaction: which of a user's actions a job's state allows (and the error that says why not),
 * how a failed attempt ends, and how long a heartbeat's lease runs. Pure functions: an operation
 * runs inside the store's transaction, where nothing may be awaited.
 */
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import { invalidState } from './errors';
import { backoffDelay } from './backoff';
import type { UpdateInput } from '../../shared/domain/rules/jobs';
import { builtinPayload } from '../../shared/domain/rules/payloads';
import { finalByRule, type FailureFacts } from '../../shared/domain/rules/retry';
import { allows } from '../../shared/domain/states';

/** How a failed attempt ends: the job's next state, and when it runs again (retrying). */
export interface FailureOutcome {
  state: 'retrying' | 'dead' | 'cancelled';
  runAt: number;
  /** Why a failure that attempts were left for is final (its retry rule, its deadline); null otherwise. */
  finalBecause: string | null;
}

/** A failed attempt as the rules weigh it. */
export interface FailureInput extends FailureFacts {
  /** The worker says it is final. */
  permanent: boolean;
  /** When the next attempt may start (epoch ms), if the worker or the HTTP answer said; else the backoff decides. */
  retryAt: number | null;
}

/**
 * The job rules, applied by the job operations (./ops/) to the job as the store read it in the same transaction. Each refusal
 * is a SpoolError that says what to do instead.
 */
export interface JobRules {
  /** What a cancel does: cancel a waiting job now, or request it of a running one; refuses a finished job (InvalidState). */
  cancel(job: Job): 'cancel' | 'request';
  /** Refuses (InvalidState) a retry of a job that has not finished. */
  checkRetry(job: Job): void;
  /** Refuses a change to a job that is not waiting (InvalidState), or one the stored job cannot take (InvalidParams: attempts, payload for its kind). */
  checkUpdate(job: Job, input: UpdateInput): void;
  /** Refuses (InvalidState) to delete a running job. */
  checkDelete(job: Job): void;
  /** Refuses (InvalidState) to run now a job that is not queued or retrying. */
  checkRunNow(job: Job): void;
  /** Refuses (InvalidState) to hold a job that is not waiting (blocked, queued, retrying). */
  checkHold(job: Job): void;
  /** Refuses (InvalidState) to release a job that is not held. */
  checkUnhold(job: Job): void;
  /**
   * How an attempt that failed (or whose lease expired) ends: cancelled if a cancel was
   * requested; dead if permanent, out of attempts, final by the job's retry rule, or past its
   * deadline (or its next attempt would be); else retrying at `retryAt` or after its backoff.
   */
  afterFailure(job: Job, failure: FailureInput, now: number): FailureOutcome;
  /** When the lease a heartbeat extends runs out: `extendMs`, or the job's timeout, from now. */
  leaseUntil(job: Job, extendMs: number | undefined, now: number): number;
}

/** The rules, with the randomness that jitters backoff (injected by tests). */
export function jobRules(random: () => number): JobRules {
  return {
    cancel(job: Job): 'cancel' | 'request' {
      if (job.state === 'blocked' || job.state === 'queued' || job.state === 'retrying' || job.state === 'held') return 'cancel';
      if (job.state === 'running') return 'request';
      throw invalidState(job, `Cannot cancel job ${job.id}: it is already finished (${job.state}). Retry it to run it again, or delete it.`);
    },

    checkRetry(job: Job): void {
      if (!allows('retry', job.state)) {
        const advice =
          job.state === 'running'
            ? 'Cancel it first, or wait for it to finish.'
            : job.state === 'blocked'
              ? 'It runs when the jobs it depends on have ended.'
              : job.state === 'held'
                ? 'Release it to let it run (spool release).'
                : 'It will run when its turn comes; to run it sooner, run it now (jobs.runNow).';
        throw invalidState(job, `Cannot retry job ${job.id}: it is ${job.state}. ${advice}`);
      }
    },

    checkUpdate(job: Job, input: UpdateInput): void {
      if (!allows('update', job.state)) {
        const advice = job.state === 'running' ? 'It started meanwhile: cancel it first, or wait for it to finish.' : 'Retry it to run it again.';
        throw invalidState(job, `Cannot update job ${job.id}: only blocked, queued, retrying or held jobs can change, and it is ${job.state}. ${advice}`);
      }
      if (input.maxAttempts !== null && input.maxAttempts <= job.attempts) {
        throw new SpoolError(
          ErrorCode.InvalidParams,
          `maxAttempts must be more than the ${job.attempts} attempt(s) job ${job.id} has made already (got ${input.maxAttempts})`,
          { field: 'maxAttempts', allowed: `${job.attempts + 1}..`, id: job.id },
        );
      }
      // The payload must suit the job's kind, which only the stored job knows.
      if (input.payload !== null) builtinPayload(job.kind, JSON.parse(input.payload), 'payload');
    },

    checkDelete(job: Job): void {
      if (job.state === 'running') throw invalidState(job, `Cannot delete job ${job.id}: it is running. Cancel it first, then delete it.`);
    },

    checkRunNow(job: Job): void {
      if (allows('runNow', job.state)) return;
      const advice =
        job.state === 'blocked'
          ? 'It runs when the jobs it depends on have ended.'
          : job.state === 'held'
            ? 'Release it first (spool release).'
            : job.state === 'running'
              ? 'It is running already.'
              : 'Retry it to run it again.';
      throw invalidState(job, `Cannot run job ${job.id} now: only queued or retrying jobs can, and it is ${job.state}. ${advice}`);
    },

    checkHold(job: Job): void {
      if (allows('hold', job.state)) return;
      const advice = job.state === 'held' ? 'It is held already.' : job.state === 'running' ? 'It started meanwhile: cancel it instead.' : 'It has finished.';
      throw invalidState(job, `Cannot hold job ${job.id}: only blocked, queued or retrying jobs can be held, and it is ${job.state}. ${advice}`);
    },

    checkUnhold(job: Job): void {
      if (allows('unhold', job.state)) return;
      throw invalidState(job, `Cannot release job ${job.id}: it is not held (it is ${job.state}).`);
    },

    afterFailure(job: Job, failure: FailureInput, now: number): FailureOutcome {
      // A failure after a cancel request is most likely the worker stopping because of it.
      if (job.cancelRequested) return { state: 'cancelled', runAt: job.runAt, finalBecause: null };
      if (failure.permanent || job.attempts >= job.maxAttempts) return { state: 'dead', runAt: job.runAt, finalBecause: null };
      const byRule = finalByRule(job.retry, failure);
      if (byRule !== null) return { state: 'dead', runAt: job.runAt, finalBecause: byRule };
      const runAt = failure.retryAt === null ? now + backoffDelay(job.backoff, job.attempts, random) : Math.max(now, failure.retryAt);
      const deadline = job.deadlineAt ?? null;
      if (deadline !== null && (now >= deadline || runAt > deadline)) {
        const when = new Date(deadline).toISOString();
        const why = now >= deadline ? `not retried: its deadline (${when}) has passed` : `not retried: its next attempt would start after its deadline (${when})`;
        return { state: 'dead', runAt: job.runAt, finalBecause: why };
      }
      return { state: 'retrying', runAt, finalBecause: null };
    },

    leaseUntil(job: Job, extendMs: number | undefined, now: number): number {
      return now + (extendMs ?? job.timeoutMs);
    },
  };
}
