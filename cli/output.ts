/**
 * Printing a job's output lines (to stdout/stderr as the job wrote them, or as JSON lines), and
 * how a followed job ended, as the exit status of the command that followed it.
 */
import { runHeading, runKey } from '../shared/domain/runs';
import { TERMINAL_STATES, type Job, type OutputLine } from '../shared/protocol/types';
import type { CliContext } from './context';
import { CliError } from './errors';
import { formatDuration } from './format/time';

export function outputPrinter(ctx: CliContext, json: boolean): (lines: OutputLine[]) => void {
  let current: string | null = null;
  return (lines) => {
    for (const line of lines) {
      if (json) {
        ctx.stdout.write(JSON.stringify(line) + '\n');
        continue;
      }
      // A new run's lines follow the previous run's; say where one begins. Runs, not attempts:
      // a retried job starts again at attempt 1, and an interrupted attempt runs again under
      // its number.
      const key = runKey(line);
      if (key !== null && key !== current) {
        if (current !== null) ctx.stderr.write(ctx.colors.dim(runHeading(line)) + '\n');
        current = key;
      }
      if (line.stream === 'stderr') ctx.stderr.write(line.text + '\n');
      else if (line.stream === 'marker') ctx.stderr.write(ctx.colors.dim(line.text) + '\n');
      else ctx.stdout.write(line.text + '\n');
    }
  };
}

/**
 * After following a job to its end (`enqueue --wait`, `logs -f`): says on stderr how it ended
 * (`quiet` leaves a completed job unsaid) and returns the exit status, 0 only if it completed.
 */
export function jobEnded(ctx: CliContext, job: Job, options: { quiet: boolean }): number {
  const took = job.startedAt !== null && job.finishedAt !== null ? ` in ${formatDuration(job.finishedAt - job.startedAt)}` : '';
  const attempts = `${job.attempts} ${job.attempts === 1 ? 'attempt' : 'attempts'}`;
  if (job.state === 'completed') {
    if (!options.quiet) ctx.note(ctx.colors.green(`Job ${job.id} completed${took}.`));
  } else ctx.note(ctx.colors.red(`Job ${job.id} is ${job.state} after ${attempts}${job.lastError ? `: ${(job.lastError.split('\n')[0] ?? '').replace(/\.$/, '')}` : ''}.`));
  if (!TERMINAL_STATES.includes(job.state)) throw new CliError(`Job ${job.id} is still ${job.state}.`);
  return job.state === 'completed' ? 0 : 1;
}
