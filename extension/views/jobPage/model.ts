/**
 * What the job page says about a job, in words, from the job, its runs and its last output lines:
 * its title, why it is in its state and how it ended (in shared/domain/present's words, which the
 * Queues view and the CLI use too), its times, and which actions it allows. Pure:
 * no `vscode`, no clock (the caller passes `now`), so the unit tests read it directly. render.ts
 * turns it into HTML; the output document (documents/jobOutput.ts) ends with `endLine`.
 */
import { relativeTime, shownState, type ShownState, type WaitingFacts } from '../../../shared/domain/present';
import { allows } from '../../../shared/domain/states';
import type { Job, JobDependency, JobRun, OutputLine } from '../../../shared/protocol/types';
import { payloadSummary } from '../format';
import { PAGE_ACTIONS, type PageAction } from './messages';
import { mayEnqueue, mayManage, type WindowScope } from '../../daemon/tokenScope';

/** How many of the newest output lines the page shows; the live output document has them all. */
export const PAGE_OUTPUT_LINES = 200;

/** The newest output lines of a job, as the page keeps them. */
export interface OutputTail {
  /** Oldest first, at most PAGE_OUTPUT_LINES, no marker lines. */
  lines: OutputLine[];
  /** How many lines the job has written in all (the newest line's seq); more than `lines` holds once it wrote more than the page shows. */
  total: number;
}

/** Everything the page is drawn from. */
export interface JobPageInput {
  job: Job;
  /** Oldest first, as `jobs.get` returns them. */
  runs: JobRun[];
  output: OutputTail;
  /** True once the daemon said the job was deleted: the page keeps what it last showed. */
  deleted: boolean;
  now: number;
  /** For a due queued job: its queue and the workers, to say why it has not started. */
  waiting?: WaitingFacts;
  /** The scope of the remote daemon's token (null or absent: the Unix socket, no limit). */
  tokenScope?: WindowScope;
  /** The jobs it depends on, with their states and results (`jobs.get`'s). */
  dependencies?: JobDependency[];
  /** The jobs that depend on it, with their states (the first LIMITS.maxListedDependents). */
  dependents?: JobDependency[];
}

/** What a job is, in a few words: `builds › npm test`, `hooks › POST https://…`, `reports › report {"month":…}`. */
export function jobTitle(job: Pick<Job, 'queue' | 'kind' | 'payload'>, max = 60): string {
  const summary = payloadSummary(job.kind, job.payload, max);
  const what = job.kind === 'shell' || job.kind === 'http' ? summary : summary === '' ? job.kind : `${job.kind} ${summary}`;
  return `${job.queue} › ${what}`;
}

/** The state's name as the page shows it: a queued job waiting for its time is "delayed". */
export function stateLabel(job: Pick<Job, 'state' | 'runAt'>, now: number): ShownState {
  return shownState(job, now);
}

/** Why the job is in its state, and how it ended: the shared wording (see the file comment). */
export { endLine, runStatus, stateSentence as stateReason } from '../../../shared/domain/present';

/** The glyph drawn before a state (no icon font is loaded into the page; see render.ts). */
export const STATE_GLYPHS: Readonly<Record<ShownState, string>> = {
  blocked: '⧖',
  queued: '○',
  delayed: '◷',
  running: '⟳',
  retrying: '↻',
  held: '⏸',
  completed: '✓',
  dead: '✕',
  cancelled: '⊘',
};

/** The times the page shows, each with a key its relative text is updated by. */
export type TimeKey = 'created' | 'started' | 'finished' | 'next';

/** The job's times worth showing, in order; `next` is the next (re)try of a waiting job. */
export function jobTimes(job: Job, now: number): { key: TimeKey; label: string; at: number }[] {
  const times: { key: TimeKey; label: string; at: number }[] = [{ key: 'created', label: 'Created', at: job.createdAt }];
  if (job.startedAt !== null) times.push({ key: 'started', label: 'Started', at: job.startedAt });
  if (job.finishedAt !== null) times.push({ key: 'finished', label: 'Finished', at: job.finishedAt });
  if (job.state === 'retrying') times.push({ key: 'next', label: 'Next retry', at: job.runAt });
  else if (job.state === 'queued' && job.runAt > now) times.push({ key: 'next', label: 'Starts', at: job.runAt });
  return times;
}

/** The relative texts of the job's times ("3s ago", "in 4m"), by key: what the page's timer updates. */
export function relativeTimes(job: Job, now: number): Record<string, string> {
  return Object.fromEntries(jobTimes(job, now).map((t) => [t.key, relativeTime(t.at, now)]));
}

/** A time as local date and time, in the zone and format of the machine. */
export function localTime(at: number): string {
  return new Date(at).toLocaleString();
}

/**
 * The actions the page offers, in order: those that move the job where the transitions table
 * allows them in its state, the others always. A deleted job offers only Copy Id. What the
 * token's scope cannot do is not offered (a read token: no Retry, Cancel, Delete or Re-enqueue).
 */
export function pageActions(job: Pick<Job, 'state'>, deleted: boolean, scope: WindowScope = null): PageAction[] {
  const all = Object.keys(PAGE_ACTIONS).filter((a): a is PageAction => Object.hasOwn(PAGE_ACTIONS, a));
  if (deleted) return all.filter((a) => a === 'copyId');
  return all.filter((a) => {
    if (a === 'editAndRequeue' && !mayEnqueue(scope)) return false;
    if (PAGE_ACTIONS[a].transition !== null && !mayManage(scope)) return false;
    const transition = PAGE_ACTIONS[a].transition;
    return transition === null || allows(transition, job.state);
  });
}
