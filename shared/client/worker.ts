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
 * - completes with the handler's return value (the completes of handlers that finish in the same
 *   turn go out together, as one `jobs.completeMany`), or fails with its error; an error carrying
 *   `permanent: true` (see `PermanentError`) sends the job to dead at once, one carrying
 *   `retryAt` (see `RetryLaterError`) sets when the next attempt starts, a `SnoozeError` puts the
 *   job off without using up an attempt (`jobs.snooze`), and a result
 *   the daemon refuses (over the size limit) or JSON cannot carry (a BigInt), since the same
 *   handler would return the same result again;
 * - claims only while connected: while the daemon is away it waits for the reconnect, and
 *   `stop()` ends that wait at once; a daemon that answers but refuses the token (revoked) is
 *   final: the worker stops and `done` rejects with the daemon's Unauthorized error;
 * - drains on `stop()`, on `signal` abort or on SIGTERM/SIGINT (`handleSignals`): claims no
 *   more, lets running handlers finish (jobs a claim still in flight brings are handed back
 *   with `jobs.release` instead of started), then closes. A second signal stops hard: it aborts
 *   every handler's `ctx.signal` with a `WorkerStoppedError`, gives the handlers a moment, hands
 *   their jobs back (`jobs.release`: they run again without using up an attempt), then exits
 *   with 130 (SIGINT) or 143 (SIGTERM).
 *
 * Delivery is at-least-once: a job whose worker died runs again after its lease, so handlers
 * should be idempotent or resume from `job.checkpoint`.
 */
import * as os from 'node:os';
import { SpoolClient } from './client';
import { Completer } from './completer';
import { ConnectionLostError } from './connection';
import { SpoolError } from '../protocol/errors';
import type { TlsTarget } from './endpoint';
import { asError, failParams, isLeaseLost, isRefusal, isStoreUnavailable, unsendable } from './outcome';
import { ErrorCode } from '../protocol';
import type { ClaimedJob, Job } from '../protocol/types';

/**
 * Throw this (or any error with `permanent: true`) to send the job to dead without retries.
 * An error's numeric `exitCode`, if it has one, is recorded with the run.
 */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  readonly permanent = true;
}

/**
 * Throw this to fail the attempt and have the next one start at `retryAt` (epoch ms) instead of
 * after the backoff (an upstream said when to come back). The attempt is used up; the job's
 * retry rule and deadline still apply. Any error with a numeric `retryAt` does the same, and a
 * numeric `httpStatus` is recorded with the run for retry rules to match.
 */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  constructor(
    message: string,
    readonly retryAt: number,
  ) {
    super(message);
  }
}

/**
 * Throw this to put the job off for `delayMs` without failing it (`jobs.snooze`): it runs again
 * then, and the attempt is given back.
 */
export class SnoozeError extends Error {
  override readonly name = 'SnoozeError';
  constructor(
    readonly delayMs: number,
    message = `snoozed for ${delayMs} ms`,
  ) {
    super(message);
  }
}

/**
 * The reason `ctx.signal` is aborted with when the worker stops hard (a second SIGTERM/SIGINT):
 * the process exits within moments, so a handler should stop at once rather than clean up
 * slowly. `spool work` kills the command's process group on it.
 */
export class WorkerStoppedError extends Error {
  override readonly name = 'WorkerStoppedError';
}

/** What a handler gets besides the job: reporting, and the signal that says stop. */
export interface WorkContext {
  workerId: string;
  /** Aborted when a cancel was requested, the lease was lost, or the worker stops hard. */
  signal: AbortSignal;
  /**
   * Aborted, with a `WorkerStoppedError`, only when the worker stops hard (a second signal) and
   * the process is about to exit; also after `signal` was aborted for a cancel, so a handler
   * still stopping gently can stop at once.
   */
  hardStop: AbortSignal;
  /** 0..100, with an optional message; shown in `spool jobs` and the editor. */
  progress(percent: number, message?: string): Promise<void>;
  /** Lines for the job's output (`spool logs <id>`). */
  log(...lines: string[]): Promise<void>;
  /** JSON a retry of this job resumes from (it arrives as `job.checkpoint`). */
  checkpoint(data: unknown): Promise<void>;
}

/** Returns the job's result (any JSON value, or undefined) or throws to fail it. */
export type JobHandler = (job: ClaimedJob, ctx: WorkContext) => unknown;

export interface RunWorkerOptions {
  /** Default: the same rules as every Spool client (SPOOL_SOCKET, XDG_RUNTIME_DIR, ~/.spool). */
  socketPath?: string;
  /** A daemon over TLS (shared/client/endpoint.ts). Default: the one SPOOL_ENDPOINT names, when no socketPath is given. */
  tls?: TlsTarget;
  /** Use this client instead of opening one (it is not closed when the worker stops). */
  client?: SpoolClient;
  /** Empty or absent = every queue. */
  queues?: string[];
  /** Empty or absent = every kind except the daemon's own (shell, http). */
  kinds?: string[];
  /** Jobs run at once. Default 1. */
  concurrency?: number;
  /** The most weight of jobs (Job.weight) held at once; the daemon's claims respect it. Default: none. */
  capacity?: number;
  handler: JobHandler;
  /** Default: chosen by the daemon. Must match the name rules (letters, digits, `._:-`). */
  workerId?: string;
  /** Shown in `spool workers`. Default the process title. */
  name?: string;
  /** Aborting it drains the worker, like `stop()`. */
  signal?: AbortSignal;
  /**
   * Drain on SIGTERM and SIGINT. A second signal aborts every handler's `ctx.signal` with a
   * `WorkerStoppedError`, hands the running jobs back (waiting at most about 2 s), then exits
   * with status 130 after SIGINT, 143 after SIGTERM. Default false.
   */
  handleSignals?: boolean;
  /**
   * Long-poll wait of each claim. Default 5 s; it bounds how long a drain waits for a claim in
   * flight (no claim is sent while the daemon is away, so none waits for a reconnect).
   */
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
/**
 * A job's outcome the daemon could not store because its database was away is sent again this
 * many times, the pause doubling from RETRY_PAUSE_MS to 5 s (about half a minute in all): a
 * PostgreSQL restart should not cost a finished job its result. Past the job's lease the answer
 * is LeaseLost, which ends the retries, and the job runs again.
 */
const STORE_RETRIES = 8;
/**
 * After a second signal: how long handlers get to stop on their aborted signal and report their
 * own failure (with the output they flushed), then how long the worker's own `jobs.fail` for the
 * jobs still running may take. Short, because the user asked to exit now.
 */
const HARD_STOP_SETTLE_MS = 1000;
const HARD_STOP_REPORT_MS = 1000;

/** Register, then claim and run jobs until stopped. Rejects when no daemon answers. */
export async function runWorker(options: RunWorkerOptions): Promise<WorkerHandle> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const ownClient = options.client === undefined;
  const client = options.client ?? (await SpoolClient.connect({ socketPath: options.socketPath, ...(options.tls ? { tls: options.tls } : {}), reconnect: true }));
  const registration = {
    name: options.name ?? process.title,
    host: os.hostname(),
    pid: process.pid,
    queues: options.queues ?? [],
    kinds: options.kinds ?? [],
    concurrency,
    ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
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
  /** Set by a second signal: the process exits on its own, so the worker must not finish first. */
  private exiting = false;
  /** Completes that finish together go out as one jobs.completeMany. */
  private readonly completer: Completer;

  constructor(
    private readonly client: SpoolClient,
    private readonly ownClient: boolean,
    readonly workerId: string,
    private readonly concurrency: number,
    private readonly options: RunWorkerOptions,
  ) {
    this.completer = new Completer(client, workerId);
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
        // 128 + the signal's number, as a shell reports a process the signal ended: 130 for
        // SIGINT, 143 for SIGTERM.
        const status = 128 + (name === 'SIGINT' ? 2 : 15);
        if (received > 2) process.exit(status);
        if (received === 2) {
          process.stderr.write(`spool worker: second ${name}, stopping ${this.active.size} running job(s) now\n`);
          void this.stopHard(name).finally(() => process.exit(status));
          return;
        }
        const running = this.active.size;
        process.stderr.write(
          running === 0
            ? `spool worker: ${name} received, stopping (no job is running)\n`
            : `spool worker: ${name} received, finishing ${running} running job(s); send it again to exit now\n`,
        );
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

  /**
   * The second signal: abort every handler (their jobs, and any a claim in flight still brings,
   * fail with the reason), wait a moment for the handlers to report that themselves, then fail
   * the jobs still running directly. Resolves when done or out of time; the caller exits.
   */
  private async stopHard(signalName: NodeJS.Signals): Promise<void> {
    this.exiting = true;
    this.stopping = true;
    this.hardStop.abort(new WorkerStoppedError(`Worker ${this.workerId} was stopped by a second ${signalName} before the job finished.`));
    this.wake?.();
    await withDeadline(Promise.allSettled(this.active.values()), HARD_STOP_SETTLE_MS);
    const reason = asError(this.hardStop.signal.reason).message;
    const left = [...this.active.keys()].map((id) =>
      this.releaseCall(id, reason).catch((e: unknown) => {
        // The handler's own report may have got there first; anything else is worth a line.
        if (!isLeaseLost(e)) this.report(new Error(`Job ${id}: could not hand it back before exiting: ${asError(e).message}`));
      }),
    );
    await withDeadline(Promise.allSettled(left), HARD_STOP_REPORT_MS);
  }

  private async loop(): Promise<void> {
    let pause = RETRY_PAUSE_MS;
    while (!this.stopping) {
      const free = this.concurrency - this.active.size;
      if (free === 0) {
        await this.sleepUntilWoken(0);
        continue;
      }
      if (this.client.state === 'disconnected') {
        // A claim made now would wait for the reconnect for up to waitMs + 30 s, and stop()
        // could not take it back. Wait here instead, where stop() wakes the loop at once.
        await this.waitForDaemon();
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
        // Closed for good: with why when the client knows (the daemon refused the token).
        if (this.client.isClosed) throw this.client.closeReason ?? error;
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

  /**
   * Wait until the client is connected again (or closed), a job finishes, or stop() is called.
   * Closed for good (the daemon refused the token on reconnecting), the worker stops with why.
   */
  private async waitForDaemon(): Promise<void> {
    const woken = this.sleepUntilWoken(0);
    const wake = this.wake;
    const off = this.client.onStateChange(() => wake?.());
    await woken;
    off();
    if (this.client.isClosed && this.client.closeReason !== null) throw this.client.closeReason;
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
    // A claim that was in flight when stop() came: its jobs go back rather than start.
    const work = this.stopping ? this.release(job, `Worker ${this.workerId} was stopping when the claim returned.`) : this.runJob(job);
    const run = work.finally(() => {
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
      hardStop: this.hardStop.signal,
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
      // A job a claim in flight brought after a second signal is not started: the process is
      // about to exit. It fails with the stop's reason and runs again on its next attempt.
      if (this.hardStop.signal.aborted) throw this.hardStop.signal.reason;
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
      await this.complete(job, ids, outcome.result);
    } else if (this.hardStop.signal.aborted) {
      // Most likely the handler stopping because the worker does: not the job's failure.
      await this.release(job, asError(this.hardStop.signal.reason).message);
    } else if (outcome.error instanceof SnoozeError) {
      const delayMs = outcome.error.delayMs;
      await this.finishCall(job, () => this.client.call('jobs.snooze', { ...ids, delayMs }));
    } else {
      const params = failParams(ids, outcome.error);
      await this.finishCall(job, () => this.client.call('jobs.fail', params));
    }
  }

  /**
   * Complete the job with the handler's result. A result that cannot be sent, or that the daemon
   * refuses, fails the job for good instead, saying why: left alone, the job would stay running
   * until its lease expired and then run again, only to return the same result.
   */
  private async complete(job: Job, ids: { id: string; workerId: string }, result: unknown): Promise<void> {
    let refusal = unsendable(result);
    if (refusal === null) {
      const error = await this.finishCall(job, () => this.completer.complete(ids.id, result));
      if (error === null || !isRefusal(error)) return;
      refusal = `The daemon refused the result: ${error.message}`;
    }
    const message = refusal;
    await this.finishCall(job, () => this.client.call('jobs.fail', { ...ids, error: message, permanent: true }));
  }

  /** Hand a held job back unstarted or unfinished: it runs again without using up an attempt. */
  private async release(job: Job, reason: string): Promise<void> {
    await this.finishCall(job, () => this.releaseCall(job.id, reason));
  }

  /** `jobs.release`; to a daemon older than it, `jobs.fail`, which is what workers did before. */
  private async releaseCall(id: string, reason: string): Promise<unknown> {
    try {
      return await this.client.call('jobs.release', { id, workerId: this.workerId, reason });
    } catch (error) {
      if (!(error instanceof SpoolError && error.code === ErrorCode.MethodNotFound)) throw error;
      return this.client.call('jobs.fail', { id, workerId: this.workerId, error: reason });
    }
  }

  /**
   * Report a job's outcome; resolves with the error it ended with, or null once it was recorded.
   * A connection lost before the answer is retried on the next socket (the reconnecting client
   * waits for it), and a store that was away is asked again after a pause (STORE_RETRIES); a
   * refusal (lease lost, already finished, invalid) is final.
   */
  private async finishCall(job: Job, send: () => Promise<unknown>): Promise<Error | null> {
    let storeAway = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await send();
        return null;
      } catch (error) {
        this.report(asError(error), job);
        if (isStoreUnavailable(error) && !this.client.isClosed && storeAway < STORE_RETRIES) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_PAUSE_MS * 2 ** storeAway, 5000)));
          storeAway += 1;
          continue;
        }
        const retriable = error instanceof ConnectionLostError && !this.client.isClosed && attempt < 5;
        if (!retriable) return asError(error);
      }
    }
  }

  private finish(error?: Error): void {
    // After a second signal the process exits by itself once the jobs are reported; resolving
    // `done` first would let a caller exit with its own (successful) status.
    if (this.exiting) return;
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

/** Resolves when `promise` settles or `ms` passes, whichever is first. */
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
