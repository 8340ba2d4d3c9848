/**
 * Processes that a killed daemon's shell jobs left running.
 *
 * A daemon stopped by SIGTERM stops its jobs' process groups itself. One killed with SIGKILL (or
 * by a crash) cannot: its shell jobs' processes live on, and at the next start-up those jobs are
 * recovered and run again — twice at once, unless the old processes are stopped first. Every
 * process a shell job starts carries `SPOOL_JOB_ID` in its environment (shell.ts sets it; children
 * inherit it), so before recovering, the daemon looks through /proc for processes of this user
 * whose environment names one of the jobs it is about to recover, and stops their process groups:
 * SIGTERM, then SIGKILL for whatever is left after the grace period. The search itself is
 * shared/client/jobProcesses.ts, which the process-group runner also uses to stop the processes
 * a job started with `setsid` when it is cancelled, times out or ends.
 *
 * Linux only: without /proc nothing is found and recovery goes on as before.
 */
import { findJobProcesses, findWorkerProcesses, stopJobProcesses, type JobProcess } from '../../shared/client/jobProcesses';

/** A process a shell job left running. */
export type Leftover = JobProcess;

/** The running processes whose environment says they belong to one of `jobIds`. */
export const findLeftovers: (jobIds: ReadonlySet<string>) => Leftover[] = findJobProcesses;

/** The running processes of jobs the workers `workerIds` started (their SPOOL_WORKER_ID), whichever job. */
export const findWorkerLeftovers: (workerIds: ReadonlySet<string>) => Leftover[] = findWorkerProcesses;

/**
 * Stops the leftovers' process groups (and each leftover itself, should it have left its group):
 * SIGTERM, up to `graceMs` for them to exit, then SIGKILL. Returns the pids that needed SIGKILL.
 */
export const stopLeftovers: (leftovers: readonly Leftover[], graceMs: number) => Promise<number[]> = stopJobProcesses;
