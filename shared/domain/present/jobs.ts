/**
 * Why a job is in its state, in words: the one-line reason the Queues view's rows and the NOTE
 * column of `spool jobs` show (`starts in 1h`, `next attempt in 30s · attempt 1/5 · timeout`),
 * and the sentence of the job page (`Attempt 2 failed with exit code 3: … Next attempt in
 * 30s.`), which say the same things in the same words. Pure: the caller passes the clock.
 */
import { formatDuration } from '../durations';
import type { Job, JobRun, JobState, JobUniqueness } from '../../protocol/types';
import { waitingForText } from './dependencies';
import { relativeTime } from './time';
import { waitingSentence, type WaitingFacts } from './waiting';

/** A job's state as it is shown: a queued job whose run time lies ahead is `delayed`. */
export type ShownState = JobState | 'delayed';

/** The state a job is shown in at `now`. */
export function shownState(job: Pick<Job, 'state' | 'runAt'>, now: number): ShownState {
  return job.state === 'queued' && job.runAt > now ? 'delayed' : job.state;
}

/** The first non-empty line of a text (an error), cut to `max` characters with an ellipsis. */
export function firstLine(text: string, max = 80): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The shell executor's errors: a cause, how the command ended, then the last lines of stderr. */
const SHELL_ERROR = /^(?:(.+?)\. )?The command (exited with code (\d+)|was killed by (\S+?)|was killed by \S+ after the (\S+) timeout|was stopped after the (\S+) timeout and exited with code \d+)\.$/;
const STDERR_TAIL = '\nLast lines of stderr:\n';
/** The HTTP executor's: `POST https://… answered 503 Service Unavailable: <body>`, or a timeout or a failure to connect. */
const HTTP_ANSWER = /^[A-Z]+ \S+ answered (\d{3})( [^:]*)?(?::|$)/;
const HTTP_OTHER = /^[A-Z]+ \S+ (?:(timed out after .+?)\.?|failed: (.+))$/;

/**
 * Why a job failed, in one line for a row: for a shell job the last line of its stderr with how
 * the command ended (`smtp: connection refused · exit code 3`), for an HTTP job the status and
 * reason (`HTTP 503 Service Unavailable`), else the first line of the error. The executors'
 * messages say the same at length, and their first line alone repeats the URL or says only the
 * exit code.
 */
export function failureText(lastError: string, max = 80): string {
  const cut = (text: string): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const lines = lastError.split('\n');
  const first = lines[0]?.trim() ?? '';
  const shell = SHELL_ERROR.exec(first);
  if (shell) {
    const [, cause, , code, signal, killedAfter, stoppedAfter] = shell;
    const timeout = killedAfter ?? stoppedAfter;
    const how = cause ?? (timeout !== undefined ? `timed out after ${timeout}` : code !== undefined ? `exit code ${code}` : `killed by ${signal}`);
    const at = lastError.indexOf(STDERR_TAIL);
    const stderr = at < 0 ? '' : (lastError.slice(at + STDERR_TAIL.length).split('\n').map((l) => l.trim()).filter((l) => l !== '').at(-1) ?? '');
    if (stderr === '') return cut(how);
    // The stderr line is the reason; how the command ended keeps its room at the end.
    const room = max - how.length - 3;
    return room >= 20 ? `${stderr.length > room ? `${stderr.slice(0, room - 1)}…` : stderr} · ${how}` : cut(`${stderr} · ${how}`);
  }
  const answered = HTTP_ANSWER.exec(first);
  if (answered) return cut(`HTTP ${answered[1]}${answered[2]?.trimEnd() ?? ''}`);
  const other = HTTP_OTHER.exec(first);
  if (other) return cut(other[1] ?? other[2] ?? first);
  return firstLine(lastError, max);
}

/** Time running: whole seconds for the first minute (no "7.3s" flickering), then "1m30s". */
function elapsed(ms: number): string {
  return formatDuration(ms, ms < 60_000 ? 1 : 2);
}

/** "attempt 2/3", or null for a job that has one attempt only ("attempt 1/1" says nothing). */
function attemptOf(job: Pick<Job, 'attempts' | 'maxAttempts'>): string | null {
  return job.maxAttempts > 1 ? `attempt ${job.attempts}/${job.maxAttempts}` : null;
}

/** How long a finished job ran: "took 3s", "took under 1s" (not "took 0s"). */
export function tookText(ms: number): string {
  return ms < 1000 ? 'took under 1s' : `took ${formatDuration(ms, 1)}`;
}

/** When a delayed job starts: "starts in 1h". */
export function startsText(runAt: number, now: number): string {
  return `starts ${relativeTime(runAt, now)}`;
}

/**
 * When a retrying job is tried again: "next attempt in 30s"; once that time has passed and no
 * worker has taken the job, "next attempt was due 21m ago" ("next attempt 21m ago" read as if an
 * attempt had been made then).
 */
export function nextAttemptText(runAt: number, now: number): string {
  return runAt <= now - 1000 ? `next attempt was due ${relativeTime(runAt, now)}` : `next attempt ${relativeTime(runAt, now)}`;
}

/**
 * A job's reason in one line, its state first so that what a narrow view cuts off is the least
 * useful part: a dead job's error, a running job's progress and time running, when a waiting job
 * starts, when a finished one ended. `shownAs` is where the job is listed (a queued job may be
 * listed as delayed); by default its shown state at `now`.
 */
export function jobReason(job: Job, now: number, shownAs: ShownState = shownState(job, now)): string {
  const parts: (string | null)[] = [];
  const ended = job.finishedAt ?? job.createdAt;
  switch (shownAs) {
    case 'blocked':
      parts.push(waitingForText(job));
      break;
    case 'running':
      if (job.progress !== null) parts.push(`${Math.round(job.progress)}%`);
      parts.push(`running ${elapsed(now - (job.startedAt ?? now))}`);
      if (job.progressMessage) parts.push(job.progressMessage);
      if (job.cancelRequested) parts.push('cancel requested');
      parts.push(attemptOf(job));
      break;
    case 'queued':
      parts.push(`queued ${relativeTime(job.createdAt, now)}`, attemptOf(job));
      break;
    case 'delayed':
      parts.push(startsText(job.runAt, now));
      break;
    case 'retrying':
      parts.push(nextAttemptText(job.runAt, now), attemptOf(job), job.lastError ? failureText(job.lastError) : null);
      break;
    case 'dead':
      parts.push(job.lastError ? failureText(job.lastError) : 'dead', relativeTime(ended, now), attemptOf(job));
      break;
    case 'completed':
      parts.push(`completed ${relativeTime(ended, now)}`);
      if (job.startedAt !== null && job.finishedAt !== null) parts.push(tookText(job.finishedAt - job.startedAt));
      break;
    case 'cancelled':
      parts.push(`cancelled ${relativeTime(ended, now)}`);
      break;
    case 'held':
      parts.push(job.waitingFor > 0 ? `held · ${waitingForText(job)}` : 'held until released', attemptOf(job));
      break;
  }
  return parts.filter((p): p is string => p !== null && p !== '').join(' · ');
}

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

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The whole first line of an error: a sentence has room for it. */
function errorLine(job: Pick<Job, 'lastError'>): string {
  return job.lastError === null ? '' : (job.lastError.split('\n', 1)[0] ?? '');
}

/**
 * Why the job is in its state, in one sentence or two (the job page's); `runs` oldest first.
 * `waiting`: the job's queue and the workers, for why a due queued job has not started.
 */
export function stateSentence(job: Job, runs: readonly JobRun[], now: number, waiting: WaitingFacts = {}): string {
  const last = runs[runs.length - 1];
  const error = errorLine(job);
  const status = statusBeside(last, error);
  switch (job.state) {
    case 'blocked':
      return `Waiting for ${job.waitingFor} of the ${job.dependsOn} jobs it depends on to end.`;
    case 'queued':
      return job.runAt > now ? `${capitalized(startsText(job.runAt, now))}.` : waitingSentence(job, waiting, now);
    case 'running': {
      const worker = job.workerId === null ? '' : ` on ${job.workerId}`;
      const cancel = job.cancelRequested ? ' A cancel was requested; its worker is stopping it.' : '';
      return `Running${worker}, attempt ${job.attempts} of ${job.maxAttempts}.${cancel}`;
    }
    case 'retrying': {
      // Overdue: why it has not been tried again, as for a due queued job.
      const overdue = job.runAt <= now - 1000 ? ` ${waitingSentence(job, waiting, now)}` : '';
      return `${sentence(`Attempt ${job.attempts} failed${status ? ` with ${status}` : ''}${error ? `: ${error}` : ''}`)} ${capitalized(nextAttemptText(job.runAt, now))}.${overdue}`;
    }
    case 'dead':
      return `Died after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}${status ? ` with ${status}` : ''}${error ? `: ${error}` : '.'}`;
    case 'completed':
      return last?.durationMs !== null && last?.durationMs !== undefined ? `Completed in ${formatDuration(last.durationMs)}.` : 'Completed.';
    case 'cancelled':
      return error ? `Cancelled: ${error}` : 'Cancelled.';
    case 'held':
      return job.waitingFor > 0
        ? `Held: not started until released (spool release), and then waiting for ${job.waitingFor} of the ${job.dependsOn} jobs it depends on.`
        : 'Held: not started until released (spool release).';
  }
}

/**
 * How a job ended, for the last line of its output: "the job completed", "the job was
 * cancelled", "the job died with exit code 3: the tests failed". Null while it has not ended.
 */
export function endLine(job: Job, runs: readonly JobRun[]): string | null {
  const error = errorLine(job);
  const status = statusBeside(runs[runs.length - 1], error);
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

/**
 * The rule a job was enqueued with, in a few words, as the job page and `spool job` show it:
 * "unique for 10m by queue, kind, payload", "debounce 5s by queue, kind", "throttle 1m by kind".
 */
export function uniquenessText(u: JobUniqueness): string {
  const by = `by ${u.by.join(', ')}`;
  if (u.rule === 'unique') return `unique for ${formatDuration(u.forMs)} ${by}${u.while !== undefined && u.while !== 'any' ? ` while ${u.while}` : ''}`;
  return `${u.rule} ${formatDuration(u.forMs)} ${by}`;
}
