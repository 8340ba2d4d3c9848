/**
 * The daemon's clock. One timer, set to the earliest moment something becomes due — a delayed or
 * retrying job, a lease expiry, a schedule tick — as the engine reports it (`nextWakeAt`). When it
 * fires: expired leases are reaped, due schedules fire, and waiting claimers and the built-in
 * executors are told to look for work; then the timer is set again. Between those moments the
 * daemon sleeps: no polling, so an idle daemon uses no CPU.
 *
 * Events that bring a due time closer (a job enqueued with a delay, a fresh lease) call `noteDue`,
 * which only ever moves the timer earlier; when it fires, the engine's answer is authoritative.
 *
 * Retention cleanup runs on its own slow timer, in bounded batches so that a large backlog of
 * old jobs never blocks the event loop for long.
 */
import type { QueueEngine } from '../engine/api';
import type { Logger } from '../lifecycle/logger';
import type { Scheduler } from './scheduler';

/** setTimeout's limit is ~24.8 days; longer waits are re-armed when reached. */
const MAX_TIMER_MS = 6 * 3600 * 1000;
/** Never re-arm sooner than this. */
const MIN_REARM_MS = 5;
/** How soon to look again at something that stayed due after a tick handled it. */
const RETRY_MS = 1000;
export const CLEANUP_INTERVAL_MS = 60_000;
const CLEANUP_BATCH = 500;
const CLEANUP_BATCHES_PER_TURN = 20;

export class Upkeep {
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private cleanupTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private refreshScheduled = false;

  constructor(
    private readonly engine: QueueEngine,
    private readonly scheduler: Scheduler,
    /** Delayed work may be due: wake waiting claims and the executors. */
    private readonly onDue: () => void,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.tick();
    this.cleanupTimer = setInterval(() => this.cleanup(), CLEANUP_INTERVAL_MS);
    this.cleanupTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.cleanupTimer) clearInterval(this.cleanupTimer);
    this.timer = null;
    this.cleanupTimer = null;
  }

  /** Something becomes due at `at` (epoch ms): make sure the timer fires no later than that. */
  noteDue(at: number): void {
    if (this.stopped || at >= this.timerAt) return;
    this.arm(at);
  }

  /** Re-reads the earliest due time (after a schedule or queue changed). */
  refresh(): void {
    this.refreshScheduled = false;
    if (this.stopped) return;
    this.arm(this.engine.nextWakeAt());
  }

  /**
   * `refresh`, once, at the end of this event-loop turn. Called when a claim came back with
   * fewer jobs than asked for: due work may be held back by a rate limit, whose next token only
   * the engine can tell, and without a timer for it the work would wait for an unrelated event.
   */
  refreshSoon(): void {
    if (this.refreshScheduled || this.stopped) return;
    this.refreshScheduled = true;
    setImmediate(() => {
      try {
        this.refresh();
      } catch (error) {
        this.logger.error('Could not read the next due time', { error });
      }
    });
  }

  private tick(): void {
    this.timer = null;
    this.timerAt = Infinity;
    if (this.stopped) return;
    try {
      const reaped = this.engine.reapExpiredLeases();
      if (reaped > 0) this.logger.info('Reaped jobs whose lease expired', { count: reaped });
      this.scheduler.fireDue();
      this.onDue();
    } catch (error) {
      this.logger.error('Upkeep failed; trying again at the next due time', { error });
    }
    let next: number | null = null;
    try {
      next = this.engine.nextWakeAt();
    } catch (error) {
      this.logger.error('Could not read the next due time; checking again in a second', { error });
      next = Date.now() + RETRY_MS;
    }
    // Still due right after everything due was handled: something failed (and was logged) or
    // another daemon holds it. Try again a little later rather than spin.
    if (next !== null && next <= Date.now()) next = Date.now() + RETRY_MS;
    this.arm(next);
  }

  private arm(at: number | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    if (at === null) return;
    const delay = Math.min(Math.max(at - Date.now(), MIN_REARM_MS), MAX_TIMER_MS);
    this.timerAt = Date.now() + delay;
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref();
  }

  private cleanup(): void {
    let total = 0;
    try {
      for (let i = 0; i < CLEANUP_BATCHES_PER_TURN; i++) {
        const deleted = this.engine.cleanup(CLEANUP_BATCH);
        total += deleted;
        if (deleted < CLEANUP_BATCH) break;
      }
    } catch (error) {
      this.logger.error('Retention cleanup failed; it runs again in a minute', { error });
    }
    if (total > 0) this.logger.info('Retention cleanup deleted finished jobs', { count: total });
  }
}
