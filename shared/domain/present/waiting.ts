/**
 * Why a due queued job has not started, in the words the job page, the Queues view and the CLI
 * share: its queue is paused, no live worker takes its kind on its queue (and when one last
 * did), its queue is at its concurrency, its weight is more than its queue's concurrency, or it
 * waits for one of the workers that take it (under the queue's rate limit, when it has one).
 * "Waiting for a worker." alone, said of a job held back by its queue, sent people looking for
 * workers that were there. Pure: the caller passes the queue, the workers and the clock.
 */
import { formatRate } from '../rates';
import type { Job, Queue, Worker } from '../../protocol/types';
import { relativeTime } from './time';

/** What the reason is worked out from; what is missing is not said. */
export interface WaitingFacts {
  queue?: Pick<Queue, 'name' | 'paused' | 'concurrency' | 'rateLimit' | 'counts'>;
  workers?: readonly Pick<Worker, 'type' | 'queues' | 'kinds' | 'alive' | 'lastHeartbeatAt'>[];
}

/** A built-in executor lives in the daemon that listed it: alive however old its heartbeat row. */
function isAlive(w: Pick<Worker, 'type' | 'alive'>): boolean {
  return w.type === 'builtin' || w.alive;
}

/** The workers that would take a job of `kind` on `queue` (an empty list of queues or kinds is all). */
export function workersFor<W extends Pick<Worker, 'queues' | 'kinds'>>(workers: readonly W[], queue: string, kind: string): W[] {
  return workers.filter((w) => (w.queues.length === 0 || w.queues.includes(queue)) && (w.kinds.length === 0 || w.kinds.includes(kind)));
}

/**
 * "no worker takes kind resize on queue images (the last one was seen 10m ago)", or null when a
 * live worker takes it. Short, for a tree row or a table's note.
 */
export function noWorkerText(job: Pick<Job, 'queue' | 'kind'>, workers: WaitingFacts['workers'], now: number): string | null {
  if (workers === undefined) return null;
  const takers = workersFor(workers, job.queue, job.kind);
  if (takers.some(isAlive)) return null;
  const last = takers.reduce<number | null>((at, w) => (at === null || w.lastHeartbeatAt > at ? w.lastHeartbeatAt : at), null);
  return `no worker takes kind ${job.kind} on queue ${job.queue}${last === null ? '' : ` (the last one was seen ${relativeTime(last, now)})`}`;
}

/**
 * What a job's row or line adds when the job is due (queued, or retrying past its next attempt's
 * time) and no live worker takes it: noWorkerText's words; null otherwise. The Queues view and
 * `spool jobs` add it to the job's reason.
 */
export function dueNoWorkerText(job: Pick<Job, 'queue' | 'kind' | 'state' | 'runAt'>, workers: WaitingFacts['workers'], now: number): string | null {
  if ((job.state !== 'queued' && job.state !== 'retrying') || job.runAt > now) return null;
  return noWorkerText(job, workers, now);
}

/** The sentence for a due queued job (see the module comment). */
export function waitingSentence(job: Pick<Job, 'queue' | 'kind' | 'weight'>, facts: WaitingFacts, now: number): string {
  const q = facts.queue;
  if (q?.paused === true) return `Waiting: queue ${q.name} is paused; resume it to run its jobs.`;
  const noWorker = noWorkerText(job, facts.workers, now);
  if (noWorker !== null) return `Waiting: ${noWorker}.`;
  if (q !== undefined && q.concurrency !== null) {
    if (job.weight > q.concurrency) return `Waiting: its weight ${job.weight} is more than the concurrency of queue ${q.name} (${q.concurrency}), so it cannot start there.`;
    if (q.counts.running >= q.concurrency) return `Waiting: queue ${q.name} is at its concurrency (${q.counts.running} of ${q.concurrency} running).`;
  }
  const takers = facts.workers === undefined ? 0 : workersFor(facts.workers, job.queue, job.kind).filter(isAlive).length;
  const who = takers === 1 ? 'the worker that takes it' : takers > 1 ? `one of the ${takers} workers that take it` : 'a worker';
  const rate = q?.rateLimit ? ` (queue ${q.name} starts at most ${formatRate(q.rateLimit, false)})` : '';
  return `Due; waiting for ${who} to be free${rate}.`;
}
