/**
 * The daemon's clock against the database server's, on a store several daemons share
 * (PostgreSQL): leases, due times, heartbeats and fire times are written by each daemon's own
 * clock and read against the others', so daemons whose clocks disagree hand out work early or
 * late, and may take a live daemon for dead. The skew is measured at start and every
 * CLOCK_CHECK_MS, logged as a warning when it passes CLOCK_SKEW_WARN_MS (once, and once more
 * when it is back in step), and shown by `spool daemon status`.
 */
import type { Engine } from '../engine/engine';
import type { Logger } from './logger';
import { Repeat } from './repeat';
import { CLOCK_SKEW_WARN_MS, describeClockSkew } from '../../shared/domain/clock';

/** How often the skew is measured again. */
export const CLOCK_CHECK_MS = 30_000;

export class ClockWatch {
  /** The last measured skew (ms; positive: this daemon's clock is ahead); null before the first, or without a server clock. */
  skewMs: number | null = null;
  private warned = false;
  private readonly repeat: Repeat;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly logger: Logger,
    intervalMs = CLOCK_CHECK_MS,
  ) {
    this.repeat = new Repeat(() => this.measure(), intervalMs);
  }

  /** Measures now, then every interval; nothing for a store without a server clock (SQLite). */
  async start(): Promise<void> {
    if (!(await this.measure()) || this.stopped) return;
    this.repeat.start();
  }

  stop(): void {
    this.stopped = true;
    this.repeat.stop();
  }

  /** One measurement; false when the store has no server clock. A failure (the server is away) keeps the last value. */
  async measure(): Promise<boolean> {
    let skew: number | null;
    try {
      skew = await this.engine.clockSkew();
    } catch (error) {
      this.logger.debug('Could not compare the clock with the database server', { error });
      return true;
    }
    if (skew === null) return false;
    this.skewMs = skew;
    const off = Math.abs(skew) > CLOCK_SKEW_WARN_MS;
    if (off && !this.warned) {
      this.warned = true;
      this.logger.warn(
        `This daemon's clock is ${describeClockSkew(skew)} the database server's. Leases, due times and heartbeats are written by each daemon's clock and read by the others': keep every daemon's clock in step (NTP: chrony or systemd-timesyncd)`,
        { skewMs: skew },
      );
    } else if (!off && this.warned) {
      this.warned = false;
      this.logger.info("This daemon's clock is in step with the database server's again", { skewMs: skew });
    }
    return true;
  }
}
