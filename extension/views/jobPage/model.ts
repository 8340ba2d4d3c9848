/**
 * What the job page says about a job, in words, from the job, its runs and its last output lines:
 * its title, why it is in its state, how it ended, its times, and which actions it allows. Pure:
 * no `vscode`, no clock (the caller passes `now`), so the unit tests read it directly. render.ts
 * turns it into HTML; the output document (documents/jobOutput.ts) ends with `endLine`.
 */
import { formatDuration } from '../../../shared/domain/durations';
import { allows } from '../../../shared/domain/states';
import type { Job, JobRun, JobState, OutputLine } from '../../../shared/types';
import { payloadSummary, relativeTime } from '../format';
import { PAGE_ACTIONS, type PageAction } from './messages';

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
}

/** What a job is, in a few words: `builds › npm test`, `hooks › POST https://…`, `reports › report {"month":…}`. */
export function jobTitle(job: Pick<Job, 'queue' | 'kind' | 'payload'>, max = 60): string {
  const summary = payloadSummary(job.kind, job.payload, max);
  const what = job.kind === 'shell' || job.kind === 'http' ? summary : summary === '' ? job.kind : `${job.kind} ${summary}`;
  return `${job.queue} › ${what}`;
}

/** The state's name as the page shows it: a queued job waiting for its time is "delayed". */
export function stateLabel(job: Pick<Job, 'state' | 'runAt'>, now: number): JobState | 'delayed' {
  return job.state === 'queued' && job.runAt > now ? 'delayed' : job.state;
}

/** The glyph drawn before a state (no icon font is loaded into the page; see render.ts). */
export const STATE_GLYPHS: Readonly<Record<JobState | 'delayed', string>> = {
  queued: '○',
  delayed: '◷',
  running: '⟳',
  retrying: '↻',
  completed: '✓',
  dead: '✕',
  cancelled: '⊘',
};

/** "exit code 3", "HTTP 500", or null when the run recorded neither. */
export function runStatus(run: Pick<JobRun, 'exitCode' | 'httpStatus'>): string | null {
  if (run.exitCode !== null) return `exit code ${run.exitCode}`;
  if (run.httpStatus !== null) return `HTTP ${run.httpStatus}`;
  return null;
}

/**
 * The last run's exit code or HTTP status, to be said beside the error, unless the error says it
 * already (the shell executor's "The command exited with code 3.").
 */
function statusBeside(run: JobRun | undefined, error: string): string | null {
  if (!run) return null;
  const code = run.exitCode ?? run.httpStatus;
  if (code === null || new RegExp(`\\b${code}\\b`).test(error)) return null;
  return runStatus(run);
}

/** Ends `text` with a full stop unless it ends with one already (an error message often does). */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

function lastRun(runs: readonly JobRun[]): JobRun | undefined {
  return runs[runs.length - 1];
}

/** Why the job is in its state, in one sentence. */
export function stateReason(job: Job, runs: readonly JobRun[], now: number): string {
  const last = lastRun(runs);
  const error = job.lastError === null ? '' : firstLine(job.lastError);
  const status = statusBeside(last, error);
  switch (job.state) {
    case 'queued':
      return job.runAt > now ? `Starts ${relativeTime(job.runAt, now)}.` : 'Waiting for a worker.';
    case 'running': {
      const worker = job.workerId === null ? '' : ` on ${job.workerId}`;
      const cancel = job.cancelRequested ? ' A cancel was requested; its worker is stopping it.' : '';
      return `Running${worker}, attempt ${job.attempts} of ${job.maxAttempts}.${cancel}`;
    }
    case 'retrying':
      return `${sentence(`Attempt ${job.attempts} failed${status ? ` with ${status}` : ''}${error ? `: ${error}` : ''}`)} Next attempt ${relativeTime(job.runAt, now)}.`;
    case 'dead':
      return `Died after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}${status ? ` with ${status}` : ''}${error ? `: ${error}` : '.'}`;
    case 'completed':
      return last?.durationMs !== null && last?.durationMs !== undefined ? `Completed in ${formatDuration(last.durationMs)}.` : 'Completed.';
    case 'cancelled':
      return error ? `Cancelled: ${error}` : 'Cancelled.';
  }
}

/**
 * How a job ended, for the last line of its output document: "completed", "was cancelled",
 * "died with exit code 3: the tests failed". Null while it has not ended.
 */
export function endLine(job: Job, runs: readonly JobRun[]): string | null {
  const error = job.lastError === null ? '' : firstLine(job.lastError);
  const status = statusBeside(lastRun(runs), error);
  switch (job.state) {
    case 'completed':
      return 'the job completed';
    case 'cancelled':
      return 'the job was cancelled';
    case 'dead':
      return `the job died${status ? ` with ${status}` : ''}${error ? `: ${error}` : ''}`;
    default:
      return null;
  }
}

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
 * allows them in its state, the others always. A deleted job offers only Copy Id.
 */
export function pageActions(job: Pick<Job, 'state'>, deleted: boolean): PageAction[] {
  const all = Object.keys(PAGE_ACTIONS).filter((a): a is PageAction => Object.hasOwn(PAGE_ACTIONS, a));
  if (deleted) return all.filter((a) => a === 'copyId');
  return all.filter((a) => {
    const transition = PAGE_ACTIONS[a].transition;
    return transition === null || allows(transition, job.state);
  });
}
