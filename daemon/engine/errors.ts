/**
 * The refusals a job operation reports, worded once for every store: an operation decides from
 * the rows it read in its transaction that a call cannot go on, and throws one of these, so that
 * a worker or a user reads the same message whichever store the daemon runs on.
 */
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';

/**
 * Why `workerId` cannot act on `job`: someone else holds it, or it finished. Whether the caller
 * ever held the job (a run of it in the history) decides between "your lease expired and it was
 * claimed again" and "you never claimed it": the first tells a slow worker what happened, the
 * second tells a confused one it has the wrong id.
 */
export function leaseLost(job: Job, workerId: string, heldBefore: boolean): SpoolError {
  let why: string;
  if (!heldBefore) {
    why = job.state === 'running' ? `it is running under worker ${job.workerId ?? '?'}; this worker never claimed it` : `it is ${job.state}; this worker never claimed it`;
  } else {
    why =
      job.state === 'running'
        ? `it was claimed again by worker ${job.workerId ?? '?'} (attempt ${job.attempts}) after this worker's lease expired`
        : `it is ${job.state} now`;
  }
  const advice = heldBefore ? 'Stop working on it; nothing was recorded.' : 'Nothing was recorded; a worker acts only on jobs it claimed with jobs.claim.';
  return new SpoolError(ErrorCode.LeaseLost, `Worker ${workerId} does not hold the lease on job ${job.id}: ${why}. ${advice}`, {
    id: job.id,
    workerId,
    state: job.state,
  });
}

/** A user's action the job's state does not allow; `message` says which and what to do instead. */
export function invalidState(job: Job, message: string): SpoolError {
  return new SpoolError(ErrorCode.InvalidState, message, { id: job.id, state: job.state });
}

export function queueNotFound(name: string): SpoolError {
  return new SpoolError(ErrorCode.QueueNotFound, `No queue named "${name}". List queues with \`spool queues\`; a queue is created when a job is first enqueued to it.`, {
    queue: name,
  });
}

export function scheduleNotFound(name: string): SpoolError {
  return new SpoolError(ErrorCode.ScheduleNotFound, `No schedule named "${name}". List schedules with \`spool schedules\`.`, { schedule: name });
}

export function workerNotFound(id: string): SpoolError {
  return new SpoolError(ErrorCode.WorkerNotFound, `No worker with id ${id}. Register it with workers.register first.`, { workerId: id });
}

/**
 * A job heavier than its queue's concurrency could never start, and would hold back every job
 * behind it: refused when it is enqueued (or made heavier).
 */
export function tooHeavy(queue: string, weight: number, concurrency: number, field = 'weight'): SpoolError {
  return new SpoolError(
    ErrorCode.InvalidParams,
    `${field} ${weight} is more than the concurrency of queue "${queue}" (${concurrency}): the job could never start. Give it a weight of at most ${concurrency}, or raise the queue's concurrency to ${weight} first (spool queue ${queue} set --concurrency ${weight}).`,
    { field, allowed: `1..${concurrency}`, queue },
  );
}
