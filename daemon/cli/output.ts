/** Printing a job's output lines: to stdout/stderr as the job wrote them, or as JSON lines. */
import type { OutputLine } from '../../shared/types';
import type { CliContext } from './context';

export function outputPrinter(ctx: CliContext, json: boolean): (lines: OutputLine[]) => void {
  let run = 0;
  return (lines) => {
    for (const line of lines) {
      if (json) {
        ctx.stdout.write(JSON.stringify(line) + '\n');
        continue;
      }
      if (line.run !== run) {
        // A new run's lines follow the previous run's; say where one ends. Runs, not attempts:
        // a retried job starts again at attempt 1, and an interrupted attempt runs again under
        // its number.
        if (run !== 0) ctx.stderr.write(ctx.colors.dim(`--- run ${line.run} (attempt ${line.attempt}) ---`) + '\n');
        run = line.run;
      }
      if (line.stream === 'stderr') ctx.stderr.write(line.text + '\n');
      else if (line.stream === 'marker') ctx.stderr.write(ctx.colors.dim(line.text) + '\n');
      else ctx.stdout.write(line.text + '\n');
    }
  };
}
