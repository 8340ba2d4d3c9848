/**
 * What the daemon pushes to a connection that called `events.subscribe`: JSON-RPC
 * notifications (no `id`), each carrying the subscription's id. Declared once in
 * `NOTIFICATIONS`, like the methods; `Notifications`, `NOTIFICATION_NAMES`, the topics a
 * subscription may ask for (`EventTopic`, `EVENT_TOPICS`) and the params of `events.subscribe`
 * derive from it.
 */
import type { JobState, OutputLine } from './types';
import { namesOf, notification, type NotificationInfo, type ParamsOfNotification } from './define';
import type { Stats } from './messages';
import type { WorkflowRunChange } from './workflows';

/**
 * A job changed state, attempt or progress: the record the engine's change becomes on the wire.
 * `jobs.changed` carries it with the subscription's id.
 */
export interface JobChange {
  id: string;
  queue: string;
  kind: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  /** 0..100, or null when the worker reported none. */
  progress: number | null;
  /** When the job is due (epoch ms): in the future for a delayed or retrying job. */
  runAt: number;
  /** True when the job was deleted; state is its last state. */
  deleted?: boolean;
  /**
   * True when a cancel was requested for this running job; a worker (and the daemon's own
   * executors) stops the work on seeing it instead of waiting for its next heartbeat.
   */
  cancelRequested?: boolean;
  /** The workflow run the job belongs to, when a workflow made it. */
  workflowRunId?: string;
  /** When the change happened, epoch ms. */
  at: number;
  /**
   * True while a user has this running shell job paused (`jobs.pause`); the daemon running it
   * stops its processes on seeing it, and continues them when it turns false.
   */
  paused?: boolean;
}

/** The params of every notification: which subscription brought it. */
export interface SubscriptionScoped {
  subscriptionId: string;
}

/** `jobs.changed`: a job changed state, attempt or progress. */
export interface JobChangedEvent extends JobChange, SubscriptionScoped {}

/** `queues.changed`: a queue was created, configured, paused, resumed, purged or deleted. */
export interface QueueChangedEvent extends SubscriptionScoped {
  name: string;
  /** True when the queue was deleted. */
  deleted?: boolean;
  at: number;
}

/**
 * `schedules.changed`: a schedule was created, updated, enabled, disabled, deleted, triggered or
 * fired by the scheduler. A client showing schedules reads the one named again (or drops it when
 * `deleted`).
 */
export interface ScheduleChangedEvent extends SubscriptionScoped {
  name: string;
  /** True when the schedule was deleted. */
  deleted?: boolean;
  at: number;
}

/** `stats.changed`: coalesced, at most a few per second, carrying the new counts. */
export interface StatsChangedEvent extends SubscriptionScoped {
  stats: Stats;
}

/** `workflows.changed`: a workflow run started, its counts or state changed, or it ended. */
export interface WorkflowChangedEvent extends WorkflowRunChange, SubscriptionScoped {}

/** `jobs.output`: lines a running job wrote. */
export interface JobOutputEvent extends SubscriptionScoped {
  id: string;
  lines: OutputLine[];
}

/** Every notification the daemon sends, in the order the docs list them. */
export const NOTIFICATIONS = {
  'jobs.changed': notification<JobChangedEvent>()({
    topic: 'jobs',
    summary: 'A job changed state, attempt or progress.',
  }),
  'queues.changed': notification<QueueChangedEvent>()({
    topic: 'queues',
    summary: 'A queue was created, configured, paused, resumed, purged or deleted.',
  }),
  'schedules.changed': notification<ScheduleChangedEvent>()({
    topic: 'schedules',
    summary: 'A schedule was created, updated, enabled, disabled, triggered, fired or deleted.',
  }),
  'stats.changed': notification<StatsChangedEvent>()({
    topic: 'stats',
    summary: 'The `stats.get` result, at most one every 250 ms.',
  }),
  'workflows.changed': notification<WorkflowChangedEvent>()({
    topic: 'workflows',
    summary: "A workflow run started, its jobs' counts or its state changed, or it ended.",
    description: 'Changes that come together are sent as one, with the counts and state as they are after them. Not narrowed by `queues`: a run spans queues.',
  }),
  'jobs.output': notification<JobOutputEvent>()({
    topic: 'output',
    summary: 'Lines a job wrote.',
  }),
} as const satisfies Readonly<Record<string, NotificationInfo>>;

/** A notification's name. */
export type NotificationName = keyof typeof NOTIFICATIONS;

/** Every notification: name → params. */
export type Notifications = { [N in NotificationName]: ParamsOfNotification<(typeof NOTIFICATIONS)[N]> };

/** Every notification name, in the table's order. */
export const NOTIFICATION_NAMES: readonly NotificationName[] = namesOf(NOTIFICATIONS);

/**
 * The kinds of events a subscription can ask for: the topics the notifications table names
 * (`jobs` brings jobs.changed, `queues` queues.changed, `schedules` schedules.changed, `stats`
 * stats.changed, `workflows` workflows.changed, `output` jobs.output).
 */
export type EventTopic = (typeof NOTIFICATIONS)[NotificationName]['topic'];

/** Every topic, once each, in the order of the first notification that names it. */
export const EVENT_TOPICS: readonly EventTopic[] = [...new Set(NOTIFICATION_NAMES.map((name): EventTopic => NOTIFICATIONS[name].topic))];

/** Which events a subscription receives. */
export interface SubscribeParams {
  /** Default all topics. */
  topics?: EventTopic[];
  /** Only events of these queues (stats are not filtered). */
  queues?: string[];
  /** `output` events only for these jobs (output of every job is a lot). */
  jobIds?: string[];
}

/** The subscription's id; every notification it brings carries it. */
export interface SubscribeResult {
  subscriptionId: string;
}

/** The subscription to end. */
export interface UnsubscribeParams {
  subscriptionId: string;
}
