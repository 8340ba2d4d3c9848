/**
 * The processes of a job, found by the `SPOOL_JOB_ID` in their environment.
 *
 * Every process a job's command starts inherits the variable (the shell executor and `spool work`
 * set it, see jobEnv.ts), including one that left the job's process group with `setsid` — which a
 * signal to the group does not reach. Looking through /proc for that variable finds them all: the
 * process-group runner uses it to stop such escapees when a job is cancelled, times out or ends,
 * and the daemon's start-up recovery uses it to stop what a killed daemon's jobs left running.
 *
 * Linux only: without /proc nothing is found, and only the process group is stopped.
 */
import * as fs from 'node:fs';
import { JOB_ENV } from './jobEnv';

/** A running process that belongs to a job. */
export interface JobProcess {
  pid: number;
  /** Its process group: the job's shell, unless the process started a group of its own. */
  pgid: number;
  jobId: string;
}

/** How often stopJobProcesses looks whether the processes it signalled are gone. */
const POLL_MS = 50;
/** After SIGKILL, how long to wait for the kernel to remove them. */
const KILL_WAIT_MS = 2000;
const MARKER = `${JOB_ENV.id}=`;
const WORKER_MARKER = `${JOB_ENV.workerId}=`;

/** The running processes (of any user whose environment this one may read) that belong to one of `jobIds`. */
export function findJobProcesses(jobIds: ReadonlySet<string>): JobProcess[] {
  if (jobIds.size === 0) return [];
  const found: JobProcess[] = [];
  for (const pid of processIds()) {
    const process = jobProcess(pid, readOrUndefined(`/proc/${pid}/environ`), jobIds);
    if (process !== undefined) found.push(process);
  }
  return found;
}

/**
 * The running processes of jobs that the workers `workerIds` started (`SPOOL_WORKER_ID` in their
 * environment), whichever job: a daemon starting on a host finds so what the daemons that ran
 * there before it left, including jobs another daemon has since recovered and runs again under
 * its own id.
 */
export function findWorkerProcesses(workerIds: ReadonlySet<string>): JobProcess[] {
  if (workerIds.size === 0) return [];
  const found: JobProcess[] = [];
  for (const pid of processIds()) {
    const environ = readOrUndefined(`/proc/${pid}/environ`);
    const workerId = environ === undefined ? undefined : variableOf(environ, WORKER_MARKER);
    if (workerId === undefined || !workerIds.has(workerId)) continue;
    const jobId = environ === undefined ? undefined : jobOf(environ);
    const process = jobId === undefined ? undefined : jobProcess(pid, environ, new Set([jobId]));
    if (process !== undefined) found.push(process);
  }
  return found;
}

/**
 * findJobProcesses without blocking the event loop: the daemon calls it whenever a shell job
 * ends, and reading every process's environment takes a few milliseconds (6 ms for 126
 * processes, measured), which the file system's thread pool does instead.
 */
export async function findJobProcessesAsync(jobIds: ReadonlySet<string>): Promise<JobProcess[]> {
  if (jobIds.size === 0) return [];
  const pids = processIds();
  const environs = await Promise.all(pids.map((pid) => fs.promises.readFile(`/proc/${pid}/environ`, 'utf8').catch(() => undefined)));
  const found: JobProcess[] = [];
  pids.forEach((pid, i) => {
    const process = jobProcess(pid, environs[i], jobIds);
    if (process !== undefined) found.push(process);
  });
  return found;
}

/**
 * Stops the processes' groups (and each process itself, should it have left its group):
 * SIGTERM, up to `graceMs` for them to exit, then SIGKILL. Returns the pids that needed SIGKILL.
 */
export async function stopJobProcesses(processes: readonly JobProcess[], graceMs: number): Promise<number[]> {
  if (processes.length === 0) return [];
  signalJobProcesses(processes, 'SIGTERM');
  await waitUntilGone(processes, graceMs);
  const stubborn = processes.filter((p) => alive(p.pid));
  if (stubborn.length > 0) {
    signalJobProcesses(stubborn, 'SIGKILL');
    await waitUntilGone(stubborn, KILL_WAIT_MS);
  }
  return stubborn.map((p) => p.pid);
}

/** Sends `signal` to each process and to its group; one that is gone, or not ours, is passed over. */
export function signalJobProcesses(processes: readonly JobProcess[], signal: NodeJS.Signals): void {
  for (const pgid of new Set(processes.map((p) => p.pgid))) sendSignal(-pgid, signal);
  for (const p of processes) sendSignal(p.pid, signal);
}

/** Waits up to `timeoutMs` for the processes to exit; says whether they all did. */
export async function waitUntilGone(processes: readonly JobProcess[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processes.some((p) => alive(p.pid))) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

function processIds(): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const own = process.pid;
  return entries.filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => pid !== own);
}

/** The process as a JobProcess when its environment names one of `jobIds` and it has not exited. */
function jobProcess(pid: number, environ: string | undefined, jobIds: ReadonlySet<string>): JobProcess | undefined {
  const jobId = environ === undefined ? undefined : jobOf(environ);
  if (jobId === undefined || !jobIds.has(jobId)) return undefined;
  // state, ppid, pgrp, …
  const fields = statFields(pid);
  const pgid = Number(fields?.[2]);
  if (fields === undefined || fields[0] === 'Z' || !Number.isInteger(pgid) || pgid <= 0) return undefined;
  return { pid, pgid, jobId };
}

function sendSignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Gone already, or not ours to signal.
  }
}

/** Another user's process, or one that just exited, cannot be read. */
function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function jobOf(environ: string): string | undefined {
  return variableOf(environ, MARKER);
}

function variableOf(environ: string, marker: string): string | undefined {
  for (const variable of environ.split('\0')) {
    if (variable.startsWith(marker)) return variable.slice(marker.length);
  }
  return undefined;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Exists and is not a zombie (a zombie has exited; its parent just has not reaped it yet). */
function alive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}
