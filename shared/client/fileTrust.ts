/**
 * Whether a file or folder the daemon is about to use (its database and the -wal and -shm beside
 * it, its log, its TLS certificate and key and their folder) may be trusted: it must belong to the
 * user the daemon runs as, and no other user may write it. A database another user owns holds
 * their jobs, which would run as this user; a log or a -wal another user owns is readable by them;
 * a certificate another user planted is the one clients would pin. So such a file is refused,
 * naming it and why, and never taken over, tightened or appended to (root included: root must
 * not silently run another user's jobs either).
 *
 * The socket has the same rule, seen from the client (socketTrust.ts). The log is checked by
 * whoever opens it: `spool daemon --detach` (openOwnLog) and the daemon at start.
 */
import * as fs from 'node:fs';
import { SpoolError } from '../protocol/errors';
import { ErrorCode } from '../protocol';
import { octalMode, userName } from './socketTrust';

/**
 * Why `stat` (of a file or folder) is not the daemon user's own, or null when it is: it belongs
 * to another user, or group or others may write it.
 */
export function notOwnReason(stat: fs.Stats, uid: number): string | null {
  if (stat.uid !== uid) return `it belongs to ${userName(stat.uid)}, not to the daemon's user ${userName(uid)}`;
  if ((stat.mode & 0o022) !== 0) return `other users may write it (mode ${octalMode(stat.mode)})`;
  return null;
}

/**
 * Throws a SpoolError (Forbidden) naming `file` as `what` ("the database", "the daemon log") when
 * it exists and is not the daemon user's own; `advice` says what to do. Follows a link: what
 * counts is the file that would be opened. Returns the file's stat, or null when it is missing.
 * Skipped (returns null) where there are no uids (Windows).
 */
export function checkOwnFile(file: string, what: string, advice: string, field = 'db'): fs.Stats | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
  const reason = notOwnReason(stat, uid);
  if (reason !== null) throw new SpoolError(ErrorCode.Forbidden, `Refusing ${what} ${file}: ${reason}. ${advice}`, { field });
  return stat;
}

/**
 * Opens `file` for appending, creating it 0600 if missing, and refuses (closing it again) one
 * that is not the daemon user's own: a log another user created in advance would be readable by
 * them. The check is on the opened file (fstat), so a file swapped in between cannot pass; a
 * link is not followed. Returns the file descriptor.
 */
export function openOwnLog(file: string, what: string): number {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
  } catch (error) {
    // A link (ELOOP), or another user's file in a sticky folder that the kernel will not let
    // even root open for writing (fs.protected_regular, EACCES).
    if (error instanceof Error && 'code' in error && (error.code === 'ELOOP' || error.code === 'EACCES')) checkOwnFile(file, what, LOG_ADVICE, 'log');
    throw error;
  }
  const uid = process.getuid?.();
  const reason = uid === undefined ? null : notOwnReason(fs.fstatSync(fd), uid);
  if (reason !== null) {
    fs.closeSync(fd);
    throw new SpoolError(ErrorCode.Forbidden, `Refusing ${what} ${file}: ${reason}. ${LOG_ADVICE}`, { field: 'log' });
  }
  return fd;
}

const LOG_ADVICE = 'Another user could read what the daemon logs there. Keep the database (and its log beside it) in a folder only you can write, or remove the file if it is yours to remove.';
