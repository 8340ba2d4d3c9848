/**
 * Subscriptions and the notifications they receive. A client calls `events.subscribe` with an
 * optional filter (topics, queues, job ids); engine events are forwarded to the matching
 * subscriptions of every connection. `stats.changed` is coalesced: a burst of job changes
 * produces at most one stats notification per STATS_INTERVAL_MS, and stats are only computed
 * when somebody listens for them.
 */
import { randomUUID } from 'node:crypto';
import { invalidParams } from '../../shared/protocol/errors';
import { EVENT_TOPICS, type EventTopic, type Notifications, type NotificationName, type Stats, type SubscribeParams } from '../../shared/protocol';
import type { OutputLine } from '../../shared/protocol/types';
import type { JobChange } from '../../shared/protocol';
import type { WorkflowRun } from '../../shared/protocol/workflows';
import type { Logger } from '../lifecycle/logger';
import type { RpcConnection } from './connection';

/** At most this many `stats.changed` per second and subscription: ~4/s. */
export const STATS_INTERVAL_MS = 250;
/** Changes of one workflow run within this long are sent as one `workflows.changed`. */
export const WORKFLOW_INTERVAL_MS = 100;
/** Subscriptions one connection may hold. */
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 64;

interface Subscription {
  id: string;
  connection: RpcConnection;
  topics: ReadonlySet<EventTopic>;
  queues: ReadonlySet<string> | null;
  jobIds: ReadonlySet<string> | null;
}

export class EventHub {
  private readonly subscriptions = new Map<string, Subscription>();
  /** Subscription ids of each connection; dropped with it (one close listener per connection). */
  private readonly byConnection = new Map<RpcConnection, Set<string>>();
  private statsTimer: NodeJS.Timeout | null = null;
  private lastStatsAt = 0;
  private statsDirty = false;
  /** Runs whose jobs changed since the last `workflows.changed` went out. */
  private readonly touchedRuns = new Set<string>();
  private runsTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly readStats: () => Promise<Stats>,
    private readonly logger: Logger,
    /** A run as it is now, for `workflows.changed`; absent: none is sent. */
    private readonly readRun?: (id: string) => Promise<WorkflowRun>,
  ) {}

  subscribe(connection: RpcConnection, params: SubscribeParams): string {
    let owned = this.byConnection.get(connection);
    if (!owned) {
      const ids = (owned = new Set());
      this.byConnection.set(connection, ids);
      connection.onClose(() => {
        this.byConnection.delete(connection);
        for (const id of ids) this.subscriptions.delete(id);
      });
    }
    if (owned.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      const error = invalidParams('subscriptionId', `A connection may hold at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions; unsubscribe some first.`);
      error.data.limit = MAX_SUBSCRIPTIONS_PER_CONNECTION;
      throw error;
    }
    const id = randomUUID();
    const subscription: Subscription = {
      id,
      connection,
      topics: new Set(params.topics && params.topics.length > 0 ? params.topics : EVENT_TOPICS),
      queues: params.queues && params.queues.length > 0 ? new Set(params.queues) : null,
      jobIds: params.jobIds && params.jobIds.length > 0 ? new Set(params.jobIds) : null,
    };
    this.subscriptions.set(id, subscription);
    owned.add(id);
    return id;
  }

  /** Returns false when the connection holds no subscription with that id. */
  unsubscribe(connection: RpcConnection, subscriptionId: string): boolean {
    const subscription = this.subscriptions.get(subscriptionId);
    if (!subscription || subscription.connection !== connection) return false;
    this.subscriptions.delete(subscriptionId);
    this.byConnection.get(connection)?.delete(subscriptionId);
    return true;
  }

  get size(): number {
    return this.subscriptions.size;
  }

  /** True while some subscription receives the output of job `jobId` of `queue`. */
  wantsOutput(jobId: string, queue: string): boolean {
    for (const s of this.subscriptions.values()) {
      if (s.topics.has('output') && (!s.jobIds || s.jobIds.has(jobId)) && (!s.queues || s.queues.has(queue))) return true;
    }
    return false;
  }

  /** True while some subscription receives `jobs.changed`. */
  wantsJobs(): boolean {
    for (const s of this.subscriptions.values()) if (s.topics.has('jobs')) return true;
    return false;
  }

  jobChanged(change: JobChange): void {
    if (this.subscriptions.size === 0) return;
    this.markStatsDirty();
    if (change.workflowRunId !== undefined) this.workflowTouched(change.workflowRunId);
    for (const s of this.subscriptions.values()) {
      if (!s.topics.has('jobs') || (s.queues && !s.queues.has(change.queue))) continue;
      this.notify(s, 'jobs.changed', { ...change, subscriptionId: s.id });
    }
  }

  queueChanged(name: string, deleted: boolean, at: number): void {
    if (this.subscriptions.size === 0) return;
    this.markStatsDirty();
    for (const s of this.subscriptions.values()) {
      if (!s.topics.has('queues') || (s.queues && !s.queues.has(name))) continue;
      this.notify(s, 'queues.changed', { subscriptionId: s.id, name, ...(deleted ? { deleted: true } : {}), at });
    }
  }

  /**
   * A schedule changed (or was deleted). Not narrowed by `queues`: a schedule's queue can change,
   * and a deleted one has none left to match, so a subscriber would miss the change it cares about.
   */
  scheduleChanged(name: string, deleted: boolean, at: number): void {
    if (this.subscriptions.size === 0) return;
    for (const s of this.subscriptions.values()) {
      if (!s.topics.has('schedules')) continue;
      this.notify(s, 'schedules.changed', { subscriptionId: s.id, name, ...(deleted ? { deleted: true } : {}), at });
    }
  }

  /**
   * A job of a run changed: its counts (or state) may have. The runs touched within
   * WORKFLOW_INTERVAL_MS are read once each, after the burst, and sent as they are then.
   */
  workflowTouched(id: string): void {
    if (this.readRun === undefined || ![...this.subscriptions.values()].some((s) => s.topics.has('workflows'))) return;
    this.touchedRuns.add(id);
    if (this.runsTimer) return;
    this.runsTimer = setTimeout(() => this.flushRuns(), WORKFLOW_INTERVAL_MS);
    this.runsTimer.unref();
  }

  private flushRuns(): void {
    this.runsTimer = null;
    const read = this.readRun;
    if (read === undefined) return;
    const ids = [...this.touchedRuns];
    this.touchedRuns.clear();
    for (const id of ids) {
      read(id).then(
        (run) => {
          for (const s of this.subscriptions.values()) {
            if (!s.topics.has('workflows')) continue;
            this.notify(s, 'workflows.changed', { subscriptionId: s.id, id: run.id, workflow: run.workflow, state: run.state, counts: run.counts, at: Date.now() });
          }
        },
        // A run deleted meanwhile (retention) has nothing left to tell.
        (error: unknown) => this.logger.debug('Could not read a workflow run for workflows.changed', { id, error }),
      );
    }
  }

  /** Output of a job of `queue`, filtered by queue and job id as jobs.changed is. */
  output(jobId: string, queue: string, lines: OutputLine[]): void {
    if (this.subscriptions.size === 0 || lines.length === 0) return;
    for (const s of this.subscriptions.values()) {
      if (!s.topics.has('output')) continue;
      if (s.jobIds && !s.jobIds.has(jobId)) continue;
      if (s.queues && !s.queues.has(queue)) continue;
      this.notify(s, 'jobs.output', { subscriptionId: s.id, id: jobId, lines });
    }
  }

  /** Something counted changed: send stats soon, but never more often than every STATS_INTERVAL_MS. */
  markStatsDirty(): void {
    this.statsDirty = true;
    if (this.statsTimer) return;
    const wait = Math.max(0, this.lastStatsAt + STATS_INTERVAL_MS - Date.now());
    this.statsTimer = setTimeout(() => this.flushStats(), wait);
    this.statsTimer.unref();
  }

  close(): void {
    if (this.statsTimer) clearTimeout(this.statsTimer);
    this.statsTimer = null;
    if (this.runsTimer) clearTimeout(this.runsTimer);
    this.runsTimer = null;
    this.touchedRuns.clear();
    this.subscriptions.clear();
    this.byConnection.clear();
  }

  private flushStats(): void {
    this.statsTimer = null;
    if (!this.statsDirty) return;
    this.statsDirty = false;
    if (![...this.subscriptions.values()].some((s) => s.topics.has('stats'))) return;
    this.lastStatsAt = Date.now();
    this.readStats().then(
      (stats) => {
        // Read again: a subscription may have ended while the stats were read.
        for (const s of this.subscriptions.values()) if (s.topics.has('stats')) this.notify(s, 'stats.changed', { subscriptionId: s.id, stats });
      },
      (error: unknown) => this.logger.error('Could not read stats for stats.changed', { error }),
    );
  }

  private notify<N extends NotificationName>(subscription: Subscription, method: N, params: Notifications[N]): void {
    subscription.connection.send({ jsonrpc: '2.0', method, params });
  }
}
