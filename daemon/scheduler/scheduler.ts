/**
 * Fires schedules. The upkeep timer calls `fireDue` when the earliest `next_run_at` comes; each
 * due schedule is advanced with the engine's compare-and-swap on `next_run_at`, in the same
 * transaction as the enqueue, so two daemons on one database fire each tick once in total: the
 * one whose swap fails simply reads the new value next time.
 *
 * Missed ticks: a tick overdue by more than `graceMs` (the daemon was down, or the machine
 * slept) follows the schedule's policy — `skip` advances without enqueuing, `runOnce` enqueues
 * one job for all the missed ticks. Either way `next_run_at` moves to the first tick after now,
 * so a long outage never produces a burst.
 */
import type { Schedule } from '../../shared/protocol/types';
import type { Engine } from '../engine/engine';
import type { Logger } from '../lifecycle/logger';
import { nextFireTime } from '../../shared/domain/cron';

export interface FireOutcome {
  fired: number;
  skipped: number;
}

/** A wall clock that gained this much less than the monotonic clock since the last look went back. */
const CLOCK_STEP_MS = 1000;

export class Scheduler {
  /** The wall and monotonic clocks at the last fireDue, to notice a step back of the wall clock. */
  private lastWall: number | null = null;
  private lastMonotonic = 0;

  constructor(
    private readonly engine: Engine,
    private readonly graceMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** Told of each schedule a fire (or a skipped tick) moved, for the daemon to publish `schedules.changed`. */
    private readonly changed: (name: string) => void = () => undefined,
  ) {}

  async fireDue(): Promise<FireOutcome> {
    const now = this.now();
    // Ticks stored before a step back of the clock are looked at on the first call (the step may
    // have happened while the daemon was down) and after a step; not on every wake-up, since
    // computing a tick for each schedule that is not due costs more than the rest of the call.
    const wentBack = this.clockWentBack(now);
    const outcome: FireOutcome = { fired: 0, skipped: 0 };
    for (const schedule of await this.engine.listSchedules()) {
      if (!schedule.enabled || schedule.nextRunAt === null) continue;
      try {
        if (schedule.nextRunAt > now) {
          if (wentBack) await this.followClockBack(schedule, schedule.nextRunAt, now);
        } else await this.fireOne(schedule, schedule.nextRunAt, now, outcome);
      } catch (error) {
        // One broken schedule must not stop the others; it is retried at the next wake-up.
        this.logger.error('Could not fire a schedule', { schedule: schedule.name, error });
      }
    }
    return outcome;
  }

  private clockWentBack(now: number): boolean {
    const monotonic = performance.now();
    const wentBack = this.lastWall === null || now - this.lastWall < monotonic - this.lastMonotonic - CLOCK_STEP_MS;
    this.lastWall = now;
    this.lastMonotonic = monotonic;
    return wentBack;
  }

  /**
   * A stored next tick later than the first tick after now means the clock went back (an NTP
   * step, a resumed snapshot) after that tick was computed: left alone, the schedule would stay
   * silent until the clock caught up again. The tick is moved down to the first one after now,
   * with the same compare-and-swap as a fire and no job.
   */
  private async followClockBack(schedule: Schedule, stored: number, now: number): Promise<void> {
    const next = nextFireTime(schedule, now);
    if (next === null || next >= stored) return;
    const moved = await this.engine.fireSchedule({ name: schedule.name, expectedNextRunAt: stored, newNextRunAt: next, enqueue: false });
    if (moved === null) return; // Another daemon on the same database moved or fired it.
    this.changed(schedule.name);
    this.logger.info('The clock went back; the schedule\'s next tick moved earlier', {
      schedule: schedule.name,
      from: new Date(stored).toISOString(),
      to: new Date(next).toISOString(),
    });
  }

  private async fireOne(schedule: Schedule, due: number, now: number, outcome: FireOutcome): Promise<void> {
    const missed = now - due > this.graceMs;
    const enqueue = !missed || schedule.missedPolicy === 'runOnce';
    let newNextRunAt: number | null;
    try {
      newNextRunAt = nextFireTime(schedule, now);
    } catch (error) {
      // The expression was valid when stored; a time zone database change could break it. Stop
      // the schedule rather than fire it on every wake-up.
      this.logger.error('A stored cron expression no longer parses; the schedule stops firing until it is updated', {
        schedule: schedule.name,
        cron: schedule.cron,
        error,
      });
      newNextRunAt = null;
    }
    const fired = await this.engine.fireSchedule({ name: schedule.name, expectedNextRunAt: due, newNextRunAt, enqueue });
    if (fired === null) return; // Another daemon on the same database fired this tick.
    this.changed(schedule.name);
    if (enqueue) outcome.fired++;
    else outcome.skipped++;
    const log = enqueue ? this.logger.debug : this.logger.info;
    log(enqueue ? 'Schedule fired' : 'Schedule tick missed and skipped', {
      schedule: schedule.name,
      due: new Date(due).toISOString(),
      job: fired.job?.id ?? null,
      next: newNextRunAt === null ? null : new Date(newNextRunAt).toISOString(),
    });
  }
}
