/**
 * Statements over schedules (see ./index.ts for the protocol). A schedule's job template is
 * stored as JSON text and given back as text: the engine parses it with its own validation
 * rather than trusting the store.
 */
import type { Schedule } from '../../../shared/types';

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
  /** JSON text of the template's parameters. */
  params: string | null;
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
}
