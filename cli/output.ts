/** Printing a job's output lines: to stdout/stderr as the job wrote them, or as JSON lines. */
import { runHeading, runKey } from '../shared/domain/runs';
import type { OutputLine } from '../shared/protocol/types';
import type { CliContext } from './context';

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
