/**
 * The jobs file as `spool plan`, `apply` and `run` read it: `--file`, else spool.jsonc, else
 * spool.json in the current folder, parsed by the one parser (shared/jobsfile). A file with any
 * error is refused with every problem on its own line, as file:line:column, so nothing is sent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatProblem, parseJobsFile, type Declaration, type DeclaredWorkflow, type Problem } from '../../shared/jobsfile';
import { CliError } from '../errors';
import { errorMessage } from '../../shared/protocol/errors';

/** The names looked for in the current folder, in order. */
export const DEFAULT_FILES = ['spool.jsonc', 'spool.json'] as const;

export interface JobsFile {
  /** As the person wrote it, or the default name found. */
  path: string;
  declaration: Declaration;
  /** The file's workflows (not part of what apply sends). */
  workflows: DeclaredWorkflow[];
  /** Warnings: shown, never blocking. */
  warnings: Problem[];
}

/** Which file: `--file`, else the first default that exists in `cwd`. */
export function jobsFilePath(file: string | undefined, cwd = process.cwd()): string {
  if (file !== undefined) return file;
  for (const name of DEFAULT_FILES) if (fs.existsSync(path.join(cwd, name))) return name;
  throw new CliError(`No jobs file here: looked for ${DEFAULT_FILES.join(' and ')} in ${cwd}. Write one (see docs/jobs-as-code.md), or pass --file <path>.`);
}

/**
 * Reads and parses the jobs file. Every problem is told to `report`, one line each (warnings
 * too); when any is an error, the file is refused (a CliError that sums them up).
 */
export function readJobsFile(file: string | undefined, report: (line: string) => void, cwd = process.cwd()): JobsFile {
  const shown = jobsFilePath(file, cwd);
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(cwd, shown), 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error && error.code === 'ENOENT' ? 'it does not exist' : errorMessage(error);
    throw new CliError(`Cannot read the jobs file ${shown}: ${reason}.`);
  }
  const parsed = parseJobsFile(text);
  const errors = parsed.problems.filter((p) => p.severity === 'error');
  for (const problem of parsed.problems) report(formatProblem(problem, shown));
  if (parsed.declaration === null || errors.length > 0) {
    throw new CliError(`${shown} has ${errors.length} error${errors.length === 1 ? '' : 's'} (above); nothing was sent to the daemon.`);
  }
  return { path: shown, declaration: parsed.declaration, workflows: parsed.workflows, warnings: parsed.problems.filter((p) => p.severity === 'warning') };
}
