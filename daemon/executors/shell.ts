/**
 * The `shell` executor: payload `{command, cwd?, env?, permanentExitCodes?, limits?}` runs as
 * `/bin/sh -c command` in a process group of its own (shared/client/processGroup.ts, the runner
 * `spool work` uses too), so that cancel, timeout and shutdown reach every process the command
 * started — `process.kill(-pgid)` signals the whole group: SIGTERM first, SIGKILL after the grace
 * period. When the shell itself exits, whatever it left running in its group is killed too: no
 * child outlives its job — not even one that left the group with `setsid`, found by the
 * SPOOL_JOB_ID in its environment, and, where the daemon may make a cgroup per job (cgroups.ts),
 * not even one that also dropped SPOOL_JOB_ID (the environment is jobEnv.ts's, the same as `spool work`'s:
 * the daemon's own, less its credentials, plus the job's variables).
 *
 * Resource limits (the queue's, overridden field by field by `payload.limits`) are set on the
 * shell with `prlimit`; a failure that shows a limit was hit says which (limits.ts).
 *
 * Output, `::spool` report lines and the outcome with its message are shared/client/shellJob.ts's,
 * the same as `spool work`'s: exit 0 completes the job with `{exitCode: 0}`; any other exit fails
 * it with the code and the tail of stderr (permanently if the code is listed in
 * `permanentExitCodes`).
 */
import * as fs from 'node:fs';
import { dependencyEnvironment, dependencyFolders, inheritedEnvironment, jobEnvironment } from '../../shared/client/jobEnv';
import { PRLIMIT, runProcessGroup, type ProcessGroupRun } from '../../shared/client/processGroup';
import { shellJobOutcome } from '../../shared/client/shellJob';
import type { ResourceLimits } from '../../shared/protocol/types';
import { jobCgroup } from './cgroups';
import { limitHit, limitsRefused } from './limits';
import { shellPayload, type ShellPayload } from '../../shared/domain/rules/payloads';
import { withPayload, type Executor, type ExecutorContext, type Outcome, type RunningJob, type StopReason } from './types';

export const runShell: Executor = (context) =>
  withPayload(
    'shell',
    () => shellPayload(context.job.payload, 'payload'),
    (payload) => new ShellRun(context, payload),
  );

/** The process-group runner (shared with `spool work`) applied to a daemon's shell job. */
class ShellRun implements RunningJob {
  readonly done: Promise<Outcome>;
  /** Set within the constructor (run() starts the command before its first await); null if it could not start. */
  private group: ProcessGroupRun<StopReason> | null = null;

  constructor(
    private readonly context: ExecutorContext,
    payload: ShellPayload,
  ) {
    this.done = this.run(payload);
  }

  stop(reason: StopReason): void {
    this.group?.stop(reason);
  }

  pause(): void {
    this.group?.pause();
  }

  resume(): void {
    this.group?.resume();
  }

  private async run(payload: ShellPayload): Promise<Outcome> {
    const { job, output } = this.context;
    if (payload.cwd !== undefined && !isDirectory(payload.cwd)) {
      return { kind: 'failed', error: `The working folder ${payload.cwd} does not exist or is not a folder.` };
    }
    // The queue's limits, each replaced by the job's own where it gives one.
    const limits: ResourceLimits = { ...this.context.queueLimits, ...payload.limits };
    // A cgroup of its own where the daemon may make one (cgroups.ts): no process can leave it.
    const container = jobCgroup(job.id, (message) => output.log(message));
    const dependencies = dependencyEnvironment(job, dependencyFolders(this.context.socketPath));
    const group = runProcessGroup<StopReason>({
      command: payload.command,
      cwd: payload.cwd,
      env: {
        // The daemon's environment, less its credentials (SPOOL_STORE, PGPASSWORD, tokens).
        ...inheritedEnvironment(process.env),
        ...payload.env,
        // After the payload's env: the job's own variables are not the payload's to change
        // (SPOOL_JOB_ID is how the job's processes are found again).
        ...jobEnvironment(job, this.context.workerId, this.context.socketPath),
        ...dependencies.env,
        // The names shell jobs had before the environment was shared with `spool work`, kept.
        SPOOL_QUEUE: job.queue,
        SPOOL_ATTEMPT: String(job.attempts),
      },
      jobId: job.id,
      ...(container === null ? {} : { container }),
      limits,
      timeoutMs: job.timeoutMs,
      killGraceMs: this.context.killGraceMs,
      ...(this.context.spawner === undefined ? {} : { spawner: this.context.spawner }),
      onOutput: (stream, chunk) => output.write(stream, chunk),
      // Told to the job's output, where whoever looks at the job will see it.
      onProblem: (message) => output.log(message),
    });
    this.group = group;
    const exit = await group.done.finally(() => dependencies.remove());
    await output.flush();

    const stderrTail = output.tail();
    if (exit.spawnError === null && exit.stoppedFor === null && exit.code !== 0) {
      const refused = limitsRefused(limits, { code: exit.code, signal: exit.signal, stderrTail });
      // The command never ran, and would not at a retry either.
      if (refused !== null) return { kind: 'failed', error: `Could not apply the job's resource limits: ${refused}`, permanent: true };
    }
    const outcome = shellJobOutcome(exit, {
      timeoutMs: job.timeoutMs,
      permanentExitCodes: payload.permanentExitCodes,
      stderrTail,
      program: Object.keys(limits).length > 0 ? `${PRLIMIT} (util-linux, which sets the job's resource limits)` : '/bin/sh',
      cause: limitHit(limits, { code: exit.code, signal: exit.signal, stderrTail }),
      result: output.result(),
    });
    if (outcome.kind !== 'stopped') return outcome;
    return outcome.reason === 'cancel' ? { kind: 'cancelled' } : { kind: 'stopped' };
  }
}

function isDirectory(path: string): boolean {
  try {
    return fs.statSync(path).isDirectory();
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return false;
    throw error;
  }
}
