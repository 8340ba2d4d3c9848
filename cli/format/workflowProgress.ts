/**
 * What `spool run WORKFLOW --wait` prints as a run goes: one line when a step (or a matrix
 * instance) starts, succeeds, fails an attempt, fails, or is cancelled, found by comparing the
 * states seen last with the run as read now. A job that went through several states between
 * two reads gets the line of where it is now (a step that started and ended at once: only its
 * end). Pure: the caller keeps the states seen and passes the clock.
 */
import { firstLine, runCountsText, stepStateWord } from '../../shared/domain/present';
import type { JobState } from '../../shared/protocol/types';
import type { WorkflowRunDetail, WorkflowRunJob } from '../../shared/protocol/workflows';
import type { Colors } from './color';
import { jobDuration, runDuration, runStateText } from './workflowGraph';

/** The state of each job of the run, by id, as last printed. */
export type SeenStates = Map<string, { state: JobState; attempts: number }>;

/** The lines for what changed since `seen`, which is brought up to date. */
export function progressLines(run: WorkflowRunDetail, seen: SeenStates, c: Colors, now: number): string[] {
  const lines: string[] = [];
  const labels = new Map(run.jobs.map((j) => [j.id, j.label]));
  for (const job of run.jobs) {
    const before = seen.get(job.id);
    if (before !== undefined && before.state === job.state && before.attempts === job.attempts) continue;
    seen.set(job.id, { state: job.state, attempts: job.attempts });
    const line = changeLine(job, before?.state, c, now, labels);
    if (line !== null) lines.push(line);
  }
  return lines;
}

function changeLine(job: WorkflowRunJob, before: JobState | undefined, c: Colors, now: number, labels: ReadonlyMap<string, string>): string | null {
  const took = jobDuration(job, now);
  const error = job.lastError !== null && job.lastError !== '' ? `: ${errorText(job.lastError, labels)}` : '';
  switch (job.state) {
    case 'running':
      return `${c.cyan('started')}    ${job.label}${job.attempts > 1 ? c.dim(` (attempt ${job.attempts}/${job.maxAttempts})`) : ''}`;
    case 'completed':
      return `${c.green('succeeded')}  ${job.label}${took === '' ? '' : c.dim(` in ${took}`)}`;
    case 'retrying':
      return `${c.yellow('retrying')}   ${job.label}${c.dim(` (attempt ${job.attempts}/${job.maxAttempts} failed${error})`)}`;
    case 'dead':
      return `${c.red('failed')}     ${job.label}${took === '' ? '' : c.dim(` after ${took}`)}${job.attempts > 1 ? c.dim(`, ${job.attempts} attempts`) : ''}${c.dim(error)}`;
    case 'cancelled':
      return `${c.dim('cancelled')}  ${job.label}${c.dim(error)}`;
    case 'held':
      return `${c.yellow('held')}       ${job.label}`;
    // Waiting, then queued: not worth a line each; the start says it.
    case 'blocked':
    case 'queued':
      return before === undefined || before === 'blocked' || before === 'queued' ? null : `${stepStateWord(job.state)}     ${job.label}`;
  }
}

/** The last line of a wait: the run's state, how long it took, its counts, and what to do next. */
export function finalLine(run: WorkflowRunDetail, c: Colors, now: number): string {
  const head = `Run ${run.id} of ${run.workflow} ${runStateText(run.state, c)} in ${runDuration(run, now)}: ${runCountsText(run.counts)}.`;
  if (run.state === 'failed' || run.state === 'cancelled') return `${head} Retry the failed part with \`spool workflow retry ${run.id}\`.`;
  return head;
}

/**
 * A job's last error on one line, the jobs of the run it names called by their labels
 * (`dependency build failed`, not the dependency's id).
 */
function errorText(error: string, labels: ReadonlyMap<string, string>): string {
  return firstLine(error.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => labels.get(id) ?? id), 160);
}
