/**
 * Engine events, held back until the transaction that caused them has committed: a listener
 * must never hear of a job state that a rollback then undid.
 */
import type { Job, OutputLine } from '../../shared/protocol/types';
import type { ChangeOrigin, EngineListener, JobChange } from './api';
import type { HistoryStep } from '../storage/statements/history';
import type { ChangedJob } from '../storage/statements';

type Pending =
  | { type: 'job'; change: JobChange; job: ChangedJob; origin: ChangeOrigin }
  | { type: 'queue'; name: string; deleted: boolean }
  | { type: 'output'; jobId: string; queue: string; lines: OutputLine[] }
  | { type: 'token'; name: string }
  | { type: 'step'; step: HistoryStep };

export class ChangeHub {
  private readonly listeners = new Set<EngineListener>();
  private pending: Pending[] = [];
  /** Where committed history steps go (the engine's tally); null while history is off. */
  stepSink: ((step: HistoryStep) => void) | null = null;

  /**
   * `report` receives a listener's error; the change that caused the event is committed
   * regardless. `now` stamps each job change with when it happened.
   */
  constructor(
    private readonly report: (error: unknown) => void,
    private readonly now: () => number,
  ) {}

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  job(job: ChangedJob, deleted = false): void {
    this.pushJob(job, deleted, 'local', this.now());
  }

  /**
   * A job another daemon changed, read back by the store. Stamped with the job's own update
   * time: that daemon's clock said when it happened, this one only heard of it later.
   */
  remoteJob(job: Job, deleted = false): void {
    this.pushJob(job, deleted, 'remote', job.updatedAt);
  }

  private pushJob(job: ChangedJob, deleted: boolean, origin: ChangeOrigin, at: number): void {
    if (this.listeners.size === 0) return;
    this.pending.push({
      type: 'job',
      origin,
      change: {
        id: job.id,
        queue: job.queue,
        kind: job.kind,
        state: job.state,
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
        progress: job.progress,
        runAt: job.runAt,
        ...(deleted ? { deleted: true } : {}),
        cancelRequested: job.cancelRequested,
        ...(job.workflowRunId !== null ? { workflowRunId: job.workflowRunId } : {}),
        at,
        ...(job.state === 'running' ? { paused: (job.pausedAt ?? null) !== null } : {}),
      },
      job,
    });
  }

  queue(name: string, deleted = false): void {
    if (this.listeners.size === 0) return;
    this.pending.push({ type: 'queue', name, deleted });
  }

  output(jobId: string, queue: string, lines: OutputLine[]): void {
    if (this.listeners.size === 0 || lines.length === 0) return;
    this.pending.push({ type: 'output', jobId, queue, lines });
  }

  step(step: HistoryStep): void {
    if (this.stepSink === null) return;
    this.pending.push({ type: 'step', step });
  }

  tokenRevoked(name: string): void {
    if (this.listeners.size === 0) return;
    this.pending.push({ type: 'token', name });
  }

  /** Another daemon made jobs claimable: passed straight on (nothing to commit or undo). */
  wake(queue: string | null, dueAt?: number, kinds?: readonly string[]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener.wake?.(queue, dueAt, kinds);
      } catch (error) {
        this.report(error);
      }
    }
  }

  /** True while some listener follows the output of the job (made on other daemons). */
  wantsRemoteOutput(jobId: string, queue: string): boolean {
    for (const listener of this.listeners) if (listener.wantsRemoteOutput?.(jobId, queue) === true) return true;
    return false;
  }

  /** True while some listener wants job changes other daemons make. */
  wantsRemoteJobs(): boolean {
    for (const listener of this.listeners) if (listener.wantsRemoteJobs?.() === true) return true;
    return false;
  }

  /** How many events are pending: a mark to roll back to. */
  mark(): number {
    return this.pending.length;
  }

  /** Drops what a rolled-back transaction (or savepoint, from its mark on) queued. */
  discard(mark = 0): void {
    this.pending.length = Math.min(this.pending.length, mark);
  }

  /**
   * Delivers what the committed transaction queued. A listener that throws does not stop the
   * others, and does not turn the committed change into an error for the caller: it is reported.
   */
  flush(): void {
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    if (this.stepSink !== null) for (const event of events) if (event.type === 'step') this.stepSink(event.step);
    for (const listener of [...this.listeners]) {
      for (const event of events) {
        try {
          if (event.type === 'job') listener.jobChanged?.(event.change, event.job, event.origin);
          else if (event.type === 'queue') listener.queueChanged?.(event.name, event.deleted);
          else if (event.type === 'output') listener.output?.(event.jobId, event.queue, event.lines);
          else if (event.type === 'token') listener.tokenRevoked?.(event.name);
        } catch (error) {
          this.report(error);
        }
      }
    }
  }
}
