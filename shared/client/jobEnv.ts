/**
 * The environment a job's command runs in, the same for the daemon's shell executor and for
 * `spool work --exec`: one naming, declared here and documented in docs/cli.md. A command can
 * tell which job it runs (to report on it, or to find its own files), resume from the checkpoint
 * an earlier attempt saved, and reach the daemon. Every process the command starts inherits
 * `SPOOL_JOB_ID`, which is how a job's processes are found again (jobProcesses.ts).
 */
import type { Job } from '../protocol/types';

/** The variables' names. */
export const JOB_ENV = {
  id: 'SPOOL_JOB_ID',
  queue: 'SPOOL_JOB_QUEUE',
  kind: 'SPOOL_JOB_KIND',
  attempt: 'SPOOL_JOB_ATTEMPT',
  maxAttempts: 'SPOOL_JOB_MAX_ATTEMPTS',
  payload: 'SPOOL_JOB_PAYLOAD',
  checkpoint: 'SPOOL_JOB_CHECKPOINT',
  workerId: 'SPOOL_WORKER_ID',
  socket: 'SPOOL_SOCKET',
} as const;

/**
 * The variables for one attempt of `job`, run by worker `workerId` of the daemon at `socketPath`.
 * `SPOOL_JOB_CHECKPOINT` is set only when an earlier attempt saved a checkpoint.
 */
export function jobEnvironment(job: Job, workerId: string, socketPath: string): Record<string, string> {
  const env: Record<string, string> = {
    [JOB_ENV.id]: job.id,
    [JOB_ENV.queue]: job.queue,
    [JOB_ENV.kind]: job.kind,
    [JOB_ENV.attempt]: String(job.attempts),
    [JOB_ENV.maxAttempts]: String(job.maxAttempts),
    [JOB_ENV.payload]: JSON.stringify(job.payload ?? null),
    [JOB_ENV.workerId]: workerId,
    [JOB_ENV.socket]: socketPath,
  };
  if (job.checkpoint !== null && job.checkpoint !== undefined) env[JOB_ENV.checkpoint] = JSON.stringify(job.checkpoint);
  return env;
}
