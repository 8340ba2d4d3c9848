/** Printing a job's output lines: to stdout/stderr as the job wrote them, or as JSON lines. */
import type { OutputLine } from '../../shared/types';
import type { CliContext } from './context';

export function outputPrinter(ctx: CliContext, json: boolean): (lines: OutputLine[]) => void {
  let attempt = 0;
  return (lines) => {
    for (const line of lines) {
      if (json) {
        ctx.stdout.write(JSON.stringify(line) + '\n');
        continue;
      }
      if (line.attempt !== attempt) {
        // A new attempt's lines follow the previous attempt's; say where one ends.
        if (attempt !== 0) ctx.stderr.write(ctx.colors.dim(`--- attempt ${line.attempt} ---`) + '\n');
        attempt = line.attempt;
      }
      if (line.stream === 'stderr') ctx.stderr.write(line.text + '\n');
      else if (line.stream === 'marker') ctx.stderr.write(ctx.colors.dim(line.text) + '\n');
      else ctx.stdout.write(line.text + '\n');
    }
  };
}
