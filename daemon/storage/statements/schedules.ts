/**
 * Statements over schedules (see ./index.ts for the protocol): reading and writing them, and a
 * tick's fire — the compare-and-swap on next_run_at and the records that make a fire happen
 * once. A schedule's job template is stored as JSON text and given back as text: the engine
 * parses it with its own validation rather than trusting the store.
 */
import type { Schedule } from '../../../shared/protocol/types';

/** A schedule as a store holds it: its job template as the stored JSON text, with its owner joined in. */
export type StoredSchedule = Omit<Schedule, 'job'> & { job: string };

/** A schedule's columns as a store's insert and update write them. */
export type ScheduleWrite = {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  /** JSON text of the job template. */
  job: string;
  enabled: number;
  missedPolicy: string;
  nextRunAt: number | null;
  now: number;
  /** Set by apply; a hand-made schedule keeps 'allow' and no template. */
  overlapPolicy: string;
  template: string | null;
  /** JSON text of the template's parameters (or the workflow's). */
  params: string | null;
  /** The workflow a fire starts a run of, set by apply; null for a schedule that enqueues its job. */
  workflow: string | null;
};

/** A tick's compare-and-swap on next_run_at. */
export type ScheduleSwap = {
  name: string;
  /** The next_run_at the scheduler read; the swap happens only if it is still the stored one. */
  expectedNextRunAt: number;
  newNextRunAt: number | null;
  /** The tick enqueues (false when the missed-run policy skips it). */
  enqueue: boolean;
  now: number;
};

export interface ScheduleSql {
  /** One schedule, or undefined. */
  scheduleGet(name: string): StoredSchedule | undefined;
  /**
   * One schedule, its row locked for the rest of the transaction (PostgreSQL: FOR UPDATE), so
   * that a tick of another daemon waits and its compare-and-swap then sees what this writes.
   */
  scheduleGetForUpdate(name: string): StoredSchedule | undefined;
  /** Every schedule, by name. */
  scheduleList(): StoredSchedule[];
  /** Inserts a schedule; false when one with that name exists. */
  scheduleInsert(w: ScheduleWrite): boolean;
  /** Rewrites a schedule's columns. */
  scheduleUpdate(w: ScheduleWrite): void;
  /** Deletes a schedule (and what the store keeps of its fires); false if there was none. */
  scheduleDelete(name: string): boolean;
  /** True when next_run_at still was `expectedNextRunAt` and now is `newNextRunAt`. */
  scheduleSwapNextRun(p: ScheduleSwap): boolean;
  /**
   * Records the fire of (schedule, fire time) and moves last_run_at to `now`; false when that
   * fire was recorded already, and then nothing changes.
   */
  scheduleRecordFire(p: { name: string; fireAt: number; now: number }): boolean;
  /** The job the fire of (schedule, fire time) enqueued, on its record. */
  scheduleFireSetJob(p: { name: string; fireAt: number; jobId: string }): void;
  /** The job the schedule enqueued last (its overlap policy looks at it). */
  scheduleSetLastJob(p: { name: string; jobId: string }): void;
  /** The workflow run the schedule started last (its overlap policy looks at it). */
  scheduleSetLastRun(p: { name: string; runId: string }): void;
}
