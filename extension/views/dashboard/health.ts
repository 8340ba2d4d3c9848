/**
 * The dashboard's health row of a queue: waiting, running, the oldest waiting job's age, the
 * rate now, the failure rate, and, when jobs wait that nothing could start, why in words — every
 * queue paused, the queue paused, a kind no live worker takes, all the queue's running slots in
 * use, groups at their limit (groupConcurrency).
 * Pure: the caller passes the queue, the workers, the due jobs it read and the clock.
 */
import { formatDuration } from '../../../shared/domain/durations';
import { noWorkerText } from '../../../shared/domain/present';
import type { QueueGroup } from '../../../shared/protocol';
import type { Job, Queue, Worker } from '../../../shared/protocol/types';

/** What a queue's row is worked out from. */
export interface HealthFacts {
  queue: Pick<Queue, 'name' | 'paused' | 'concurrency' | 'counts' | 'delayed'> & Partial<Pick<Queue, 'groupConcurrency'>>;
  workers: readonly Pick<Worker, 'type' | 'queues' | 'kinds' | 'alive' | 'lastHeartbeatAt'>[];
  /** The queue's due waiting jobs read (oldest due first); may be fewer than wait. */
  due: readonly Pick<Job, 'kind' | 'runAt'>[];
  allPaused: boolean;
  /** Jobs that ended (completed, failed or dead) in the last full minute; null when not known. */
  ratePerMinute: number | null;
  /** Failed out of ran in the last hour, percent; null when none ran or not known. */
  failureRate: number | null;
  now: number;
  /**
   * Of a queue with groupConcurrency: its groups whose jobs wait because the group is at its
   * limit (`queues.groups` with atLimit, a first page), and whether more are; absent when not read.
   */
  fullGroups?: { groups: readonly QueueGroup[]; more: boolean };
}

/** How many groups at their limit the warning names before it says "and more". */
export const FULL_GROUPS_NAMED = 5;

export interface HealthRow {
  queue: string;
  waiting: number;
  running: number;
  /** How long the longest-waiting due job has waited, ms; null when none waits. */
  oldestWaitMs: number | null;
  ratePerMinute: number | null;
  failureRate: number | null;
  /** Why waiting jobs cannot start, in words; empty when nothing stops them. */
  warnings: string[];
}

function jobs(n: number): string {
  return `${n} job${n === 1 ? '' : 's'}`;
}

export function queueHealth(f: HealthFacts): HealthRow {
  const q = f.queue;
  const waiting = Math.max(0, q.counts.queued - q.delayed);
  const running = q.counts.running;
  const oldest = f.due.reduce<number | null>((at, j) => (at === null || j.runAt < at ? j.runAt : at), null);
  const warnings: string[] = [];
  if (waiting > 0) {
    const wait = `${jobs(waiting)} wait${waiting === 1 ? 's' : ''}`;
    if (f.allPaused) warnings.push(`${wait}: every queue is paused; resume them to run jobs.`);
    else if (q.paused) warnings.push(`${wait}: queue ${q.name} is paused; resume it to run its jobs.`);
    const kinds = new Map<string, number>();
    for (const j of f.due) kinds.set(j.kind, (kinds.get(j.kind) ?? 0) + 1);
    for (const [kind, n] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
      const none = noWorkerText({ queue: q.name, kind }, f.workers, f.now);
      if (none !== null) warnings.push(`${jobs(n)} of kind ${kind} wait${n === 1 ? 's' : ''}: ${none}.`);
    }
    const open = !q.paused && !f.allPaused;
    if (open && q.concurrency !== null && running >= q.concurrency) warnings.push(`${wait}: all ${q.concurrency} running slot${q.concurrency === 1 ? '' : 's'} of queue ${q.name} ${q.concurrency === 1 ? 'is' : 'are'} in use.`);
    const full = f.fullGroups;
    const limit = q.groupConcurrency ?? null;
    if (open && full && full.groups.length > 0 && limit !== null) warnings.push(fullGroupsText(full.groups, full.more, limit));
  }
  return { queue: q.name, waiting, running, oldestWaitMs: oldest === null ? null : Math.max(0, f.now - oldest), ratePerMinute: f.ratePerMinute, failureRate: f.failureRate, warnings };
}

/**
 * "3 jobs wait in groups at their limit: customer:42 (2 of 2 running), customer:7 (2 of 2
 * running) and more." The jobs counted are the named groups' waiting ones.
 */
export function fullGroupsText(groups: readonly QueueGroup[], more: boolean, limit: number): string {
  const named = groups.slice(0, FULL_GROUPS_NAMED);
  const waiting = named.reduce((n, g) => n + g.waiting, 0);
  const list = named.map((g) => `${g.group ?? 'no group'} (${g.runningWeight} of ${limit} running)`).join(', ');
  const rest = more || groups.length > named.length ? ' and more' : '';
  const one = named.length === 1 && !rest;
  return `${jobs(waiting)} wait${waiting === 1 ? 's' : ''} in ${one ? 'a group' : 'groups'} at ${one ? 'its' : 'their'} limit: ${list}${rest}.`;
}

/** A wait as the row says it: "none", "4s", "3m20s", "2h5m". */
export function waitText(ms: number | null): string {
  if (ms === null) return 'none';
  return formatDuration(ms, 2);
}
