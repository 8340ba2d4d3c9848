/**
 * Runs the built `spool` command (bin/spool → dist/cli.js) as a real process against a test
 * daemon, for the cli-*, worker-* and examples-* tests. `npm test` builds dist/ first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SPOOL_BIN = path.join(ROOT, 'bin', 'spool');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  socketPath: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kill it if it has not exited by then. Default 60 s (a shared, busy machine). */
  timeoutMs?: number;
}

/** The environment a CLI process gets: no colours unless a test asks, the test daemon's socket. */
export function cliEnv(socketPath: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.FORCE_COLOR;
  delete base.NO_COLOR;
  return { ...base, SPOOL_SOCKET: socketPath, ...extra };
}

/** Runs `spool <args>` to the end and returns its exit code and output. */
export function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  const child = startCli(args, options);
  const timer = setTimeout(() => child.process.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return child.exited.then((result) => {
    clearTimeout(timer);
    return result;
  });
}

export interface RunningCli {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<CliResult>;
}

/** Starts `spool <args>` and returns at once, for commands that keep running (logs -f, work, stats --watch). */
export function startCli(args: string[], options: RunOptions): RunningCli {
  const proc = spawn(process.execPath, [SPOOL_BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: cliEnv(options.socketPath, options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  proc.stdin.end(options.input ?? '');
  const exited = new Promise<CliResult>((resolve) => proc.once('close', (code) => resolve({ code, stdout, stderr })));
  return { process: proc, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Stops a still-running CLI process at the end of a test. */
export async function stopCli(cli: RunningCli): Promise<void> {
  if (cli.process.exitCode !== null || cli.process.signalCode !== null) return;
  cli.process.kill('SIGKILL');
  await cli.exited;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Parses a command's JSON output as the protocol type it prints (the `--json` forms print the
 * daemon's result unchanged); the tests then assert the fields they rely on.
 */
export function parseJson<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`Expected JSON output, got: ${text.slice(0, 500)} (${String(error)})`);
  }
}
