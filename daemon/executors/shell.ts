/**
 * The `shell` executor: payload `{command, cwd?, env?, permanentExitCodes?}` runs as
 * `/bin/sh -c command` in a process group of its own, so that cancel, timeout and shutdown reach
 * every process the command started — `process.kill(-pgid)` signals the whole group: SIGTERM
 * first, SIGKILL after the grace period. When the shell itself exits, whatever it left running
 * in its group is killed too: no child outlives its job.
 *
 * Exit 0 completes the job with `{exitCode: 0}`; any other exit fails it with the code and the
 * tail of stderr (permanently if the code is listed in `permanentExitCodes`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';
import { shellPayload, type ShellPayload } from '../engine/validate/payloads';
import { withPayload, type Executor, type ExecutorContext, type Outcome, type RunningJob, type StopReason } from './types';

/** After the shell exits, how long its pipes may stay open (held by a process that left the group). */
const PIPE_CLOSE_WAIT_MS = 2000;

export const runShell: Executor = (context) =>
  withPayload(
    'shell',
    () => shellPayload(context.job.payload, 'payload'),
    (payload) => new ShellRun(context, payload),
  );

class ShellRun implements RunningJob {
  readonly done: Promise<Outcome>;
  private stopReason: StopReason | null = null;
  private pgid: number | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private exited = false;

  constructor(
    private readonly context: ExecutorContext,
    payload: ShellPayload,
  ) {
    this.done = this.run(payload);
  }

  stop(reason: StopReason): void {
    if (this.stopReason !== null || this.exited) return;
    this.stopReason = reason;
    this.signalGroup('SIGTERM');
    this.killTimer = setTimeout(() => this.signalGroup('SIGKILL'), this.context.killGraceMs);
  }

  private async run(payload: ShellPayload): Promise<Outcome> {
    const { job, output } = this.context;
    if (payload.cwd !== undefined && !isDirectory(payload.cwd)) {
      return { kind: 'failed', error: `The working folder ${payload.cwd} does not exist or is not a folder.` };
    }
    const child = spawn('/bin/sh', ['-c', payload.command], {
      cwd: payload.cwd,
      env: { ...process.env, ...payload.env, SPOOL_JOB_ID: job.id, SPOOL_QUEUE: job.queue, SPOOL_ATTEMPT: String(job.attempts) },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.pgid = child.pid ?? null;
    child.stdout.on('data', (chunk: Buffer) => output.write('stdout', chunk));
    child.stderr.on('data', (chunk: Buffer) => output.write('stderr', chunk));
    const timeout = setTimeout(() => this.stop('timeout'), job.timeoutMs);

    // 'close' comes once the process has exited and its pipes are closed; listen from the start,
    // since it can come right after 'exit'.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, spawnError: error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    this.exited = true;
    clearTimeout(timeout);
    // Whatever the shell started and left behind in its group goes with it.
    this.signalGroup('SIGKILL');
    if (this.killTimer) clearTimeout(this.killTimer);
    if (!exit.spawnError) await waitForPipes(closed, child.stdout, child.stderr);
    output.flush();

    if (exit.spawnError) return { kind: 'failed', error: `Could not start /bin/sh: ${exit.spawnError.message}` };
    if (this.stopReason === 'cancel') return { kind: 'cancelled' };
    if (this.stopReason === 'shutdown') return { kind: 'stopped' };
    if (this.stopReason === 'timeout') {
      return { kind: 'failed', error: `Timed out after ${job.timeoutMs} ms; the command's processes were stopped.${tailText(output.tail())}` };
    }
    if (exit.code === 0) return { kind: 'completed', result: { exitCode: 0 } };
    if (exit.code !== null) {
      return {
        kind: 'failed',
        error: `The command exited with code ${exit.code}.${tailText(output.tail())}`,
        exitCode: exit.code,
        permanent: payload.permanentExitCodes.includes(exit.code),
      };
    }
    return { kind: 'failed', error: `The command was killed by ${exit.signal ?? 'a signal'}.${tailText(output.tail())}` };
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pgid === null) return;
    try {
      process.kill(-this.pgid, signal);
    } catch (error) {
      // ESRCH: the group is already empty, which is what we wanted. Anything else is told to the
      // job's output, where whoever looks at the job will see it.
      if (error instanceof Error && 'code' in error && error.code === 'ESRCH') return;
      this.context.output.log(`Could not send ${signal} to process group ${this.pgid}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Waits for the pipes to close; a process that escaped the group (setsid) may hold them open. */
async function waitForPipes(closed: Promise<void>, ...streams: Readable[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), PIPE_CLOSE_WAIT_MS)));
  const late = await Promise.race([closed.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) for (const s of streams) s.destroy();
}

function tailText(tail: string): string {
  return tail.length > 0 ? `\nLast lines of stderr:\n${tail}` : '';
}

function isDirectory(path: string): boolean {
  try {
    return fs.statSync(path).isDirectory();
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return false;
    throw error;
  }
}
