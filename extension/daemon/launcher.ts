/**
 * Starts the daemon bundled in the extension (`dist/daemon.js --detach`) with the Node on PATH
 * or `spool.nodePath`. The daemon itself is a separate process that outlives the window, so one
 * daemon serves every window; the extension host never loads SQLite. Its arguments are written
 * from the daemon's flag table (shared/client/daemonFlags.ts), like those of `spool daemon --detach`.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { DETACH_FLAG, optionsToArgs } from '../../shared/client/daemonFlags';
import type { SpoolSettings } from '../settings';

export interface LaunchResult {
  /** What the launcher printed, for the log. */
  output: string;
}

/**
 * The arguments of the daemon program the extension starts: the socket and the database of the
 * settings (an empty database setting leaves the daemon's default), the rest the daemon's defaults.
 */
export function launchArgs(script: string, settings: Pick<SpoolSettings, 'socketPath' | 'databasePath'>): string[] {
  return [script, DETACH_FLAG.flag, ...optionsToArgs({ socketPath: settings.socketPath, ...(settings.databasePath === '' ? {} : { dbPath: settings.databasePath }) })];
}

/**
 * Runs `node dist/daemon.js --detach --socket S [--db D]` and resolves once that command has
 * returned successfully (the daemon answers by then) or `answered()` reports the socket
 * answers. Rejects with the launcher's own output when it fails, so the user sees why.
 */
export function launchDaemon(
  extensionPath: string,
  settings: SpoolSettings,
  answered: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<LaunchResult> {
  const args = launchArgs(path.join(extensionPath, 'dist', 'daemon.js'), settings);
  return new Promise((resolve, reject) => {
    let output = '';
    let settled = false;
    const child = spawn(settings.nodePath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(timer);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.unref();
      if (error) reject(error);
      else resolve({ output });
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      const hint = error.code === 'ENOENT' ? ` Install Node.js 20 or newer, or set "spool.nodePath" to its full path.` : '';
      finish(new Error(`Could not run "${settings.nodePath}": ${error.message}.${hint}`));
    });
    child.once('exit', (code, signal) => {
      if (code === 0) finish();
      else finish(new Error(`The daemon did not start (${signal ?? `exit code ${code}`}): ${output.trim() || 'no output'}`));
    });
    // If this daemon build stays in the foreground despite --detach, the socket answering is
    // what counts; the child then lives on by itself.
    const poll = setInterval(() => {
      void answered().then((ok) => {
        if (ok) finish();
      });
    }, 200);
    const timer = setTimeout(
      () => finish(new Error(`The daemon did not answer at ${settings.socketPath} within ${timeoutMs / 1000} s. ${output.trim()}`)),
      timeoutMs,
    );
  });
}
