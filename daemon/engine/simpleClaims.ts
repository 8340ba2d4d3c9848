/**
 * Which workers' claims were lately found not simple (ops/claim.ts: a worker with a declared
 * capacity, or a queue with concurrency, a rate limit or groups), so that their next claims go the
 * long way at once instead of trying the one-statement claim first and paying a round trip for
 * it on PostgreSQL. Only a hint: a claim goes right either way. An entry is forgotten after
 * `forgetMs`, so a queue whose limits are lifted is claimed the short way again soon after.
 */
export class SimpleClaims {
  private readonly notSimpleAt = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly forgetMs = 10_000,
    private readonly most = 10_000,
  ) {}

  /** Whether a claim by `workerId` of `queues` should try the one-statement claim. */
  worthTrying(workerId: string, queues: readonly string[]): boolean {
    const key = keyOf(workerId, queues);
    const at = this.notSimpleAt.get(key);
    if (at === undefined) return true;
    const now = this.now();
    // A clock stepped back counts as forgotten too.
    if (now - at < this.forgetMs && now >= at) return false;
    this.notSimpleAt.delete(key);
    return true;
  }

  /** A claim by `workerId` of `queues` was found not simple. */
  notSimple(workerId: string, queues: readonly string[]): void {
    // Bounded by the claimers in use; a daemon with more than `most` of them at once starts over.
    if (this.notSimpleAt.size >= this.most) this.notSimpleAt.clear();
    this.notSimpleAt.set(keyOf(workerId, queues), this.now());
  }
}

function keyOf(workerId: string, queues: readonly string[]): string {
  return `${workerId}\u0000${queues.join('\u0000')}`;
}
