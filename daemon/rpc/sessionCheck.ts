/**
 * Sessions logged in over TLS are checked against the stored tokens every second. A revoke
 * closes its sessions at once on the daemon that made it and, through the store's notice, on
 * every other daemon of a shared store; this check closes them on a daemon that missed the
 * notice (its listening connection was down, or the notice was lost), within about a second.
 * It reads the tokens only while some connection is logged in over TLS.
 */
import type { Logger } from '../lifecycle/logger';
import { Repeat } from '../lifecycle/repeat';
import type { RpcServer } from './server';

/** How often logged-in sessions are checked against the stored tokens. */
export const SESSION_CHECK_MS = 1000;

export class SessionCheck {
  private readonly repeat: Repeat;

  constructor(
    private readonly server: RpcServer,
    /** The tokens stored now (name and hash). */
    private readonly stored: () => Promise<readonly { name: string; hash: string }[]>,
    private readonly logger: Logger,
    intervalMs = SESSION_CHECK_MS,
  ) {
    this.repeat = new Repeat(() => this.check(), intervalMs);
  }

  start(): void {
    this.repeat.start();
  }

  stop(): void {
    this.repeat.stop();
  }

  /** Closes the sessions whose token is no longer stored as it was at their login. */
  async check(): Promise<void> {
    if (!this.server.hasLogins()) return;
    let tokens: readonly { name: string; hash: string }[];
    try {
      tokens = await this.stored();
    } catch (error) {
      // The store is away: nothing can be revoked meanwhile either; the next check tries again.
      this.logger.debug('Could not check the logged-in sessions against the stored tokens', { error });
      return;
    }
    const closed = this.server.closeLoginsNotIn(tokens);
    if (closed.length > 0) this.logger.info('Closed sessions whose token was revoked', { tokens: [...new Set(closed)] });
  }
}
