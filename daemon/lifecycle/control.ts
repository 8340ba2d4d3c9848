/**
 * Running and controlling a daemon from the outside: what `spoold` and `spool daemon` do.
 *
 * - `runDaemon` runs one in this process until SIGTERM/SIGINT or `daemon.shutdown`.
 * - `startDetached` starts one in the background (its stderr goes to the log file beside the
 *   database) and returns once it answers `daemon.status`.
 * - `stopDaemon` asks a running one to shut down gracefully and waits until it has.
 * - `daemonStatus` asks one for its status, or says nobody answers.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConnectionLostError, DaemonNotRunningError, SpoolClient } from '../../shared/client';
import { SpoolError } from '../../shared/errors';
import { defaultLogPath } from '../../shared/paths';
import { ErrorCode, type DaemonStatus } from '../../shared/protocol';
import { optionsToArgs, type DaemonOptions } from '../config';
import { Daemon } from './daemon';
import { createLogger } from './logger';

/** Runs a daemon in this process; resolves once it has shut down. Rejects if it cannot start. */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  const logger = createLogger(options.logFormat);
  // Signal handlers go in first: a client can connect (and a supervisor can signal) as soon as
  // the socket listens, before start-up has finished.
  let daemon: Daemon | null = null;
  let pendingSignal: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info('Received a signal', { signal });
    if (daemon) void daemon.shutdown(signal);
    else pendingSignal = signal;
  };
  // The daemon must outlive a bug in one request or one job: log it and keep serving.
  const onUncaught = (error: unknown): void => logger.error('Uncaught error; the daemon keeps running', { error });
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    daemon = await Daemon.start(options, logger);
    if (pendingSignal !== null) void daemon.shutdown(pendingSignal);
    await daemon.stopped;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }
}

/** The daemon bundle: dist/daemon.js, next to whichever bundle (cli.js, daemon.js, extension.js) runs this. */
export function daemonScriptPath(): string {
  const beside = path.join(__dirname, 'daemon.js');
  // Run from source (tests through tsx), this module sits in daemon/lifecycle/: use the build.
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '..', '..', 'dist', 'daemon.js');
}

/**
 * Node flags for a daemon process. Half V8's default young generation (16 MiB per semi-space)
 * keeps the resident size of a busy daemon under 150 MB, measured at no CPU cost; smaller
 * (2–4 MiB) saved more memory but cost 10–25% more CPU per request in garbage collection.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

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
  const log = fs.openSync(logPath, 'a', 0o600);
  const state: { exited: { code: number | null; signal: NodeJS.Signals | null } | null } = { exited: null };
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, daemonScriptPath(), ...optionsToArgs(options)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: process.env,
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
      throw new SpoolError(
        ErrorCode.InternalError,
        `The daemon exited during start-up (${signal ?? `exit code ${code}`}). End of its log (${logPath}):\n${logTail(logPath)}`,
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

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
  // A detached daemon's parent is gone; until something reaps it, its exit leaves a zombie,
  // which has stopped all the same.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return process.platform !== 'linux';
    throw error;
  }
}

function logTail(logPath: string, lines = 20): string {
  try {
    return fs.readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (error) {
    return `(could not read the log: ${error instanceof Error ? error.message : String(error)})`;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
