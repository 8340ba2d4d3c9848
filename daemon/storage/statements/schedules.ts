/**
 * Statements over schedules (see ./index.ts for the protocol): reading one, and a tick's fire —
 * the compare-and-swap on next_run_at and the records that make a fire happen once.
 */

import type { Schedule } from '../../../shared/types';

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
  /** One schedule, with its owner, or undefined. */
  scheduleGet(name: string): Schedule | undefined;
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
}
