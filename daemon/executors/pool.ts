/**
 * The daemon's own worker: it claims `shell` and `http` jobs and runs them, at most `cap` at once
 * across all queues (each queue's concurrency limit still applies: the engine enforces it in the
 * claim). It claims under one worker id per host and socket (see builtinWorkerId), so that a
 * daemon restarted on the same socket finds the jobs its previous life left running and
 * `recoverInterrupted` puts them back.
 *
 * While a job runs, its lease is extended by heartbeats; a heartbeat also tells whether a cancel
 * was requested, and the engine's jobChanged event brings that news sooner. Cancel and timeout
 * stop the work; shutdown stops it too but leaves the job `running` for recovery at next start.
 */
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import { SpoolError, errorMessage } from '../../shared/protocol/errors';
import { ErrorCode, LIMITS } from '../../shared/protocol';
import type { Job, ResourceLimits } from '../../shared/protocol/types';
import type { EngineClaimParams, JobChange } from '../engine/api';
import type { Engine } from '../engine/engine';
import { BUILTIN_WORKER_PREFIX } from '../engine/defaults';
import type { Logger } from '../lifecycle/logger';
import { runHttp } from './http';
import { JobOutput } from '../../shared/client/shellJob';
import { dependencyFolders, sweepDependencyFolders } from '../../shared/client/jobEnv';
import { Launcher } from './launcher';
import { runShell } from './shell';
import type { Executor, Outcome, RunningJob } from './types';

export const EXECUTOR_KINDS = ['shell', 'http'] as const;
const EXECUTORS: Record<(typeof EXECUTOR_KINDS)[number], Executor> = { shell: runShell, http: runHttp };
/**
 * `builtin:<host>:<12 hex digits of the socket path's SHA-256>`. The hash stands for the path
 * because worker ids are names (NAME_PATTERN: no slashes, at most 128 characters); it is stable
 * across restarts, which is all recovery needs.
 */
export function builtinWorkerId(socketPath: string): string {
  const host = os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) || 'host';
  const digest = createHash('sha256').update(socketPath).digest('hex').slice(0, 12);
  return `${BUILTIN_WORKER_PREFIX}${host}:${digest}`;
}

interface Active {
  job: Job;
  run: RunningJob;
  heartbeat: NodeJS.Timeout;
  /** Whether its processes are stopped for a user's pause (jobs.pause). */
  paused: boolean;
}

export class ExecutorPool {
  readonly workerId: string;
  private readonly active = new Map<string, Active>();
  private claimScheduled = false;
  private stopped = false;
  /** Starts the shell jobs' processes, so that the daemon itself is not forked for each. */
  private readonly launcher: Launcher;

  constructor(
    private readonly engine: Engine,
    private readonly socketPath: string,
    readonly cap: number,
    /** After SIGTERM, a job's process group gets this long before SIGKILL. */
    private readonly killGraceMs: number,
    private readonly logger: Logger,
    /** A job's lease may be due to expire: the upkeep timer should know. */
    private readonly noteLease: (at: number) => void,
    /** The engine's claim, through the daemon's bookkeeping. */
    private readonly claimJobs: (params: EngineClaimParams) => Promise<Job[]>,
  ) {
    this.workerId = builtinWorkerId(socketPath);
    this.launcher = new Launcher(logger);
  }

  get running(): number {
    return this.active.size;
  }

  start(): void {
    // A daemon killed mid-job left its jobs' dependency files; those jobs run again with new ones.
    try {
      const swept = sweepDependencyFolders(dependencyFolders(this.socketPath));
      if (swept > 0) this.logger.info('Removed the dependency files of jobs a daemon killed earlier had left', { count: swept });
    } catch (error) {
      this.logger.warn('Could not remove the dependency files a daemon killed earlier left', { error });
    }
    // Started before the first claim (a synchronous store has registered it when this returns);
    // the executors work without the row, which only shows them in the workers list.
    this.engine
      .registerWorker({ workerId: this.workerId, name: 'built-in executors', host: os.hostname(), pid: process.pid, kinds: [...EXECUTOR_KINDS], concurrency: this.cap }, 'builtin')
      .catch((error: unknown) => this.logger.warn('Could not register the built-in executors as a worker', { error }));
    this.wake();
  }

  /** Work may be claimable: look soon (coalesced to one claim per event-loop turn). */
  wake(): void {
    if (this.stopped || this.claimScheduled || this.active.size >= this.cap) return;
    this.claimScheduled = true;
    setImmediate(() => void this.claim());
  }

  /** The engine reported a change; a cancel request for one of our jobs is acted on at once. */
  jobChanged(change: JobChange): void {
    const active = this.active.get(change.id);
    if (active && change.state === 'running') {
      if (change.cancelRequested === undefined) void this.stopIfCancelRequested(change.id, active);
      else if (change.cancelRequested) active.run.stop('cancel');
      if (change.paused !== undefined) this.setPaused(active, change.paused);
    }
    if (change.state !== 'running' && (change.kind === 'shell' || change.kind === 'http')) this.wake();
  }

  /** A user paused or resumed the job: its processes stop or go on (once per change). */
  private setPaused(active: Active, paused: boolean): void {
    if (active.paused === paused || active.run.pause === undefined) return;
    active.paused = paused;
    if (paused) active.run.pause();
    else active.run.resume?.();
    this.logger.info(paused ? 'Paused a built-in job' : 'Resumed a built-in job', { job: active.job.id });
  }

  /** The engine's event did not say whether a cancel was requested: read it from the job. */
  private async stopIfCancelRequested(id: string, active: Active): Promise<void> {
    try {
      if ((await this.engine.getJob(id)).job.cancelRequested) active.run.stop('cancel');
    } catch (error) {
      this.logger.warn('Could not read a running job to check for a cancel request', { job: id, error });
    }
  }

  /** Stop claiming; wait up to graceMs for running jobs, then stop them (they stay recoverable). */
  async shutdown(graceMs: number): Promise<void> {
    this.stopped = true;
    const all = () => Promise.all([...this.active.values()].map((a) => a.run.done));
    if (this.active.size > 0) {
      this.logger.info('Waiting for running built-in jobs to finish', { count: this.active.size, graceMs });
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
      if ((await Promise.race([all(), timer])) === 'timeout') {
        this.logger.warn('Stopping built-in jobs still running after the grace period; they run again at the next start', {
          jobs: [...this.active.keys()],
        });
        for (const a of this.active.values()) a.run.stop('shutdown');
        await all();
      }
    }
    this.launcher.close();
  }

  private async claim(): Promise<void> {
    this.claimScheduled = false;
    if (this.stopped) return;
    const free = this.cap - this.active.size;
    if (free <= 0) return;
    let jobs: Job[];
    try {
      jobs = await this.claimJobs({ workerId: this.workerId, builtinKinds: [...EXECUTOR_KINDS], max: free });
    } catch (error) {
      this.logger.error('Built-in executors could not claim jobs', { error });
      return;
    }
    const limits = await this.queueLimits(jobs);
    // Shut down meanwhile: the claimed jobs stay running under this worker's id, and start-up
    // recovery (or the reaper, when their lease runs out) puts them back.
    if (this.stopped) return;
    for (const job of jobs) this.startJob(job, limits.get(job.queue) ?? {});
  }

  /**
   * The resource limits of the queues of the shell jobs among `jobs`, read once per queue per
   * claim. A queue that cannot be read gives none, said in the log: the job still runs.
   */
  private async queueLimits(jobs: Job[]): Promise<Map<string, ResourceLimits>> {
    const limits = new Map<string, ResourceLimits>();
    for (const queue of new Set(jobs.filter((j) => j.kind === 'shell').map((j) => j.queue))) {
      try {
        limits.set(queue, (await this.engine.getQueue(queue)).limits);
      } catch (error) {
        this.logger.warn("Could not read a queue's resource limits; its shell jobs run with their own only", { queue, error });
      }
    }
    return limits;
  }

  private startJob(job: Job, queueLimits: ResourceLimits): void {
    const output = new JobOutput({
      append: (stream, lines) => this.engine.appendOutput(job.id, this.workerId, stream, lines),
      // `::spool progress …` and `::spool checkpoint …` lines, recorded under the executors' lease.
      record: (report) =>
        report.kind === 'progress'
          ? this.engine.progress({ id: job.id, workerId: this.workerId, percent: report.percent, ...(report.message !== null ? { message: report.message } : {}) })
          : this.engine.checkpoint({ id: job.id, workerId: this.workerId, checkpoint: report.checkpoint }),
      onError: (error) => this.logger.warn('Could not store job output', { job: job.id, error }),
    });
    const executor = job.kind === 'shell' || job.kind === 'http' ? EXECUTORS[job.kind] : null;
    let run: RunningJob;
    if (executor === null) {
      run = { done: Promise.resolve({ kind: 'failed', error: `No built-in executor for kind "${job.kind}".`, permanent: true }), stop: () => undefined };
    } else {
      try {
        run = executor({ job, output, killGraceMs: this.killGraceMs, workerId: this.workerId, socketPath: this.socketPath, queueLimits, spawner: this.launcher.spawn });
      } catch (error) {
        const reason = errorMessage(error);
        run = { done: Promise.resolve({ kind: 'failed', error: `Could not start the job: ${reason}` }), stop: () => undefined };
      }
    }
    if (job.leaseExpiresAt !== null) this.noteLease(job.leaseExpiresAt);
    const heartbeat = setInterval(() => void this.heartbeat(job, run), heartbeatInterval(job.timeoutMs));
    heartbeat.unref();
    this.active.set(job.id, { job, run, heartbeat, paused: false });
    this.logger.debug('Started a built-in job', { job: job.id, kind: job.kind, queue: job.queue, attempt: job.attempts });
    run.done.then(
      (outcome) => void this.finish(job, outcome, output),
      (error: unknown) => void this.finish(job, { kind: 'failed', error: `The executor failed: ${errorMessage(error)}` }, output),
    );
  }

  private async heartbeat(job: Job, run: RunningJob): Promise<void> {
    try {
      // The lease covers the job's own timeout plus the kill grace, so the reaper never takes a
      // job whose process is still being stopped (within the longest extension a heartbeat may ask).
      const extendMs = Math.min(job.timeoutMs + this.killGraceMs, LIMITS.maxTimeoutMs);
      const result = await this.engine.heartbeat({ id: job.id, workerId: this.workerId, extendMs });
      this.noteLease(result.leaseExpiresAt);
      if (result.cancelRequested) run.stop('cancel');
      // A pause or resume asked through another daemon sharing the database is heard here.
      const active = this.active.get(job.id);
      if (active !== undefined && result.paused !== undefined) this.setPaused(active, result.paused);
    } catch (error) {
      if (error instanceof SpoolError && (error.code === ErrorCode.LeaseLost || error.code === ErrorCode.JobNotFound)) {
        this.logger.warn('A built-in job lost its lease; stopping it', { job: job.id, reason: error.message });
        run.stop('cancel');
        return;
      }
      this.logger.error('Heartbeat of a built-in job failed', { job: job.id, error });
    }
  }

  private async finish(job: Job, outcome: Outcome, output: JobOutput): Promise<void> {
    const active = this.active.get(job.id);
    if (active) clearInterval(active.heartbeat);
    this.active.delete(job.id);
    // The output is stored before the outcome: a reader that sees the job finished has all of it.
    await output.flush();
    for (let tries = 0; ; tries += 1) {
      try {
        await this.record(job, outcome);
      } catch (error) {
        // The database is away (PostgreSQL restarting): the job did finish, and left alone it
        // would stay running until its lease ran out and then run again. Ask again, for a while.
        if (error instanceof SpoolError && error.code === ErrorCode.StoreUnavailable && tries < OUTCOME_RETRIES) {
          this.logger.debug('The outcome of a built-in job could not be stored yet; trying again', { job: job.id, outcome: outcome.kind });
          await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** tries, 5000)));
          continue;
        }
        if (error instanceof SpoolError && error.code === ErrorCode.LeaseLost) {
          this.logger.warn('A built-in job finished after losing its lease; its outcome was not recorded', { job: job.id, outcome: outcome.kind });
        } else {
          this.logger.error('Could not record the outcome of a built-in job', { job: job.id, outcome: outcome.kind, error });
        }
      }
      break;
    }
    this.wake();
  }

  private async record(job: Job, outcome: Outcome): Promise<void> {
    switch (outcome.kind) {
      case 'completed':
        await this.engine.complete({ id: job.id, workerId: this.workerId, result: outcome.result });
        break;
      case 'failed':
        await this.engine.fail({
          id: job.id,
          workerId: this.workerId,
          error: outcome.error,
          ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
          ...(outcome.httpStatus !== undefined ? { httpStatus: outcome.httpStatus } : {}),
          ...(outcome.permanent ? { permanent: true } : {}),
          ...(outcome.retryAt !== undefined && !outcome.permanent ? { retryAt: outcome.retryAt } : {}),
        });
        break;
      case 'cancelled':
        await this.engine.markCancelled(job.id, this.workerId);
        break;
      case 'stopped':
        // Left running on purpose: the next daemon's start-up recovery retries it.
        break;
    }
  }
}

/**
 * How many times a built-in job's outcome is stored again while the store is unavailable, the
 * pause doubling from 500 ms to 5 s (about half a minute in all); past the lease the answer is
 * LeaseLost, and the job runs again as after any lost lease.
 */
const OUTCOME_RETRIES = 8;

/** Often enough that a lease (timeoutMs + grace) never runs out; rarely enough to cost nothing. */
function heartbeatInterval(timeoutMs: number): number {
  return Math.min(Math.max(Math.floor(timeoutMs / 3), 500), 30_000);
}
