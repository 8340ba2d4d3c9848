/**
 * What the TLS listener does about peers that have not logged in: how many login attempts a
 * connection gets, how fast one address may fail, and how refusals reach the log. A token is
 * 256 random bits, so guessing is hopeless; what must be bounded is the work and the log a peer
 * can cause. One connection sent 20 batches of 1,000 wrong logins: 20,000 log lines in 1.4 s.
 *
 * - Before login, a batch is refused (a login is one request on its own).
 * - A connection gets MAX_LOGIN_ATTEMPTS logins; after that many failures it is closed.
 * - One address may fail FAILED_LOGIN_BURST logins, then one more every FAILED_LOGIN_REFILL_MS;
 *   beyond that its logins are refused without being checked and the connection is closed.
 * - The log gets the first refusal of each kind from each address in a minute, then one line a
 *   minute saying how many there were ("Refused 1,000 logins from 127.0.0.1 in the last minute").
 */
import type { Logger } from '../lifecycle/logger';

/** Logins a connection may try; after this many failures it is closed. */
export const MAX_LOGIN_ATTEMPTS = 3;
/** Failed logins an address may make at once before it is slowed down. */
export const FAILED_LOGIN_BURST = 30;
/** After the burst, one more failed login is allowed per this many ms (30 a minute). */
export const FAILED_LOGIN_REFILL_MS = 2000;
/** How often the counts of repeated refusals are logged. */
const SUMMARY_EVERY_MS = 60_000;

/** Refusals that can come in floods, each logged once per address per minute, then counted. */
export type RefusalKind = 'login' | 'throttled' | 'evicted' | 'late' | 'oversized';

/** The summary line of each kind: "<verb> <count> <what> from <address> in the last minute". */
const SUMMARY: Record<RefusalKind, (count: string, source: string) => string> = {
  login: (n, s) => `Refused ${n} logins with a wrong token from ${s} in the last minute`,
  throttled: (n, s) => `Refused ${n} logins from ${s} unchecked in the last minute: too many failed logins from that address`,
  evicted: (n, s) => `Closed ${n} connections from ${s} that had not logged in yet in the last minute, to make room for newer ones`,
  late: (n, s) => `Closed ${n} connections from ${s} that did not log in in time in the last minute`,
  oversized: (n, s) => `Closed ${n} connections from ${s} that sent a line over the limit before logging in, in the last minute`,
};

interface Bucket {
  tokens: number;
  at: number;
}

export class LoginGuard {
  /** Failed-login allowance per address. */
  private readonly buckets = new Map<string, Bucket>();
  /** Refusals per kind and address since the last summary. */
  private readonly counts = new Map<string, { kind: RefusalKind; source: string; count: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.timer = setInterval(() => this.summarize(), SUMMARY_EVERY_MS);
    this.timer.unref();
  }

  /** Ms until `source` may try a login again, or 0 when it may now. */
  waitBeforeLogin(source: string): number {
    const bucket = this.bucket(source);
    return bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) * FAILED_LOGIN_REFILL_MS);
  }

  /** A login from `source` failed: it uses up one of the address's allowance. */
  failed(source: string): void {
    const bucket = this.bucket(source);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
  }

  /**
   * Logs a refusal: the first of its kind from `source` since the last summary in full (`message`
   * and `fields`), the rest only counted, for the summary.
   */
  refused(kind: RefusalKind, source: string, message: string, fields: Record<string, unknown>): void {
    const key = `${kind} ${source}`;
    const seen = this.counts.get(key);
    if (seen) {
      seen.count++;
      return;
    }
    this.counts.set(key, { kind, source, count: 1 });
    this.logger.warn(message, fields);
  }

  /** Logs how many refusals each address had since the last summary, where more than the one logged. */
  summarize(): void {
    for (const { kind, source, count } of this.counts.values()) {
      if (count > 1) this.logger.warn(SUMMARY[kind](count.toLocaleString('en-US'), source), { remote: source, count });
    }
    this.counts.clear();
    // Addresses back at their full allowance need no bucket.
    for (const [source, bucket] of this.buckets) {
      if (this.refill(bucket) >= FAILED_LOGIN_BURST) this.buckets.delete(source);
    }
  }

  /** At shutdown: the counts so far are logged. */
  close(): void {
    clearInterval(this.timer);
    this.summarize();
  }

  private bucket(source: string): Bucket {
    let bucket = this.buckets.get(source);
    if (!bucket) {
      bucket = { tokens: FAILED_LOGIN_BURST, at: this.now() };
      this.buckets.set(source, bucket);
    }
    this.refill(bucket);
    return bucket;
  }

  private refill(bucket: Bucket): number {
    const now = this.now();
    bucket.tokens = Math.min(FAILED_LOGIN_BURST, bucket.tokens + (now - bucket.at) / FAILED_LOGIN_REFILL_MS);
    bucket.at = now;
    return bucket.tokens;
  }
}
