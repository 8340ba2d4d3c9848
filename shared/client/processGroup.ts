/**
 * Runs a command (`/bin/sh -c`) in a process group of its own, for the daemon's shell executor
 * and `spool work` alike. The group is what makes stopping reliable: `process.kill(-pgid)`
 * reaches every process the command started, not only the shell.
 *
 * - A stop (a cancel, a shutdown, the timeout) sends SIGTERM to the group, then SIGKILL after the
 *   grace period if the group has not exited. The first reason given is the one reported; a stop
 *   that comes after the shell exited changes nothing about how it ended.
 * - `kill()` sends SIGKILL to the group at once (a worker stopping hard), even during a grace period.
 * - When the shell exits, whatever it left running in its group is killed: no process outlives
 *   its job, and none holds the output pipes open (a background process would otherwise keep the
 *   job running until its timeout).
 * - A process that left the group (`setsid`) is not reached by a signal to the group. Given the
 *   job's id and no container (below), the runner finds such processes by the `SPOOL_JOB_ID` in their environment
 *   (jobProcesses.ts) and signals them with the group: SIGTERM at a stop, SIGKILL at a kill and
 *   when the shell exits, until none is left. Without /proc (not Linux) they are not found, and
 *   only the group is stopped.
 * - Such a process may still hold the pipes: they get a short while to close, then are closed
 *   from this side, so the run ends anyway.
 * - Given a container (the daemon's cgroup per job, daemon/executors/cgroups.ts), the shell first
 *   moves itself into it, then runs the command in the same shell: everything the command starts is born there,
 *   whatever its group, session or environment, and every stop and the end of the run reach it.
 * - Resource limits, when given, are set on the shell by `prlimit` (util-linux), which sets them
 *   on itself and then executes the shell: the shell keeps prlimit's pid, so the group is the
 *   same, and every process the command starts inherits the limits.
 */
import { spawn } from 'node:child_process';
import type { ResourceLimits } from '../protocol/types';
import { findJobProcessesAsync, signalJobProcesses, waitUntilGone } from './jobProcesses';

/** After the shell exits, how long its pipes may stay open (held by a process that left the group). */
export const PIPE_CLOSE_WAIT_MS = 2000;

/** The reason a run reports when its own timeout stopped it. */
export type TimeoutReason = 'timeout';

export interface ProcessGroupOptions {
  /** Run with `/bin/sh -c`. */
  command: string;
  /** The environment, whole (the caller adds `process.env` if the command should have it). */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to the command's stdin, which is then closed; without it, stdin is /dev/null. */
  stdin?: string;
  /** The command is stopped (reason `timeout`) if it is still running after this long. */
  timeoutMs: number;
  /** After SIGTERM, how long the group has before SIGKILL. */
  killGraceMs: number;
  /** A chunk of the command's stdout or stderr, as it arrives. */
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /**
   * Something went wrong on the way that the caller should tell whoever looks at the job: a
   * signal that could not be sent (other than to a group already gone), a payload that could not
   * be written to stdin (other than to a command that closed it: that is its right).
   */
  onProblem?: (message: string) => void;
  /**
   * The job's id, which the command's environment carries as SPOOL_JOB_ID: processes that left
   * the group are found by it and stopped with the group.
   */
  jobId?: string;
  /** Limits set on the shell (and so on everything it starts) with `prlimit`; none when absent or empty. */
  limits?: ResourceLimits;
  /** Override of PIPE_CLOSE_WAIT_MS (tests). */
  pipeCloseWaitMs?: number;
  /** Where the shell puts itself (and so every process the command starts) before the command runs. */
  container?: JobContainer;
  /** How the shell is started (default spawnHere: from this process). */
  spawner?: Spawner;
}

/** A container no process can leave (a cgroup), holding one run's processes. */
export interface JobContainer {
  /** The file the shell writes its pid to, to move itself in (`cgroup.procs`). */
  readonly procsFile: string;
  /** Sends `signal` to every process in it. */
  signal(signal: NodeJS.Signals): void;
  /** Kills whatever is still in it and removes it. */
  close(): Promise<void>;
}

/** How a run ended. */
export interface ProcessGroupExit<R extends string> {
  /** The shell's exit code; null when a signal ended it or it never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it was stopped before it exited (the first reason given), or null if it ended by itself. */
  stoppedFor: R | TimeoutReason | null;
  /** Set when `/bin/sh` could not be started at all. */
  spawnError: Error | null;
}

/** A command running in its own process group. */
export interface ProcessGroupRun<R extends string> {
  /** The shell's pid, which is also the group's id; undefined if it could not be started. */
  readonly pid: number | undefined;
  /** Settles once the shell has exited, its group was killed and its output pipes are closed. */
  readonly done: Promise<ProcessGroupExit<R>>;
  /** SIGTERM to the group, SIGKILL after the grace period. No effect once the shell has exited. */
  stop(reason: R): void;
  /** SIGKILL to the group now. */
  kill(): void;
  /**
   * SIGSTOP to the group (and the processes that left it): every process stops where it is, and
   * the timeout's clock stops with them. No effect once the shell has exited or while paused.
   */
  pause(): void;
  /** SIGCONT to the group: the processes go on, and the timeout counts what was left of it. */
  resume(): void;
}

/** What starting the command's process takes: a program, its arguments and its surroundings. */
export interface SpawnRequest {
  file: string;
  args: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Written to its stdin, which is then closed; without it, stdin is /dev/null. */
  stdin?: string;
}

/**
 * What a started process tells, in this order: `spawned` (or `error`, and nothing after it),
 * `output` chunks, `exit`, then `close` once its output pipes are closed.
 */
export interface SpawnEvents {
  spawned(pid: number): void;
  output(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** It could not be started; nothing follows. */
  error(error: Error): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  close(): void;
  /** Something to tell whoever looks at the job (the payload could not be written to stdin). */
  problem(message: string): void;
}

/** A process started by a Spawner. */
export interface SpawnedProcess {
  /** Closes its output pipes from this side (a process that left the group may hold them open). */
  closePipes(): void;
}

/**
 * Starts a process in a process group of its own (its pid is the group's id), with its stdout and
 * stderr piped back. `spawnHere` starts it from this process; the daemon's launcher
 * (daemon/executors/launcher.ts) from a small process of its own, which is cheaper to fork.
 */
export type Spawner = (request: SpawnRequest, events: SpawnEvents) => SpawnedProcess;

/** Starts the process from this process (Node forks it, then the child executes `file`). */
export const spawnHere: Spawner = (request, events) => {
  const child = spawn(request.file, request.args, {
    cwd: request.cwd,
    env: request.env,
    // Its own process group, so that a signal to -pid reaches everything the command started.
    detached: true,
    stdio: [request.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const { stdout, stderr } = child;
  // Both are pipes (stdio above); the types cannot tell, as stdin's kind is chosen at run time.
  if (stdout === null || stderr === null) throw new Error('The command was started without its output pipes.');
  let ended = false;
  child.once('error', (error) => {
    if (ended) return;
    ended = true;
    events.error(error);
  });
  child.once('exit', (code, signal) => {
    if (ended) return;
    ended = true;
    events.exit(code, signal);
  });
  // 'close' comes once the process has exited and its pipes are closed; listen from the start,
  // since it can come right after 'exit'.
  child.once('close', () => events.close());
  stdout.on('data', (chunk: Buffer) => events.output('stdout', chunk));
  stderr.on('data', (chunk: Buffer) => events.output('stderr', chunk));
  if (child.stdin) {
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      // A command that does not read its stdin closes the pipe early; that is its right.
      if (error.code !== 'EPIPE') events.problem(`Cannot write the payload to the command's stdin: ${error.message}`);
    });
    child.stdin.end(request.stdin);
  }
  if (child.pid !== undefined) events.spawned(child.pid);
  return {
    closePipes: () => {
      stdout.destroy();
      stderr.destroy();
    },
  };
};

/** Starts `command` in a process group of its own. See the module comment for how it is stopped. */
export function runProcessGroup<R extends string>(options: ProcessGroupOptions): ProcessGroupRun<R> {
  // With a container, the shell first moves itself in (its pid is the group's), then runs the
  // command: nothing the command runs exists outside the container. If the move fails, the
  // command does not run. The command follows on the same line, in the same shell, rather than
  // in a second shell it executes: the command still runs as `/bin/sh -c command` would ($0,
  // no arguments, line 1, its last command executed in place), and a `true` job starts one
  // program instead of two, a third of the CPU a short job's processes take.
  const shell =
    options.container === undefined
      ? ['/bin/sh', '-c', options.command]
      : ['/bin/sh', '-c', `echo $$ > ${shellQuote(options.container.procsFile)} || exit 125; ${options.command}`];
  const limits = options.limits === undefined ? [] : prlimitArguments(options.limits);
  const [file, ...args] = limits.length > 0 ? [PRLIMIT, ...limits, '--', ...shell] : shell;
  // Known once the process has started (at once when this process starts it, a moment later when
  // the daemon's launcher does): a stop or pause asked before then is sent when it is known.
  let pid: number | undefined;
  // A container holds every process the command starts, whatever its group or session: its
  // signal and close reach them all, and the search of /proc by SPOOL_JOB_ID (two reads of every
  // process's environment per run, most of the daemon's time on a `true` job) finds nothing more.
  const escapeesJobId = options.container === undefined ? options.jobId : undefined;
  let stoppedFor: R | TimeoutReason | null = null;
  let exited = false;
  let killed = false;
  let killTimer: NodeJS.Timeout | null = null;
  // The timeout's clock: what is left of it, and since when it runs (null while paused).
  let timeoutLeft = options.timeoutMs;
  let timeoutFrom = Date.now();
  let pausedAt: number | null = null;
  let timeout: NodeJS.Timeout | undefined;

  const signalGroup = (signal: NodeJS.Signals): void => {
    // Before the process has started only its container (if any) can be told; the group is told on start.
    if (pid !== undefined) {
      const error = sendToGroup(pid, signal);
      if (error !== null) options.onProblem?.(`Could not send ${signal} to process group ${pid}: ${error.message}`);
    }
    // The search reads /proc without blocking; a process it misses now is found by the sweep at exit.
    if (escapeesJobId !== undefined) void signalEscapees(escapeesJobId, signal);
    options.container?.signal(signal);
  };
  const kill = (): void => {
    killed = true;
    signalGroup('SIGKILL');
  };
  const stop = (reason: R | TimeoutReason): void => {
    if (exited) return;
    stoppedFor ??= reason;
    // Already on its way out: a second SIGTERM would not hasten it, and must not restart the grace.
    if (killed || killTimer !== null) return;
    signalGroup('SIGTERM');
    // A stopped process only acts on SIGTERM once it runs again.
    if (pausedAt !== null) {
      pausedAt = null;
      signalGroup('SIGCONT');
    }
    killTimer = setTimeout(kill, options.killGraceMs);
  };
  const pause = (): void => {
    if (exited || pausedAt !== null || killTimer !== null || killed) return;
    pausedAt = Date.now();
    clearTimeout(timeout);
    timeoutLeft = Math.max(0, timeoutLeft - (pausedAt - timeoutFrom));
    signalGroup('SIGSTOP');
  };
  const resume = (): void => {
    if (exited || pausedAt === null) return;
    pausedAt = null;
    signalGroup('SIGCONT');
    timeoutFrom = Date.now();
    timeout = setTimeout(() => stop('timeout'), timeoutLeft);
  };
  /** The group is known now: what was asked of it before is sent to it. */
  const started = (startedPid: number): void => {
    pid = startedPid;
    const asked: NodeJS.Signals | null = killed ? 'SIGKILL' : killTimer !== null ? 'SIGTERM' : pausedAt !== null ? 'SIGSTOP' : null;
    if (asked === null) return;
    const error = sendToGroup(startedPid, asked);
    if (error !== null) options.onProblem?.(`Could not send ${asked} to process group ${startedPid}: ${error.message}`);
  };

  let pipesClosed!: () => void;
  const closed = new Promise<void>((resolve) => (pipesClosed = resolve));
  let ended!: (exit: { code: number | null; signal: NodeJS.Signals | null; spawnError: Error | null }) => void;
  const end = new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError: Error | null }>((resolve) => (ended = resolve));
  const spawner = options.spawner ?? spawnHere;
  const child = spawner(
    { file, args, env: options.env, ...(options.cwd === undefined ? {} : { cwd: options.cwd }), ...(options.stdin === undefined ? {} : { stdin: options.stdin }) },
    {
      spawned: started,
      output: (stream, chunk) => options.onOutput(stream, chunk),
      error: (error) => ended({ code: null, signal: null, spawnError: error }),
      exit: (code, signal) => ended({ code, signal, spawnError: null }),
      close: () => pipesClosed(),
      problem: (message) => options.onProblem?.(message),
    },
  );
  timeout = setTimeout(() => stop('timeout'), options.timeoutMs);

  const done = end.then(async (exit) => {
    exited = true;
    clearTimeout(timeout);
    // Whatever the shell started and left behind in its group goes with it.
    kill();
    if (killTimer !== null) clearTimeout(killTimer);
    await options.container?.close();
    if (exit.spawnError === null && escapeesJobId !== undefined) await killEscapees(escapeesJobId);
    if (exit.spawnError === null) await waitForPipes(closed, options.pipeCloseWaitMs ?? PIPE_CLOSE_WAIT_MS, child);
    return { ...exit, stoppedFor };
  });

  return {
    get pid() {
      return pid;
    },
    done,
    stop,
    kill,
    pause,
    resume,
  };
}

/** `text` as one word of /bin/sh, in single quotes. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The program that applies resource limits, for messages when it cannot be started. */
export const PRLIMIT = 'prlimit';

/**
 * `prlimit` options for `limits`, soft and hard limit alike (a command cannot raise them back),
 * except CPU time: its hard limit is a second past the soft one, so the command gets SIGXCPU
 * first, which tells the CPU limit apart from any other SIGKILL.
 */
export function prlimitArguments(limits: ResourceLimits): string[] {
  const args: string[] = [];
  if (limits.memoryBytes !== undefined) args.push(`--as=${limits.memoryBytes}`);
  if (limits.cpuSeconds !== undefined) args.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`);
  if (limits.openFiles !== undefined) args.push(`--nofile=${limits.openFiles}`);
  if (limits.processes !== undefined) args.push(`--nproc=${limits.processes}`);
  return args;
}

/**
 * Sends `signal` to process group `pgid`. Returns null when it was sent or the group is already
 * gone (ESRCH: what a stop wanted anyway), else the error.
 */
export function sendToGroup(pgid: number, signal: NodeJS.Signals): Error | null {
  try {
    process.kill(-pgid, signal);
    return null;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ESRCH') return null;
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Sends `signal` to the processes of job `jobId` (by their environment), wherever their group. */
async function signalEscapees(jobId: string, signal: NodeJS.Signals): Promise<void> {
  signalJobProcesses(await findJobProcessesAsync(new Set([jobId])), signal);
}

/** How many times the sweep at exit looks again: an escapee may have started another before it died. */
const SWEEP_ROUNDS = 5;
/** How long each round waits for the kernel to remove what it killed. */
const SWEEP_WAIT_MS = 2000;

/** SIGKILLs the processes of job `jobId` (by their environment) until none is left. */
async function killEscapees(jobId: string): Promise<void> {
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const found = await findJobProcessesAsync(new Set([jobId]));
    if (found.length === 0) return;
    signalJobProcesses(found, 'SIGKILL');
    await waitUntilGone(found, SWEEP_WAIT_MS);
  }
}

/** Waits for the pipes to close; a process that escaped the group (setsid) may hold them open. */
async function waitForPipes(closed: Promise<void>, waitMs: number, child: SpawnedProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), waitMs)));
  const late = await Promise.race([closed.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) child.closePipes();
}
