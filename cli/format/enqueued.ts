/**
 * What an enqueue did besides adding the job as asked, in words (`spool enqueue`, `spool run`):
 * the job an idempotency key or a unique rule matched, a debounced job, a throttled start.
 */
import type { EnqueueResult } from '../../shared/protocol';
import { uniquenessText } from '../../shared/domain/present';
import { formatDuration, formatRelative } from './time';

/**
 * The sentence for a result that is not a plain new job, or null for one. `key` is the
 * idempotency key that was sent, when the caller knows it.
 */
export function enqueueOutcome(result: EnqueueResult, key: string | undefined, now = Date.now()): string | null {
  const job = result.job;
  const rule = job.uniqueness ? ` (${uniquenessText(job.uniqueness)})` : '';
  const state = result.existingState ?? job.state;
  switch (result.reason) {
    case 'unique':
      return `Job ${job.id} on queue ${job.queue} is already ${state}${rule}; not enqueued again.`;
    case 'debounced':
      return `Job ${job.id} on queue ${job.queue} was still waiting: its payload was replaced and it starts ${formatRelative(job.runAt, now)}${rule}; not enqueued again.`;
    case 'throttled':
      return `Job ${job.id} starts ${formatRelative(job.runAt, now)}, not at once: equal jobs start at least ${formatDuration(job.uniqueness?.forMs ?? 0)} apart${rule}.`;
    default:
      if (result.created) return null;
      return `A job with key ${key ?? job.idempotencyKey ?? ''} exists already: ${job.id} on queue ${job.queue} (${job.state}); nothing new was enqueued.`;
  }
}
