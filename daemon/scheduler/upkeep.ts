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
 * Due times are wall-clock times, but a timer counts monotonic time: after a forward jump of the
 * wall clock (a laptop waking from suspend) the timer would fire only after its remaining delay.
 * So no timer waits longer than MAX_TIMER_MS, and `noteDue` re-arms a timer whose wall-clock
 * moment has passed while its monotonic delay has not.
 *
 * On a store several daemons share, only the daemon holding the leader lease reaps and cleans;
 * every daemon fires schedules (each tick fires once, by compare-and-swap) and wakes its claims.
 *
 * Priority ageing runs on a timer of its own, leader only: a pass every interval of the shortest
 * ageing any queue has (at least a second apart, at most a minute), and at once after a queue's
 * ageing is set on this daemon (`ageSoon`).
 *
 * Retention cleanup runs on its own slow timer, in bounded batches with a turn of the event loop
 * between them, so that a large backlog of old jobs never blocks the event loop for long; it goes
 * on while batches come back full, so that it keeps up with however fast jobs finish.
 */
import type { Engine } from '../engine/engine';
import type { Logger } from '../lifecycle/logger';
import type { Scheduler } from './scheduler';

/**
 * The longest single wait. Longer ones are re-armed when reached; short enough that a jump of
 * the wall clock is noticed within a minute even when nothing calls `noteDue`.
 */
const MAX_TIMER_MS = 60_000;
/** Never re-arm sooner than this. */
const MIN_REARM_MS = 5;
/** How soon to look again at something that stayed due after a tick handled it. */
const RETRY_MS = 1000;
export const CLEANUP_INTERVAL_MS = 60_000;
const CLEANUP_BATCH = 500;
/** The longest wait between two ageing passes: a queue's ageing set on another daemon is picked up within it. */
export const AGEING_MAX_WAIT_MS = 60_000;
/** The shortest wait between two ageing passes (the shortest ageing interval allowed). */
const AGEING_MIN_WAIT_MS = 1000;

export class Upkeep {
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires, in wall-clock time (epoch ms), as due times are. */
  private timerAt = Infinity;
  /** When the timer fires, in monotonic time (performance.now), as setTimeout counts. */
  private timerDeadline = Infinity;
  /** When the last tick started (epoch ms). */
  private lastTickAt = -Infinity;
  private cleaning = false;
  private cleanupTimer: NodeJS.Timeout | null = null;
  private ageingTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private refreshScheduled = false;
  /** A tick is running (it awaits the engine): a timer that fires meanwhile waits for it. */
  private ticking = false;
  /** A timer fired while a tick was running: that tick runs once more when it ends. */
  private tickAgain = false;

  constructor(
    private readonly engine: Pick<Engine, 'reapExpiredLeases' | 'expireWaiting' | 'nextWakeAt' | 'cleanup' | 'ageWaiting'>,
    private readonly scheduler: Pick<Scheduler, 'fireDue'>,
    /** Delayed work may be due: wake waiting claims and the executors. */
    private readonly onDue: () => void,
    private readonly logger: Logger,
    /** The wall clock due times are read against. */
    private readonly now: () => number = Date.now,
    /**
     * Whether this daemon runs the store's maintenance (reaping expired leases, retention): on a
     * store shared by several daemons, only the one holding the leader lease (lifecycle/leadership.ts).
     */
    private readonly mayMaintain: () => boolean = () => true,
  ) {}

  start(): void {
    void this.tick();
    this.cleanupTimer = setInterval(() => void this.cleanup(), CLEANUP_INTERVAL_MS);
    this.cleanupTimer.unref();
    this.armAgeing(AGEING_MIN_WAIT_MS);
  }

  /** A queue's ageing changed: a pass now, and the next ones at its interval. */
  ageSoon(): void {
    this.armAgeing(0);
  }

  private armAgeing(delay: number): void {
    if (this.stopped) return;
    if (this.ageingTimer) clearTimeout(this.ageingTimer);
    this.ageingTimer = setTimeout(() => void this.age(), delay);
    this.ageingTimer.unref();
  }

  /** One ageing pass (leader only), then the next one armed at the shortest ageing interval. */
  private async age(): Promise<void> {
    this.ageingTimer = null;
    let wait = AGEING_MAX_WAIT_MS;
    if (this.mayMaintain()) {
      try {
        const pass = await this.engine.ageWaiting();
        if (pass.shortestEveryMs !== null) wait = Math.min(Math.max(pass.shortestEveryMs, AGEING_MIN_WAIT_MS), AGEING_MAX_WAIT_MS);
      } catch (error) {
        this.logger.error('Priority ageing failed; it runs again in a minute', { error });
      }
    }
    // A pass asked for meanwhile (ageSoon) armed a timer already: keep it.
    if (this.ageingTimer === null) this.armAgeing(wait);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.cleanupTimer) clearInterval(this.cleanupTimer);
    if (this.ageingTimer) clearTimeout(this.ageingTimer);
    this.ageingTimer = null;
    this.timer = null;
    this.cleanupTimer = null;
    this.timerAt = Infinity;
    this.timerDeadline = Infinity;
  }

  /** Something becomes due at `at` (epoch ms): make sure the timer fires no later than that. */
  noteDue(at: number): void {
    if (this.stopped) return;
    if (this.clockJumped()) {
      // What the timer waits for is due already by the wall clock: look at once.
      this.arm(Math.min(at, this.timerAt));
      return;
    }
    if (at >= this.timerAt) return;
    this.arm(at);
  }

  /**
   * The wall clock passed the timer's moment while its monotonic delay still has a while to run:
   * the wall clock jumped forward. (A timer merely late because the event loop was busy has
   * passed both, and is left alone: re-arming it would only push it further back.)
   */
  private clockJumped(): boolean {
    return this.timerAt < this.now() && this.timerDeadline - performance.now() > MIN_REARM_MS;
  }

  /** Re-reads the earliest due time (after a schedule or queue changed). */
  refresh(): void {
    this.refreshScheduled = false;
    if (this.stopped) return;
    this.engine.nextWakeAt().then(
      (next) => this.rearm(next),
      (error: unknown) => this.logger.error('Could not read the next due time', { error }),
    );
  }

  private rearm(due: number | null): void {
    if (this.stopped) return;
    // The due time was read asynchronously: a timer armed meanwhile for something earlier (by
    // noteDue) stays; firing once too often costs a tick, firing too late loses a wakeup.
    if (this.timer !== null && this.timerAt <= (due ?? Infinity)) return;
    let next = due;
    // Something that was due when the last tick ran and is due still: the tick failed to handle
    // it (and logged why), or another daemon holds it. The tick waits RETRY_MS before trying
    // again; so does this, or every short claim after a tick would make the timer fire again at
    // once, and the daemon would spin. A last tick in the future means the clock stepped back:
    // it says nothing about how recent the tick was.
    const sinceTick = this.now() - this.lastTickAt;
    if (next !== null && next <= this.lastTickAt && sinceTick >= 0 && sinceTick < RETRY_MS) next = this.lastTickAt + RETRY_MS;
    this.arm(next);
  }

  /**
   * `refresh`, once, at the end of this event-loop turn. Called when a claim came back with
   * fewer jobs than asked for: due work may be held back by a rate limit, whose next token only
   * the engine can tell, and without a timer for it the work would wait for an unrelated event.
   */
  refreshSoon(): void {
    if (this.refreshScheduled || this.stopped) return;
    this.refreshScheduled = true;
    setImmediate(() => this.refresh());
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.timerAt = Infinity;
    this.timerDeadline = Infinity;
    if (this.stopped) return;
    if (this.ticking) {
      // The running tick may have read the next due time before what this timer was armed for
      // (the engine answers asynchronously): it runs once more when it ends.
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.tickAgain = false;
        await this.tickOnce();
      } while (this.tickAgain && !this.stopped);
    } finally {
      this.ticking = false;
    }
  }

  private async tickOnce(): Promise<void> {
    this.lastTickAt = this.now();
    try {
      const reaped = this.mayMaintain() ? await this.engine.reapExpiredLeases() : 0;
      if (reaped > 0) this.logger.info('Reaped jobs whose lease expired', { count: reaped });
      const expired = this.mayMaintain() ? await this.engine.expireWaiting() : 0;
      if (expired > 0) this.logger.info('Ended jobs that expired before they started', { count: expired });
      await this.scheduler.fireDue();
      this.onDue();
    } catch (error) {
      this.logger.error('Upkeep failed; trying again at the next due time', { error });
    }
    if (this.stopped) return;
    let next: number | null = null;
    try {
      next = await this.engine.nextWakeAt();
    } catch (error) {
      this.logger.error('Could not read the next due time; checking again in a second', { error });
      next = this.now() + RETRY_MS;
    }
    // Still due right after everything due was handled: something failed (and was logged) or
    // another daemon holds it. Try again a little later rather than spin.
    if (next !== null && next <= this.now()) next = this.now() + RETRY_MS;
    // A timer armed during the tick (noteDue: a retry due in 100 ms, say) is for work this tick's
    // reading of the next due time may predate: an earlier one is kept, never pushed back.
    if (this.timer !== null && this.timerAt <= (next ?? Infinity)) return;
    this.arm(next);
  }

  private arm(at: number | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    this.timerDeadline = Infinity;
    if (at === null) return;
    const now = this.now();
    const delay = Math.min(Math.max(at - now, MIN_REARM_MS), MAX_TIMER_MS);
    this.timerAt = now + delay;
    this.timerDeadline = performance.now() + delay;
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  /**
   * Retention, now: batches of CLEANUP_BATCH jobs, each its own short transaction, with a turn of
   * the event loop between them so that claims and RPCs go on meanwhile, until a batch comes back
   * short. Resolves with how many jobs were deleted (0 when a cleanup was already running).
   */
  async cleanup(): Promise<number> {
    if (this.cleaning || !this.mayMaintain()) return 0;
    this.cleaning = true;
    let total = 0;
    try {
      while (!this.stopped) {
        const deleted = await this.engine.cleanup(CLEANUP_BATCH);
        total += deleted;
        if (deleted < CLEANUP_BATCH) break;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.logger.error('Retention cleanup failed; it runs again in a minute', { error });
    } finally {
      this.cleaning = false;
    }
    if (total > 0) this.logger.info('Retention cleanup deleted finished jobs', { count: total });
    return total;
  }
}
