/**
 * Whether a process is still there, for whoever waits for one to stop (`spool daemon stop`, the
 * daemon-control functions) or decides that a recorded one is dead (a daemon's start-up).
 */
import * as fs from 'node:fs';

/**
 * Whether the process `pid` exists and has not exited: one owned by another user counts, a
 * zombie does not (it has exited; its parent just has not reaped it yet — a detached daemon's
 * parent is gone, and until something reaps it, its exit leaves one).
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch (error) {
    // Gone since the signal, on Linux; elsewhere there is no /proc to tell a zombie by.
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return process.platform !== 'linux';
    throw error;
  }
}
