/**
 * Problems as a terminal shows them, one a line, in the form compilers use so editors and CI
 * logs link them: `spool.jsonc:12:17: error: schedules.nightly.cron: … [invalid-cron]`.
 */
import type { Problem } from './model';
import { lineColumn } from './positions';

/** One problem on one line, its position 1-based. */
export function formatProblem(problem: Problem, fileName: string): string {
  const { line, column } = lineColumn(problem.range.start);
  return `${fileName}:${line}:${column}: ${problem.severity}: ${problem.message} [${problem.code}]`;
}
