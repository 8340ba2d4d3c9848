/**
 * Starting and controlling the daemon program (dist/daemon.js) from the outside: what `spool
 * daemon`, `spoold --detach`, the benchmarks and the tests do. Nothing here loads the daemon's
 * code; a daemon is always another process, reached through its socket.
 *
 * - `runDaemonProgram` runs one in the foreground, as a child with this process's standard
 *   streams, forwarding the signals that stop it, and resolves with how it ended.
 * - `startDetached` starts one in the background (its stderr goes to the log file beside the
 *   database) and returns once it answers `daemon.status`.
 * - `stopDaemon` asks a running one to shut down gracefully and waits until it has.
 * - `daemonStatus` asks one for its status, or says nobody answers.
 * - `databaseFileProblem` asks the daemon program whether a SQLite file is a whole Spool
 *   database (`spool restore` checks the copy before it replaces a database).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConnectionLostError, DaemonNotRunningError, SpoolClient } from './client';
import { optionsToArgs } from './daemonFlags';
import { optionsToEnv, type DaemonOptions } from './daemonOptions';
import { SpoolError, errorMessage } from '../protocol/errors';
import { defaultLogPath } from './paths';
import { openOwnLog } from './fileTrust';
import { ErrorCode, type DaemonStatus } from '../protocol';
import { processExists } from './processes';

/** The daemon bundle: dist/daemon.js, next to whichever bundle (cli.js, daemon.js, bench.js) runs this. */
export function daemonScriptPath(): string {
  const beside = path.join(__dirname, 'daemon.js');
  // Run from source (tests through tsx), this module sits in shared/client/: use the build.
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '..', '..', 'dist', 'daemon.js');
}

/**
 * Node flags for a daemon process. Half V8's default young generation (16 MiB per semi-space)
 * keeps the resident size of a busy daemon under 150 MB, measured at no CPU cost; smaller
 * (2–4 MiB) saved more memory but cost 10–25% more CPU per request in garbage collection.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * The hidden flag `spool daemon` passes to a daemon it runs in the foreground. With it the daemon
 * reports a failure to start over the IPC channel (the CLI prints it as its own error) and stops
 * gracefully when that channel closes: the CLI was killed and can no longer forward signals.
 */
export const CLI_FOREGROUND_FLAG = '--cli-foreground';

/** What a daemon started with `CLI_FOREGROUND_FLAG` sends its parent over the IPC channel. */
export interface DaemonProgramMessage {
  type: 'failed';
  /** Why it could not start or run, in the words the CLI prints. */
  message: string;
}

/** Whether a value received over the IPC channel is a `DaemonProgramMessage`. */
export function isDaemonProgramMessage(value: unknown): value is DaemonProgramMessage {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'failed' && 'message' in value && typeof value.message === 'string';
}

/** How a daemon run by `runDaemonProgram` ended. */
export interface DaemonProgramExit {
  /** Its exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The failure it reported before exiting, if any. */
  failure: string | null;
}

/** The signals a user or a supervisor sends to stop a foreground daemon; they are passed on to it. */
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the daemon program in the foreground: a child of this process that writes its log to this
 * process's standard error. SIGINT, SIGTERM and SIGHUP sent to this process are passed on, so a
 * Ctrl-C or a supervisor's stop reaches it as if it ran here. Resolves once it has exited; rejects
 * only when it could not be started at all.
 */
export function runDaemonProgram(options: DaemonOptions): Promise<DaemonProgramExit> {
  return new Promise((resolve, reject) => {
    const script = daemonScriptPath();
    const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, script, ...optionsToArgs(options), CLI_FOREGROUND_FLAG], {
      // A process group of its own: a Ctrl-C in a terminal signals the whole foreground group,
      // and the daemon would get it twice (once from the terminal, once passed on from here).
      detached: true,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, ...optionsToEnv(options) },
    });
    let failure: string | null = null;
    child.on('message', (message: unknown) => {
      if (isDaemonProgramMessage(message)) failure = message.message;
    });
    const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const done = (): void => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
    };
    child.once('error', (error) => {
      done();
      reject(new SpoolError(ErrorCode.InternalError, `Could not start the daemon (${script}): ${error.message}`));
    });
    // 'close' rather than 'exit': it comes after the IPC channel has delivered every message.
    child.once('close', (code, signal) => {
      done();
      resolve({ code, signal, failure });
    });
  });
}

export interface DetachedDaemon {
  pid: number;
  socketPath: string;
  /** The database of the daemon that answers (an already running one may use another). */
  dbPath: string;
  /** Where it logs; null for a running daemon that does not log to its database's log file (started in the foreground). */
  logPath: string | null;
  /** False when a daemon was already running at the socket (its pid is returned). */
  started: boolean;
}

/**
 * Starts a daemon in the background and waits until it answers. If one already answers at the
 * socket, returns it with `started: false`. If the new one exits or does not answer within
 * `timeoutMs`, fails with the end of its log. The default allows for the kill grace period, which
 * a start may spend stopping the processes a killed daemon's shell jobs left behind.
 */
export async function startDetached(options: DaemonOptions, timeoutMs = 15_000 + options.killGraceMs): Promise<DetachedDaemon> {
  /** A daemon that was already there (or won a start-up race): its own database and log. */
  const running = (status: DaemonStatus): DetachedDaemon => ({
    pid: status.pid,
    socketPath: options.socketPath,
    dbPath: status.dbPath,
    logPath: status.logPath,
    started: false,
  });
  const existing = await daemonStatus(options.socketPath);
  if (existing) return running(existing);
  const logPath = defaultLogPath(options.dbPath);

  fs.mkdirSync(path.dirname(logPath), { recursive: true, mode: 0o700 });
  const log = openOwnLog(logPath, 'the daemon log');
  // The log is appended to by every start: only what this start wrote explains its failure.
  const logStart = fs.fstatSync(log).size;
  const state: { exited: { code: number | null; signal: NodeJS.Signals | null } | null } = { exited: null };
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, daemonScriptPath(), ...optionsToArgs(options)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, ...optionsToEnv(options) },
  });
  fs.closeSync(log);
  child.once('exit', (code, signal) => (state.exited = { code, signal }));
  const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new SpoolError(ErrorCode.InternalError, `Could not start the daemon: ${(await spawnFailed).message}`);

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await daemonStatus(options.socketPath);
    if (status) return status.pid === pid ? { pid, socketPath: options.socketPath, dbPath: status.dbPath, logPath, started: true } : running(status);
    if (state.exited !== null) {
      const { code, signal } = state.exited;
      const written = logSince(logPath, logStart);
      // The reason leads: the CLI prints an error's first line only.
      throw new SpoolError(
        ErrorCode.InternalError,
        `The daemon exited during start-up (${signal ?? `exit code ${code}`}): ${startFailure(written)} Its log: ${logPath}` +
          (written.length > 0 ? `\n${written.slice(-20).join('\n')}` : ''),
      );
    }
    if (Date.now() > deadline) {
      throw new SpoolError(ErrorCode.InternalError, `The daemon (pid ${pid}) did not answer within ${timeoutMs} ms. See its log: ${logPath}`);
    }
    await delay(50);
  }
}

/** The status of the daemon at the socket, or null when nobody answers there. */
export async function daemonStatus(socketPath: string, timeoutMs = 5000): Promise<DaemonStatus | null> {
  let client: SpoolClient;
  try {
    client = await SpoolClient.connect({ socketPath, connectTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs });
  } catch (error) {
    if (error instanceof DaemonNotRunningError) return null;
    throw error;
  }
  try {
    return await client.call('daemon.status');
  } finally {
    client.close();
  }
}

/**
 * Asks the daemon at the socket to shut down gracefully and waits until its process has exited
 * (or, for a daemon on another host's pid namespace, until its socket stops answering).
 * Returns the pid it stopped, or null when no daemon was running.
 */
export async function stopDaemon(socketPath: string, timeoutMs = 30_000): Promise<{ pid: number } | null> {
  let client: SpoolClient;
  try {
    client = await SpoolClient.connect({ socketPath, connectTimeoutMs: 5000, requestTimeoutMs: 5000 });
  } catch (error) {
    if (error instanceof DaemonNotRunningError) return null;
    throw error;
  }
  let pid: number;
  try {
    pid = (await client.call('daemon.status')).pid;
    try {
      await client.call('daemon.shutdown');
    } catch (error) {
      // A daemon already shutting down (for a signal, say) may close the connection before it
      // answers; it is stopping all the same, so wait for it below.
      if (!(error instanceof ConnectionLostError)) throw error;
    }
  } finally {
    client.close();
  }
  const deadline = Date.now() + timeoutMs;
  while (processExists(pid) || (await daemonStatus(socketPath, 1000)) !== null) {
    if (Date.now() > deadline) {
      throw new SpoolError(
        ErrorCode.InternalError,
        `The daemon (pid ${pid}) is still running ${timeoutMs / 1000} s after it was asked to stop; its jobs may still be finishing. ` +
          `Wait, or end it with \`kill ${pid}\`.`,
      );
    }
    await delay(50);
  }
  return { pid };
}

/** The lines written to the log from byte `start` on (one start's), or why they could not be read. */
function logSince(logPath: string, start: number): string[] {
  try {
    const text = fs.readFileSync(logPath).subarray(start).toString('utf8').trimEnd();
    return text === '' ? [] : text.split('\n');
  } catch (error) {
    return [`(could not read the log: ${errorMessage(error)})`];
  }
}

/**
 * Why a start failed, from what it logged: spoold's last words (`spoold: <reason>`, how it reports
 * a failure), else its last line.
 */
function startFailure(lines: readonly string[]): string {
  const last = [...lines].reverse();
  const said = last.find((line) => line.startsWith('spoold: '));
  const reason = said?.slice('spoold: '.length) ?? last.find((line) => line.trim() !== '')?.trim();
  if (reason === undefined) return 'it wrote nothing to its log.';
  return /[.!?)]$/.test(reason) ? reason : `${reason}.`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Why `file` is not a whole Spool database (SQLite's integrity check, then its schema), or null
 * when it is one. The daemon program does the check (`spoold check-database FILE`): it carries the
 * SQLite driver, which the CLI does not load.
 */
export function databaseFileProblem(file: string): string | null {
  const run = spawnSync(process.execPath, [daemonScriptPath(), 'check-database', file], { encoding: 'utf8', timeout: 10 * 60_000 });
  if (run.status === 0) return null;
  if (run.status === 1 && run.stdout.trim() !== '') return run.stdout.trim();
  const why = run.error?.message ?? (run.stderr.trim() || `exit ${run.status ?? run.signal}`);
  throw new SpoolError(ErrorCode.InternalError, `Could not check ${file} with the daemon program (${daemonScriptPath()}): ${why}`);
}
