/**
 * The worker helper: run a function for every job of some queues and kinds.
 *
 *   const worker = await runWorker({
 *     queues: ['images'], kinds: ['resize'], concurrency: 4,
 *     handler: async (job, ctx) => { await ctx.progress(50, 'halfway'); return { ok: true }; },
 *   });
 *   await worker.stop(); // or SIGTERM with handleSignals: true
 *
 * What it does for you, and why:
 * - registers (`workers.register`) so the daemon and the UI know the worker, and registers again
 *   after a reconnect (the client it opens reconnects with backoff);
 * - long-polls `jobs.claim` for as many jobs as it has free slots, so an idle worker sends one
 *   request per `pollWaitMs` and a new job starts within milliseconds;
 * - heartbeats each running job at a fraction of its lease (a third, at most every 5 s), which
 *   keeps the lease alive and is how it learns of a cancel: `ctx.signal` is then aborted;
 * - completes with the handler's return value, or fails with its error; an error carrying
 *   `permanent: true` (see `PermanentError`) sends the job to dead at once;
 * - drains on `stop()`, on `signal` abort or on SIGTERM/SIGINT (`handleSignals`): claims no
 *   more, lets running handlers finish (a claim already in flight is waited for and its jobs are
 *   run, since they are leased to this worker), then closes. A second signal exits at once.
 *
 * Delivery is at-least-once: a job whose worker died runs again after its lease, so handlers
 * should be idempotent or resume from `job.checkpoint`.
 */
import * as os from 'node:os';
import { SpoolClient } from './client';
import { ConnectionLostError } from './connection';
import { SpoolError } from './errors';
import { ErrorCode, type FailParams } from './protocol';
import type { Job } from './types';

/**
 * Throw this (or any error with `permanent: true`) to send the job to dead without retries.
 * An error's numeric `exitCode`, if it has one, is recorded with the run.
 */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  readonly permanent = true;
}

/** What a handler gets besides the job: reporting, and the signal that says stop. */
export interface WorkContext {
  workerId: string;
  /** Aborted when a cancel was requested, the lease was lost, or the worker stops hard. */
  signal: AbortSignal;
  /** 0..100, with an optional message; shown in `spool jobs` and the editor. */
  progress(percent: number, message?: string): Promise<void>;
  /** Lines for the job's output (`spool logs <id>`). */
  log(...lines: string[]): Promise<void>;
  /** JSON a retry of this job resumes from (it arrives as `job.checkpoint`). */
  checkpoint(data: unknown): Promise<void>;
}

/** Returns the job's result (any JSON value, or undefined) or throws to fail it. */
export type JobHandler = (job: Job, ctx: WorkContext) => unknown;

export interface RunWorkerOptions {
  /** Default: the same rules as every Spool client (SPOOL_SOCKET, XDG_RUNTIME_DIR, ~/.spool). */
  socketPath?: string;
  /** Use this client instead of opening one (it is not closed when the worker stops). */
  client?: SpoolClient;
  /** Empty or absent = every queue. */
  queues?: string[];
  /** Empty or absent = every kind except the daemon's own (shell, http). */
  kinds?: string[];
  /** Jobs run at once. Default 1. */
  concurrency?: number;
  handler: JobHandler;
  /** Default: chosen by the daemon. Must match the name rules (letters, digits, `._:-`). */
  workerId?: string;
  /** Shown in `spool workers`. Default the process title. */
  name?: string;
  /** Aborting it drains the worker, like `stop()`. */
  signal?: AbortSignal;
  /** Drain on SIGTERM and SIGINT; a second signal exits with status 130. Default false. */
  handleSignals?: boolean;
  /** Long-poll wait of each claim. Default 5 s; it bounds how long a drain waits for a claim in flight. */
  pollWaitMs?: number;
  /** Heartbeat period; default a third of the job's lease, at most 5 s. */
  heartbeatIntervalMs?: number;
  /** Problems the worker recovers from (a lost connection, a refused heartbeat). Default: one line on stderr. */
  onError?: (error: Error, job?: Job) => void;
}

export interface WorkerHandle {
  readonly workerId: string;
  /** Jobs running now. */
  readonly running: number;
  /** Claim no more, wait for the running jobs, close. Resolves when drained; safe to call twice. */
  stop(): Promise<void>;
  /** Resolves when the worker has drained and stopped; rejects if its connection closed for good. */
  readonly done: Promise<void>;
}

const MAX_HEARTBEAT_MS = 5000;
const RETRY_PAUSE_MS = 500;

/** Register, then claim and run jobs until stopped. Rejects when no daemon answers. */
export async function runWorker(options: RunWorkerOptions): Promise<WorkerHandle> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const ownClient = options.client === undefined;
  const client = options.client ?? (await SpoolClient.connect({ socketPath: options.socketPath, reconnect: true }));
  const registration = {
    name: options.name ?? process.title,
    host: os.hostname(),
    pid: process.pid,
    queues: options.queues ?? [],
    kinds: options.kinds ?? [],
    concurrency,
  };
  let workerId: string;
  try {
    const registered = await client.call('workers.register', { ...registration, ...(options.workerId ? { workerId: options.workerId } : {}) });
    workerId = registered.worker.id;
  } catch (error) {
    if (ownClient) client.close();
    throw error;
  }
  const worker = new Worker(client, ownClient, workerId, concurrency, options);
  client.onReconnect(async (call) => {
    await call('workers.register', { ...registration, workerId: worker.workerId });
  });
  worker.start();
  return worker;
}

class Worker implements WorkerHandle {
  readonly done: Promise<void>;
  private readonly active = new Map<string, Promise<void>>();
  private stopping = false;
  private wake: (() => void) | null = null;
  private resolveDone!: () => void;
  private rejectDone!: (error: Error) => void;
  private readonly removeSignalHandlers: (() => void)[] = [];
  private readonly hardStop = new AbortController();

  constructor(
    private readonly client: SpoolClient,
    private readonly ownClient: boolean,
    readonly workerId: string,
    private readonly concurrency: number,
    private readonly options: RunWorkerOptions,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    // Callers that only use stop() should not see an unhandled rejection.
    this.done.catch(() => undefined);
  }

  get running(): number {
    return this.active.size;
  }

  start(): void {
    const { signal, handleSignals } = this.options;
    if (signal) {
      if (signal.aborted) this.stopping = true;
      const onAbort = (): void => void this.stop();
      signal.addEventListener('abort', onAbort, { once: true });
      this.removeSignalHandlers.push(() => signal.removeEventListener('abort', onAbort));
    }
    if (handleSignals) {
      let received = 0;
      const onSignal = (name: NodeJS.Signals): void => {
        received++;
        if (received > 1) {
          process.stderr.write(`spool worker: second ${name}, exiting without waiting for ${this.active.size} running job(s)\n`);
          process.exit(130);
        }
        process.stderr.write(`spool worker: ${name} received, finishing ${this.active.size} running job(s); send it again to exit now\n`);
        void this.stop();
      };
      for (const name of ['SIGTERM', 'SIGINT'] as const) {
        process.on(name, onSignal);
        this.removeSignalHandlers.push(() => process.off(name, onSignal));
      }
    }
    void this.loop().then(
      () => this.finish(),
      (error: unknown) => this.finish(error instanceof Error ? error : new Error(String(error))),
    );
  }

  stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    return this.done;
  }

  private async loop(): Promise<void> {
    let pause = RETRY_PAUSE_MS;
    while (!this.stopping) {
      const free = this.concurrency - this.active.size;
      if (free === 0) {
        await this.sleepUntilWoken(0);
        continue;
      }
      const waitMs = this.options.pollWaitMs ?? 5000;
      let jobs: Job[];
      try {
        const result = await this.client.call(
          'jobs.claim',
          { workerId: this.workerId, queues: this.options.queues ?? [], kinds: this.options.kinds ?? [], max: free, waitMs },
          { timeoutMs: waitMs + 30_000 },
        );
        jobs = result.jobs;
        pause = RETRY_PAUSE_MS;
      } catch (error) {
        if (this.client.isClosed) throw error;
        this.report(asError(error));
        // The daemon is restarting, shutting down or overloaded: back off, then claim again.
        await this.sleepUntilWoken(pause);
        pause = Math.min(pause * 2, 10_000);
        continue;
      }
      for (const job of jobs) this.launch(job);
    }
    await Promise.all(this.active.values());
  }

  /** Wait until a job finishes, stop() is called, or `ms` passes (0 = no time limit). */
  private sleepUntilWoken(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms > 0 ? setTimeout(done, ms) : null;
      const self = this;
      function done(): void {
        if (timer) clearTimeout(timer);
        if (self.wake === done) self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  private launch(job: Job): void {
    const run = this.runJob(job).finally(() => {
      this.active.delete(job.id);
      this.wake?.();
    });
    this.active.set(job.id, run);
  }

  private async runJob(job: Job): Promise<void> {
    const ids = { id: job.id, workerId: this.workerId };
    const controller = new AbortController();
    const onHardStop = (): void => controller.abort(this.hardStop.signal.reason);
    this.hardStop.signal.addEventListener('abort', onHardStop, { once: true });
    let leaseLost = false;
    let heartbeatTimer: NodeJS.Timeout | null = null;
    const period = this.options.heartbeatIntervalMs ?? Math.max(20, Math.min(job.timeoutMs / 3, MAX_HEARTBEAT_MS));
    const beat = async (): Promise<void> => {
      try {
        const hb = await this.client.call('jobs.heartbeat', ids);
        if (hb.cancelRequested && !controller.signal.aborted) {
          controller.abort(new SpoolError(ErrorCode.InvalidState, `Job ${job.id} was cancelled.`, { id: job.id }));
        }
      } catch (error) {
        if (isLeaseLost(error)) {
          leaseLost = true;
          controller.abort(asError(error));
          return;
        }
        this.report(asError(error), job);
      }
      if (heartbeatTimer !== null) heartbeatTimer = setTimeout(() => void beat(), period);
    };
    heartbeatTimer = setTimeout(() => void beat(), period);

    const ctx: WorkContext = {
      workerId: this.workerId,
      signal: controller.signal,
      progress: async (percent, message) => {
        await this.client.call('jobs.progress', { ...ids, percent, ...(message !== undefined ? { message } : {}) });
      },
      log: async (...lines) => {
        await this.client.call('jobs.log', { ...ids, lines });
      },
      checkpoint: async (data) => {
        await this.client.call('jobs.checkpoint', { ...ids, checkpoint: data });
      },
    };

    let outcome: { ok: true; result: unknown } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, result: await this.options.handler(job, ctx) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      if (heartbeatTimer) clearTimeout(heartbeatTimer);
      heartbeatTimer = null;
      this.hardStop.signal.removeEventListener('abort', onHardStop);
    }
    if (leaseLost) {
      this.report(new Error(`Job ${job.id}: the lease was lost (it expired or the job was taken from this worker); its outcome was not reported.`), job);
      return;
    }
    if (outcome.ok) {
      await this.finishCall(job, () => this.client.call('jobs.complete', { ...ids, ...(outcome.result !== undefined ? { result: outcome.result } : {}) }));
    } else {
      const params = failParams(ids, outcome.error);
      await this.finishCall(job, () => this.client.call('jobs.fail', params));
    }
  }

  /**
   * Report a job's outcome. A connection lost before the answer is retried on the next socket
   * (the reconnecting client waits for it); a refusal (lease lost, already finished) is final.
   */
  private async finishCall(job: Job, send: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await send();
        return;
      } catch (error) {
        const retriable = error instanceof ConnectionLostError && !this.client.isClosed && attempt < 5;
        this.report(asError(error), job);
        if (!retriable) return;
      }
    }
  }

  private finish(error?: Error): void {
    for (const remove of this.removeSignalHandlers) remove();
    if (this.ownClient) this.client.close();
    if (error) {
      this.hardStop.abort(error);
      this.rejectDone(error);
    } else this.resolveDone();
  }

  private report(error: Error, job?: Job): void {
    if (this.options.onError) this.options.onError(error, job);
    else process.stderr.write(`spool worker ${this.workerId}: ${job ? `job ${job.id}: ` : ''}${error.message}\n`);
  }
}

function failParams(ids: { id: string; workerId: string }, error: unknown): FailParams {
  if (error instanceof Error) {
    const permanent = 'permanent' in error && error.permanent === true;
    const exitCode = 'exitCode' in error && typeof error.exitCode === 'number' ? error.exitCode : undefined;
    return {
      ...ids,
      error: error.message || error.name,
      ...(error.stack ? { stack: error.stack } : {}),
      ...(permanent ? { permanent } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
    };
  }
  return { ...ids, error: typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)) };
}

function isLeaseLost(error: unknown): boolean {
  return error instanceof SpoolError && error.code === ErrorCode.LeaseLost;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
