/**
 * The environment a job's command runs in, the same for the daemon's shell executor and for
 * `spool work --exec`: one naming, declared here and documented in docs/cli.md. A command can
 * tell which job it runs (to report on it, or to find its own files), resume from the checkpoint
 * an earlier attempt saved, and reach the daemon. Every process the command starts inherits
 * `SPOOL_JOB_ID`, which is how a job's processes are found again (jobProcesses.ts).
 *
 * The rest of the environment is the daemon's (or the worker's) own, less the variables that
 * carry its credentials (SECRET_ENV): a job may be enqueued by anyone with a worker token, and
 * `env` in a shell job must not print the database's password or a token.
 *
 * A job that depends on others gets them too (`dependencyEnvironment`): `SPOOL_DEPENDENCIES`, the
 * path of a JSON file holding what a worker's claim carries (`[{id, on, state, step, queue,
 * kind, result}]`), and for each dependency with a step name whose result is a string or a
 * number, `SPOOL_RESULT_<STEP>` (the step's name in capitals, other characters as `_`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ClaimedJob, Job } from '../protocol/types';

/** The variables' names. */
export const JOB_ENV = {
  id: 'SPOOL_JOB_ID',
  queue: 'SPOOL_JOB_QUEUE',
  kind: 'SPOOL_JOB_KIND',
  attempt: 'SPOOL_JOB_ATTEMPT',
  maxAttempts: 'SPOOL_JOB_MAX_ATTEMPTS',
  payload: 'SPOOL_JOB_PAYLOAD',
  checkpoint: 'SPOOL_JOB_CHECKPOINT',
  workerId: 'SPOOL_WORKER_ID',
  socket: 'SPOOL_SOCKET',
  dependencies: 'SPOOL_DEPENDENCIES',
} as const;

/** The variable that carries the result of the dependency that ran step `step`. */
export function resultVariable(step: string): string {
  return `SPOOL_RESULT_${step.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The variables of a job's dependencies, and how to remove the file they name once the command has ended. */
export interface DependencyEnvironment {
  env: Record<string, string>;
  remove(): void;
}

/**
 * The variables of `job`'s dependencies (none for a job without). The file is written 0600 in a
 * folder of its own, 0700: results can hold what only the job's user may read. The folder is made
 * under `parent` (a daemon's own folder, swept at its start: see dependencyFolders) when given,
 * else under the system's temporary folder.
 */
export function dependencyEnvironment(job: ClaimedJob, parent?: string): DependencyEnvironment {
  const dependencies = job.dependencies;
  if (dependencies === undefined || dependencies.length === 0) return { env: {}, remove: () => undefined };
  if (parent !== undefined) fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  const folder = fs.mkdtempSync(path.join(parent ?? os.tmpdir(), 'spool-dependencies-'));
  const file = path.join(folder, 'dependencies.json');
  fs.writeFileSync(file, JSON.stringify(dependencies), { mode: 0o600 });
  const env: Record<string, string> = { [JOB_ENV.dependencies]: file };
  for (const d of dependencies) {
    if (d.step === null) continue;
    if (typeof d.result === 'string') env[resultVariable(d.step)] = d.result;
    else if (typeof d.result === 'number') env[resultVariable(d.step)] = String(d.result);
  }
  return { env, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/**
 * The variables for one attempt of `job`, run by worker `workerId` of the daemon at `socketPath`.
 * `SPOOL_JOB_CHECKPOINT` is set only when an earlier attempt saved a checkpoint.
 */
export function jobEnvironment(job: Job, workerId: string, socketPath: string): Record<string, string> {
  const env: Record<string, string> = {
    [JOB_ENV.id]: job.id,
    [JOB_ENV.queue]: job.queue,
    [JOB_ENV.kind]: job.kind,
    [JOB_ENV.attempt]: String(job.attempts),
    [JOB_ENV.maxAttempts]: String(job.maxAttempts),
    [JOB_ENV.payload]: JSON.stringify(job.payload ?? null),
    [JOB_ENV.workerId]: workerId,
    [JOB_ENV.socket]: socketPath,
  };
  if (job.checkpoint !== null && job.checkpoint !== undefined) env[JOB_ENV.checkpoint] = JSON.stringify(job.checkpoint);
  return env;
}

/**
 * Variables that hold the daemon's or a worker's own credentials, or say where they are: the
 * PostgreSQL store's URL (it may carry a password) and what libpq reads a password or key from,
 * and a client's token. They are never passed on to a job's command (a payload's own `env` may
 * still set them, as its sender chose).
 */
export const SECRET_ENV: readonly string[] = ['SPOOL_STORE', 'PGPASSWORD', 'PGPASSFILE', 'PGSSLKEY', 'SPOOL_TOKEN', 'SPOOL_TOKEN_FILE'];

/** `env` without the SECRET_ENV variables: what a job's command inherits from the process running it. */
export function inheritedEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = { ...env };
  for (const name of SECRET_ENV) delete kept[name];
  return kept;
}

/**
 * The folder a daemon listening on `socketPath` keeps its shell jobs' dependency files in: beside
 * its socket (a folder only its user may enter), one per socket, so that a daemon killed mid-job
 * leaves them where its next start finds them.
 */
export function dependencyFolders(socketPath: string): string {
  return `${socketPath}.dependencies`;
}

/** Removes what a daemon killed mid-job left in `folder` (dependencyFolders); the folder stays, 0700. */
export function sweepDependencyFolders(folder: string): number {
  let entries: string[];
  try {
    entries = fs.readdirSync(folder);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 0;
    throw error;
  }
  for (const entry of entries) fs.rmSync(path.join(folder, entry), { recursive: true, force: true });
  return entries.length;
}
