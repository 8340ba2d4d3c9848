/**
 * Which daemon on the database runs maintenance: the lease reaper and retention. On a store
 * shared by several daemons (PostgreSQL), one of them holds the `maintenance` lease and renews
 * it every RENEW_MS; if it dies, the lease runs out after TTL_MS and the next daemon to try takes
 * it, so maintenance stops for seconds at most. A daemon counts itself leader only until its
 * lease would run out by its own clock, less a margin, so that two daemons never both believe it
 * for long. On a store without leases (SQLite) every daemon is leader, as before, and nothing is
 * renewed: no timer and no transaction every RENEW_MS, so that an idle daemon stays idle.
 */
import type { Engine } from '../engine/engine';
import type { Logger } from './logger';

export const LEADER_TTL_MS = 5_000;
export const LEADER_RENEW_MS = 1_500;
/** A lease is counted as held until this long before it runs out (renewals that are late, clocks that drift). */
const MARGIN_MS = 1_000;

/** What the daemon does as leader, besides the upkeep's own reaping and retention. */
export interface LeaderDuties {
  /** This daemon has just become the leader: catch up at once (expired leases, dead daemons). */
  gained(): void;
  /** This daemon is still the leader, after a renewal: look again at what other daemons made due. */
  held(): void;
}

export class Leadership {
  private heldUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private leading = false;

  constructor(
    private readonly engine: Pick<Engine, 'holdLeadership'>,
    private readonly daemonId: string,
    private readonly logger: Logger,
    /**
     * The store keeps leases (several daemons may share it): the lease is renewed on a timer, and
     * the log says when it comes or goes. Without (SQLite) this daemon is always the leader.
     */
    private readonly leased: boolean,
    private readonly role = 'maintenance',
    private readonly duties: LeaderDuties | null = null,
  ) {}

  /** Whether this daemon may run maintenance now. */
  get isLeader(): boolean {
    return Date.now() < this.heldUntil;
  }

  /** Tries once now (so that a lone daemon maintains from its first tick), then every RENEW_MS. */
  async start(): Promise<void> {
    if (!this.leased) {
      // Nothing to take or renew: the store answers every daemon that it leads (leaderHold).
      this.heldUntil = Infinity;
      this.leading = true;
      this.duties?.gained();
      return;
    }
    await this.renew();
    this.timer = setInterval(() => void this.renew(), LEADER_RENEW_MS);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const asked = Date.now();
    let held = false;
    try {
      held = await this.engine.holdLeadership(this.role, this.daemonId, LEADER_TTL_MS);
    } catch (error) {
      // The store is away (logged by the store): the lease lapses by itself.
      this.logger.debug('Could not renew the maintenance lease', { error });
    }
    if (held) this.heldUntil = asked + LEADER_TTL_MS - MARGIN_MS;
    const leading = held;
    if (leading !== this.leading) {
      this.leading = leading;
      if (leading) this.duties?.gained();
      if (leading) this.logger.info('This daemon runs the maintenance of the store now (lease reaper, retention, recovery of dead daemons\' jobs)');
      else this.logger.info('Another daemon runs the maintenance of the store now');
    } else if (leading) {
      this.duties?.held();
    }
  }

  /** Gives the lease up (a clean stop), so another daemon takes it at its next try. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (!this.leading) return;
    this.heldUntil = 0;
    this.leading = false;
    if (!this.leased) return;
    await this.engine.holdLeadership(this.role, this.daemonId, 0).catch(() => undefined);
  }
}
