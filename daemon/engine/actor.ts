/**
 * Who is acting, for a job's history (`jobs.history`'s `who`): the RPC layer runs each call as
 * the one who made it (the Unix user on the socket, `token <name>` over TLS), and an engine
 * operation started in that call records it. What the daemon does on its own (the upkeep's
 * reaper and expiry, recovery) runs as `daemon`. Kept beside the calls rather than passed
 * through every engine method: the engine's API stays the protocol's.
 *
 * The actor is set for the synchronous part of a call only: an engine method reads it before
 * its first await (`Engine.write` when it is called; a method of several transactions, such as a
 * bulk action, once at its start), and the group commit keeps each write's actor for the moment
 * it runs the write. Why not AsyncLocalStorage, which would carry it across awaits: on Node 20 it
 * turns on a hook for every promise the daemon creates, a cost on every request (BENCHMARKS.md,
 * "Wake latency").
 */
let current: string | undefined;

/** Runs `fn` as `who`: engine calls `fn` starts before its first await act for `who`. */
export function actingAs<T>(who: string, fn: () => T): T {
  const outer = current;
  current = who;
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** Who the current call acts for: `daemon` outside any call. */
export function currentActor(): string {
  return current ?? 'daemon';
}
