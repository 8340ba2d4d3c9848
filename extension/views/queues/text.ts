/**
 * What the Queues view says, as pure functions of the records (no `vscode` here, so unit tests
 * run them directly): the state groups and which of them show, the filter in words, and how a
 * count of matches reads. A queue's counts and a job's description are shared/domain/present's,
 * so that they read as in the code lens and the CLI.
 */
import { dueCount, jobReason, queueText, waitingForText } from '../../../shared/domain/present';
import type { QueueGroup } from '../../../shared/protocol';
import type { Job, JobDependency, JobState, Queue } from '../../../shared/protocol/types';
import { jobLabel } from '../format';

/**
 * The groups under a queue. `delayed` is the queued jobs whose runAt lies in the future;
 * `blocked` the jobs that wait for the jobs they depend on.
 */
export type GroupName = 'running' | 'queued' | 'delayed' | 'blocked' | 'retrying' | 'held' | 'dead' | 'completed' | 'cancelled';
export const GROUPS: readonly GroupName[] = ['running', 'queued', 'delayed', 'blocked', 'retrying', 'held', 'dead', 'completed', 'cancelled'];

export const GROUP_TITLES: Record<GroupName, string> = {
  running: 'Running',
  queued: 'Queued',
  delayed: 'Delayed',
  blocked: 'Blocked',
  retrying: 'Retrying',
  held: 'Held',
  dead: 'Dead',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

export function isGroupName(value: string): value is GroupName {
  return (GROUPS as readonly string[]).includes(value);
}

/** The view's filter: state groups to show, and a kind or text the listed jobs must match. */
export interface JobViewFilter {
  kind?: string;
  search?: string;
  states?: GroupName[];
}

/** A kind or text filter: it narrows the jobs themselves, so counts come from listing them. */
export function narrowsJobs(filter: JobViewFilter): boolean {
  return Boolean(filter.kind || filter.search);
}

/** The filter in a few words, for the view's description and message ("state: dead · kind: shell"). */
export function describeFilter(filter: JobViewFilter): string {
  const parts: string[] = [];
  if (filter.states && filter.states.length > 0) parts.push(`state: ${filter.states.join(', ')}`);
  if (filter.kind) parts.push(`kind: ${filter.kind}`);
  if (filter.search) parts.push(`"${filter.search}"`);
  return parts.join(' · ');
}

export function groupCount(queue: Queue, group: GroupName): number {
  if (group === 'delayed') return queue.delayed;
  if (group === 'queued') return dueCount(queue.counts, queue.delayed);
  // A daemon from before the held state sends no count for it.
  return queue.counts[group] ?? 0;
}

/** What `jobs.list` is asked for to fill a group. */
export function groupFilter(group: GroupName): { states: JobState[]; delayed?: boolean } {
  if (group === 'queued') return { states: ['queued'], delayed: false };
  if (group === 'delayed') return { states: ['queued'], delayed: true };
  return { states: [group] };
}

/**
 * How many jobs of a group match: exact (`more` false), or at least `count` when the listing
 * stopped at a page and more pages match. Under a kind or text filter the daemon gives no total,
 * so the view counts the first page and says "50+" rather than guess.
 */
export interface MatchCount {
  count: number;
  more: boolean;
}

/** "3", or "50+" when more match than were counted. */
export function countText(match: MatchCount): string {
  return `${match.count}${match.more ? '+' : ''}`;
}

/** The sum of several counts; a lower bound if any of them is. */
export function sumCounts(matches: readonly MatchCount[]): MatchCount {
  return { count: matches.reduce((n, m) => n + m.count, 0), more: matches.some((m) => m.more) };
}

/**
 * The groups a queue shows, in order: those the state filter picks, and of them the ones with
 * jobs, unless empty groups are asked for. Under a filter an empty group never shows (like the
 * Testing view, a filtered tree holds only what matches).
 */
export function groupsToShow(counts: Readonly<Record<GroupName, MatchCount>>, filter: JobViewFilter, showEmpty: boolean): GroupName[] {
  const states = filter.states && filter.states.length > 0 ? filter.states : null;
  const filtered = states !== null || narrowsJobs(filter);
  return GROUPS.filter((g) => (states === null || states.includes(g)) && (counts[g].count > 0 || (showEmpty && !filtered)));
}

/** The exact counts of a queue's groups, from `queues.list`. */
export function queueCounts(queue: Queue): Record<GroupName, MatchCount> {
  const counts = {} as Record<GroupName, MatchCount>;
  for (const g of GROUPS) counts[g] = { count: groupCount(queue, g), more: false };
  return counts;
}

/** "paused · 3 running · 12 queued · 1 dead": the queue's counts as the code lens and the CLI say them. */
export function queueDescription(queue: Queue): string {
  return queueText(queue);
}

/** Under a filter, a queue says how many of its jobs match: "12 matching", "50+ matching". */
export function matchingDescription(queue: Queue, match: MatchCount): string {
  return `${queue.paused ? 'paused · ' : ''}${countText(match)} matching`;
}

/**
 * A job's description, its state first so that the part cut off a narrow view is the least
 * useful; `group` is where the job is listed (a queued job may be listed as delayed). The words
 * are the CLI's NOTE column's too. A blocked job says what it waits for, by name and state, when
 * its dependencies were read (`waitingOn`).
 */
export function jobDescription(job: Job, group: GroupName, now: number, waitingOn?: readonly JobDependency[]): string {
  if (group === 'blocked') return waitingForText(job, waitingOn);
  return jobReason(job, now, group);
}

/** The state a screen reader announces: the group it is listed in, and a pending cancel. */
export function stateWords(job: Job, group: GroupName): string {
  const state: JobState | 'delayed' = group === 'delayed' ? 'delayed' : job.state;
  return job.cancelRequested ? `${state}, cancel requested` : state;
}

/**
 * What a screen reader says for a job row: the visible text and the state, not an id. A pending
 * cancel is said once: the description of a running job says it already.
 */
export function jobAccessibleLabel(job: Job, group: GroupName, now: number, waitingOn?: readonly JobDependency[]): string {
  const description = jobDescription(job, group, now, waitingOn);
  const state = description.includes('cancel requested') ? group : stateWords(job, group);
  return `${jobLabel(job)}, ${state}, ${description}`;
}

/** A group key's row label: the key, or "no group" for the queue's jobs without one. */
export function keyGroupLabel(group: Pick<QueueGroup, 'group'>): string {
  return group.group ?? 'no group';
}

/**
 * A group key's counts as its row says them: "3 waiting · 2 running · limit 2" (the limit when
 * the queue sets groupConcurrency; running weight instead of jobs when the two differ).
 */
export function keyGroupDescription(group: QueueGroup, limit: number | null): string {
  const parts = [`${group.waiting} waiting`, `${group.running} running`];
  if (group.runningWeight !== group.running) parts.push(`weight ${group.runningWeight}`);
  if (limit !== null && group.group !== null) parts.push(`limit ${limit}`);
  return parts.join(' · ');
}

/** Where a job listed under its group key is drawn: as the state group it would be listed in. */
export function stateGroupOf(job: Pick<Job, 'state' | 'runAt'>, now: number): GroupName {
  if (job.state === 'queued') return job.runAt > now ? 'delayed' : 'queued';
  return isGroupName(job.state) ? job.state : 'queued';
}
