/**
 * The job rules the engine holds and a store applies to a job as it read it in its transaction:
 * which of a user's actions a job's state allows (and the error that says why not), how a
 * failed attempt ends, and how long a heartbeat's lease runs. Pure functions: the store calls
 * them inside its transaction, where nothing may be awaited.
 */
import { SpoolError } from '../../shared/errors';
import { ErrorCode } from '../../shared/protocol';
import type { Job } from '../../shared/types';
import type { FailureOutcome, JobRules } from '../storage/backend';
import { invalidState } from '../storage/errors';
import { backoffDelay } from './backoff';
import type { UpdateInput } from '../../shared/domain/rules/jobs';
import { builtinPayload } from '../../shared/domain/rules/payloads';

/** The rules, with the randomness that jitters backoff (injected by tests). */
export function jobRules(random: () => number): JobRules {
  return {
    cancel(job: Job): 'cancel' | 'request' {
      if (job.state === 'queued' || job.state === 'retrying') return 'cancel';
      if (job.state === 'running') return 'request';
      throw invalidState(job, `Cannot cancel job ${job.id}: it is already finished (${job.state}). Retry it to run it again, or delete it.`);
    },

    checkRetry(job: Job): void {
      if (job.state === 'queued' || job.state === 'retrying' || job.state === 'running') {
        const advice = job.state === 'running' ? 'Cancel it first, or wait for it to finish.' : 'It will run when its turn comes; update its run time to run it sooner.';
        throw invalidState(job, `Cannot retry job ${job.id}: it is ${job.state}. ${advice}`);
      }
    },

    checkUpdate(job: Job, input: UpdateInput): void {
      if (job.state !== 'queued' && job.state !== 'retrying') {
        const advice = job.state === 'running' ? 'Cancel it first, or wait for it to finish.' : 'Retry it to run it again.';
        throw invalidState(job, `Cannot update job ${job.id}: only queued or retrying jobs can change, and it is ${job.state}. ${advice}`);
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

    afterFailure(job: Job, permanent: boolean, now: number): FailureOutcome {
      // A failure after a cancel request is most likely the worker stopping because of it.
      if (job.cancelRequested) return { state: 'cancelled', runAt: job.runAt };
      if (permanent || job.attempts >= job.maxAttempts) return { state: 'dead', runAt: job.runAt };
      return { state: 'retrying', runAt: now + backoffDelay(job.backoff, job.attempts, random) };
    },

    leaseUntil(job: Job, extendMs: number | undefined, now: number): number {
      return now + (extendMs ?? job.timeoutMs);
    },
  };
}
