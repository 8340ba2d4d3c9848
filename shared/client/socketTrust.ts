/**
 * Whether the socket at a path may be trusted to be the user's own daemon before anything (a
 * job's payload, a secret in it) is sent there. Anyone who can create a file where the socket is
 * expected can listen there and receive what clients send, so:
 *
 * - the socket must belong to the caller's user: a socket another user created is refused;
 * - its folder must not let other users replace it: a folder writable by others is refused
 *   unless it has the sticky bit (like /tmp), where only a file's owner may remove or rename it.
 *
 * The check is on the file (`stat`), not on the process at the other end: the kernel would
 * tell who that is (SO_PEERCRED), but Node offers no way to ask without a native module. In a
 * folder only the user can write, or a sticky one, nobody else can swap the file between this
 * check and the connect, so the owner of the file is the owner of the listener.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SpoolError } from '../protocol/errors';
import { ErrorCode } from '../protocol';

const STICKY = 0o1000;

/** A user's name from /etc/passwd, for the message; the uid alone when it is not found there. */
export function userName(uid: number): string {
  try {
    const line = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.split(':')[2] === String(uid));
    const name = line?.split(':')[0];
    return name ? `${name} (uid ${uid})` : `uid ${uid}`;
  } catch {
    return `uid ${uid}`;
  }
}

export function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/**
 * Why a folder lets other users replace a socket in it, or null when it does not: writable by
 * group or others without the sticky bit.
 */
export function folderOpenToOthers(dir: string): string | null {
  const stat = fs.statSync(dir);
  if ((stat.mode & 0o022) === 0 || (stat.mode & STICKY) !== 0) return null;
  return `its folder ${dir} is writable by other users (mode ${octalMode(stat.mode)}) without the sticky bit, so anyone could put their own socket there`;
}

/**
 * Throws a SpoolError (Forbidden, naming the path, its owner and what to do) when the socket at
 * `socketPath` belongs to another user or sits in a folder others can write. A missing path
 * passes: connecting then reports that no daemon runs there. Skipped where there are no uids
 * (Windows).
 */
export function checkSocketTrust(socketPath: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let stat: fs.Stats;
  let real: string;
  try {
    // A link is followed: what counts is the socket a connection would reach.
    real = fs.realpathSync(socketPath);
    stat = fs.statSync(real);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return;
    throw error;
  }
  if (stat.uid !== uid) {
    throw new SpoolError(
      ErrorCode.Forbidden,
      `Refusing to talk to the socket ${socketPath}: it belongs to ${userName(stat.uid)}, not to you (${userName(uid)}), so what listens there ` +
        'may not be your Spool daemon and could read what you send. If it is stale and yours to remove, remove it; otherwise use a socket ' +
        'in a folder only you can write (--socket or SPOOL_SOCKET; the default is $XDG_RUNTIME_DIR/spool/spool.sock).',
      { field: 'socket' },
    );
  }
  const openFolder = folderOpenToOthers(path.dirname(real));
  if (openFolder !== null) {
    throw new SpoolError(
      ErrorCode.Forbidden,
      `Refusing to talk to the socket ${socketPath}: ${openFolder}. Make the folder yours alone (chmod 700 ${path.dirname(real)}) or use a socket ` +
        'in a folder only you can write (--socket or SPOOL_SOCKET).',
      { field: 'socket' },
    );
  }
}
