/**
 * Who is acting, for a job's history (`jobs.history`'s `who`): the RPC layer runs each call as
 * the one who made it (the Unix user on the socket, `token <name>` over TLS), and an engine
 * operation started in that call records it. What the daemon does on its own (the upkeep's
 * reaper and expiry, recovery) runs as `daemon`. Kept in async context rather than passed
 * through every engine method: the engine's API stays the protocol's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const acting = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) as `who`. */
export function actingAs<T>(who: string, fn: () => T): T {
  return acting.run(who, fn);
}

/** Who the current call acts for: `daemon` outside any call. */
export function currentActor(): string {
  return acting.getStore() ?? 'daemon';
}
