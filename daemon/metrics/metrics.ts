/**
 * The daemon's Prometheus metrics, in a registry of its own (never prom-client's global one: two
 * daemons in one process, as tests run them, must not mix their figures), every series labelled
 * with the daemon's name (`daemon`).
 *
 * - Job counts by queue and state are read from the store's counters when Prometheus scrapes
 *   (`engine.stats()`, the figures `spool stats` shows), so nothing is written per job for them.
 * - Counters and histograms are fed by engine events, after their transaction committed: what a
 *   rollback undid is never counted. They count what happened while this daemon ran, as
 *   Prometheus counters do; `rate()` and `increase()` handle a restart's reset.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode, type JobChange, type Stats } from '../../shared/protocol';
import { JOB_STATES } from '../../shared/protocol/types';
import type { ChangedJob, ChangeOrigin } from '../engine/api';

/** What the daemon reads at scrape time: the store's counts and its connections. */
export interface MetricsSources {
  stats(): Promise<Stats>;
  /** Open client connections (CLI, extension, workers, scripts). */
  clients(): number;
  /** Distinct workers speaking over the open connections (the daemon's own executors not included). */
  workers(): number;
}

/**
 * Seconds. Claim-to-start spans a worker already waiting (milliseconds) to a backlog drained over
 * an hour; run durations span a no-op job to a two-hour build.
 */
const CLAIM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const RUN_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200];

export class DaemonMetrics {
  readonly registry = new Registry();
  private sources: MetricsSources | null = null;
  /** When each running job this daemon saw claimed started: the start of its run's duration. */
  private readonly running = new Map<string, number>();
  /** The store's operations, wrapped once each (watchStore). */
  private readonly wrapped = new Map<string, (...args: unknown[]) => unknown>();

  private readonly enqueued: Counter<'queue' | 'kind'>;
  private readonly completed: Counter<'queue' | 'kind'>;
  private readonly failed: Counter<'queue' | 'kind'>;
  private readonly dead: Counter<'queue' | 'kind'>;
  private readonly claimToStart: Histogram<'queue' | 'kind'>;
  private readonly runDuration: Histogram<'queue' | 'kind' | 'outcome'>;
  private readonly storeErrors: Counter<'operation'>;

  /** `name` labels every series (`daemon="…"`): the `--name` option, the host's name by default. */
  constructor(name: string) {
    this.registry.setDefaultLabels({ daemon: name });
    const registers = [this.registry];
    const metrics = this;
    new Gauge({
      name: 'spool_jobs',
      help: 'Jobs by queue and state, from the store at scrape time.',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        const stats = await metrics.source().stats();
        // Reset first: a queue deleted since the last scrape must not linger with its old counts.
        this.reset();
        for (const queue of stats.queues) for (const state of JOB_STATES) this.set({ queue: queue.name, state }, queue.counts[state]);
      },
    });
    new Gauge({
      name: 'spool_connected_clients',
      help: 'Open client connections to the daemon (CLI, extension, workers, scripts).',
      registers,
      collect() {
        this.set(metrics.source().clients());
      },
    });
    new Gauge({
      name: 'spool_connected_workers',
      help: "Distinct workers speaking over the daemon's open connections (its own shell and http executors not included).",
      registers,
      collect() {
        this.set(metrics.source().workers());
      },
    });
    const byJob = ['queue', 'kind'] as const;
    this.enqueued = new Counter({ name: 'spool_jobs_enqueued_total', help: 'Jobs enqueued (by a client, a template or a schedule).', labelNames: byJob, registers });
    this.completed = new Counter({ name: 'spool_jobs_completed_total', help: 'Jobs completed.', labelNames: byJob, registers });
    this.failed = new Counter({
      name: 'spool_jobs_failed_total',
      help: 'Attempts that failed (an error, or a lease that expired): the job retries or is dead.',
      labelNames: byJob,
      registers,
    });
    this.dead = new Counter({ name: 'spool_jobs_dead_total', help: 'Jobs that failed their last attempt and are dead.', labelNames: byJob, registers });
    this.claimToStart = new Histogram({
      name: 'spool_job_claim_to_start_seconds',
      help: 'From when a job was due (its run time, or its creation if later) to its start by a claim.',
      labelNames: byJob,
      buckets: CLAIM_BUCKETS,
      registers,
    });
    this.runDuration = new Histogram({
      name: 'spool_job_run_duration_seconds',
      help: 'From the start of an attempt to its end, by outcome (the state the job went to).',
      labelNames: ['queue', 'kind', 'outcome'],
      buckets: RUN_BUCKETS,
      registers,
    });
    this.storeErrors = new Counter({
      name: 'spool_store_errors_total',
      help: 'Store operations that failed unexpectedly (not a refusal such as a lost lease), by operation.',
      labelNames: ['operation'],
      registers,
    });
  }

  /** Where the scrape-time figures come from; set once the daemon's parts exist. */
  setSources(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** The text Prometheus scrapes, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * One committed job change. `job` is the record as committed: a change alone cannot tell an
   * enqueue from an update, nor a claim from a progress report. A change another daemon on the
   * same PostgreSQL store made (`remote`) is that daemon's to count: counted here too, a job
   * enqueued on one daemon and completed on another would add up twice across the daemons.
   */
  jobChanged(change: JobChange, job: ChangedJob, origin: ChangeOrigin = 'local'): void {
    if (origin === 'remote') return;
    const labels = { queue: change.queue, kind: change.kind };
    if (change.deleted === true) {
      this.running.delete(change.id);
      return;
    }
    if (change.state === 'running') {
      // A claim writes started_at and updated_at with the same instant; a later progress report
      // or cancel request moves updated_at on. Jobs already tracked are not claimed again
      // without leaving running first.
      if (this.running.has(change.id) || job.startedAt === null || job.startedAt !== job.updatedAt) return;
      this.running.set(change.id, job.startedAt);
      const due = Math.max(job.runAt, job.createdAt);
      this.claimToStart.observe(labels, Math.max(0, job.startedAt - due) / 1000);
      return;
    }
    const startedAt = this.running.get(change.id);
    if (startedAt !== undefined) {
      // The attempt this daemon saw start has ended (completed, failed, cancelled, released).
      this.running.delete(change.id);
      this.runDuration.observe({ ...labels, outcome: change.state }, Math.max(0, job.updatedAt - startedAt) / 1000);
      if (change.state === 'retrying') this.failed.inc(labels);
    }
    if (change.state === 'completed') this.completed.inc(labels);
    else if (change.state === 'dead') {
      // A job is only dead by failing its last attempt, and a dead job changes again only by
      // being retried or deleted: every event in this state is a new death.
      this.failed.inc(labels);
      this.dead.inc(labels);
    } else if (change.state === 'queued' && job.attempts === 0 && job.startedAt === null && job.updatedAt === job.createdAt) {
      // Only the insert leaves a job never started with updated_at equal to created_at: an update
      // or a retry by hand is a later write (and a retry clears started_at but not created_at).
      this.enqueued.inc(labels);
    }
  }

  /**
   * The engine, with every operation that fails unexpectedly counted in
   * `spool_store_errors_total`. Refusals (a lost lease, a job in the wrong state, bad params)
   * are answers, not store errors; an internal error or an error from the driver is one.
   */
  watchStore<T extends object>(engine: T): T {
    const count = (operation: string, error: unknown): void => {
      if (error instanceof SpoolError && error.code !== ErrorCode.InternalError) return;
      this.storeErrors.inc({ operation });
    };
    const wrapped = this.wrapped;
    return new Proxy(engine, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function' || typeof key !== 'string') return value;
        let wrapper = wrapped.get(key);
        if (wrapper === undefined) {
          const operation = value as (...args: unknown[]) => unknown;
          wrapper = (...args: unknown[]): unknown => {
            try {
              const result = operation.apply(target, args);
              if (result instanceof Promise) {
                return result.catch((error: unknown) => {
                  count(key, error);
                  throw error;
                });
              }
              return result;
            } catch (error) {
              count(key, error);
              throw error;
            }
          };
          wrapped.set(key, wrapper);
        }
        return wrapper;
      },
    });
  }

  private source(): MetricsSources {
    if (this.sources === null) throw new Error('The metrics were scraped before the daemon finished starting.');
    return this.sources;
  }
}
