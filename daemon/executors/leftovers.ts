/**
 * Processes that a killed daemon's shell jobs left running.
 *
 * A daemon stopped by SIGTERM stops its jobs' process groups itself. One killed with SIGKILL (or
 * by a crash) cannot: its shell jobs' processes live on, and at the next start-up those jobs are
 * recovered and run again — twice at once, unless the old processes are stopped first. Every
 * process a shell job starts carries `SPOOL_JOB_ID` in its environment (shell.ts sets it; children
 * inherit it), so before recovering, the daemon looks through /proc for processes of this user
 * whose environment names one of the jobs it is about to recover, and stops their process groups:
 * SIGTERM, then SIGKILL for whatever is left after the grace period.
 *
 * Linux only: without /proc nothing is found and recovery goes on as before.
 */
import * as fs from 'node:fs';
import { sendToGroup } from '../../shared/client/processGroup';

export interface Leftover {
  pid: number;
  /** Its process group: the job's shell, unless the process started a group of its own. */
  pgid: number;
  jobId: string;
}

/** How often stopLeftovers looks whether the processes it signalled are gone. */
const POLL_MS = 50;
/** After SIGKILL, how long to wait for the kernel to remove them. */
const KILL_WAIT_MS = 2000;

/** The running processes whose environment says they belong to one of `jobIds`. */
export function findLeftovers(jobIds: ReadonlySet<string>): Leftover[] {
  if (jobIds.size === 0) return [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const found: Leftover[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const jobId = jobOf(pid);
    if (jobId === undefined || !jobIds.has(jobId)) continue;
    // state, ppid, pgrp, …
    const fields = statFields(pid);
    const pgid = Number(fields?.[2]);
    if (fields !== undefined && fields[0] !== 'Z' && Number.isInteger(pgid) && pgid > 0) found.push({ pid, pgid, jobId });
  }
  return found;
}

/**
 * Stops the leftovers' process groups (and each leftover itself, should it have left its group):
 * SIGTERM, up to `graceMs` for them to exit, then SIGKILL. Returns the pids that needed SIGKILL.
 */
export async function stopLeftovers(leftovers: readonly Leftover[], graceMs: number): Promise<number[]> {
  if (leftovers.length === 0) return [];
  signalAll(leftovers, 'SIGTERM');
  await waitUntilGone(leftovers, graceMs);
  const stubborn = leftovers.filter((l) => alive(l.pid));
  if (stubborn.length > 0) {
    signalAll(stubborn, 'SIGKILL');
    await waitUntilGone(stubborn, KILL_WAIT_MS);
  }
  return stubborn.map((l) => l.pid);
}

function signalAll(leftovers: readonly Leftover[], signal: NodeJS.Signals): void {
  // A group that is gone, or not ours to signal, is passed over: each process is signalled below too.
  for (const pgid of new Set(leftovers.map((l) => l.pgid))) sendToGroup(pgid, signal);
  for (const l of leftovers) sendSignal(l.pid, signal);
}

function sendSignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Gone already, or not ours to signal.
  }
}

async function waitUntilGone(leftovers: readonly Leftover[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (leftovers.some((l) => alive(l.pid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The job id in the process's environment; undefined if it has none or cannot be read. */
function jobOf(pid: number): string | undefined {
  let environ: string;
  try {
    environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    // Another user's process, or one that just exited.
    return undefined;
  }
  for (const variable of environ.split('\0')) {
    if (variable.startsWith('SPOOL_JOB_ID=')) return variable.slice('SPOOL_JOB_ID='.length);
  }
  return undefined;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Exists and is not a zombie (a zombie has exited; its parent just has not reaped it yet). */
function alive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}
