/**
 * Makes sure the daemon may take its socket path. The folder is created owner-only (0700). If a
 * socket file is already there, the daemon asks it `daemon.status`: an answer means another
 * daemon holds the path, and this one refuses to start, naming that daemon's pid; no answer
 * (connection refused) means a daemon died without cleaning up, and the stale file is removed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DaemonNotRunningError, SpoolClient } from '../../shared/client/client';
import { folderOpenToOthers } from '../../shared/client/socketTrust';
import { SpoolError } from '../../shared/protocol/errors';
import { defaultSocketPath, type Env } from '../../shared/client/paths';
import { ErrorCode } from '../../shared/protocol';

export class SocketInUseError extends SpoolError {
  constructor(
    readonly socketPath: string,
    readonly pid: number | null,
  ) {
    super(
      ErrorCode.Forbidden,
      `Another Spool daemon${pid === null ? '' : ` (pid ${pid})`} is already listening on ${socketPath}. ` +
        'Stop it with `spool daemon stop`, or start this one with another --socket.',
    );
  }
}

/** sun_path is 108 bytes on Linux, including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * The folders Spool puts its socket in when no --socket or SPOOL_SOCKET names one:
 * `$XDG_RUNTIME_DIR/spool` and `~/.spool`. They hold nothing but Spool's socket.
 */
function defaultSocketFolders(env: Env): string[] {
  const { SPOOL_SOCKET: _ignored, ...rest } = env;
  return [path.dirname(defaultSocketPath(rest)), path.dirname(defaultSocketPath({ ...rest, XDG_RUNTIME_DIR: undefined }))];
}

/**
 * Checks the path fits a Unix socket address and creates its folder owner-only (0700). One of
 * Spool's own default folders that exists with wider permissions (made by an older version, or
 * by hand) is made owner-only again; returns a note saying so, for the log. A folder the user
 * named is left as it is: it may be shared (/tmp, a project folder), and the socket's own mode
 * (0600) already keeps other users from connecting; but one that others can write without the
 * sticky bit is refused, since anyone could replace the socket there.
 */
export function prepareSocketFolder(socketPath: string, env: Env = process.env): string | null {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new SpoolError(
      ErrorCode.InvalidParams,
      `The socket path ${socketPath} is ${bytes} bytes long; Unix sockets allow ${MAX_SOCKET_PATH_BYTES}. Pick a shorter --socket (or SPOOL_SOCKET).`,
      { field: 'socket', limit: MAX_SOCKET_PATH_BYTES },
    );
  }
  const dir = path.dirname(socketPath);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return null;
  }
  if (!defaultSocketFolders(env).includes(dir)) {
    // Clients refuse a socket others could replace (shared/client/socketTrust.ts): a daemon
    // listening there would be unreachable, and impersonable.
    const openFolder = folderOpenToOthers(dir);
    if (openFolder !== null) {
      throw new SpoolError(
        ErrorCode.Forbidden,
        `Cannot listen on ${socketPath}: ${openFolder}. Pick a --socket in a folder only you can write, or make this one yours alone (chmod 700 ${dir}).`,
        { field: 'socket' },
      );
    }
    return null;
  }
  // A link (~/.spool pointing elsewhere) is the user's arrangement: its target is left alone.
  const stat = fs.lstatSync(dir);
  const mode = stat.mode & 0o777;
  if (!stat.isDirectory() || (mode & 0o077) === 0 || stat.uid !== process.getuid?.()) return null;
  fs.chmodSync(dir, 0o700);
  return `Made the socket folder ${dir} owner-only (0700); it was ${mode.toString(8).padStart(4, '0')}.`;
}

/** Throws SocketInUseError if a live daemon answers at the path; removes a stale socket file. */
export async function claimSocketPath(socketPath: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return;
    throw error;
  }
  if (!stat.isSocket()) {
    throw new SpoolError(ErrorCode.Forbidden, `${socketPath} exists and is not a socket. Remove it or pick another --socket.`);
  }
  const holder = await askStatus(socketPath);
  if (holder.answered) throw new SocketInUseError(socketPath, holder.pid);
  fs.rmSync(socketPath, { force: true });
}

/** Whether a daemon answers at the path, and its pid. */
export async function askStatus(socketPath: string, timeoutMs = 3000): Promise<{ answered: boolean; pid: number | null }> {
  let client: SpoolClient;
  try {
    client = await SpoolClient.connect({ socketPath, connectTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs });
  } catch (error) {
    // Refused or missing: nobody is there. Anything else (a permission error) is a real problem.
    if (error instanceof DaemonNotRunningError) return { answered: false, pid: null };
    throw error;
  }
  try {
    const status = await client.call('daemon.status');
    return { answered: true, pid: status.pid };
  } catch {
    // Something accepted the connection but did not answer like a Spool daemon: the path is
    // taken all the same.
    return { answered: true, pid: null };
  } finally {
    client.close();
  }
}
