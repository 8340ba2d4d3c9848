/**
 * Group commit for `jobs.enqueue`. Single enqueues that arrive in the same event-loop turn (one
 * pipelined burst, or several clients at once) are committed in one transaction instead of one
 * each: a commit costs far more than an insert, so this is what lets single enqueues over the
 * socket keep up with SQLite's batch speed (bench/daemon.ts measures both ways).
 *
 * Each enqueue still answers on its own: if the shared transaction fails (one job's params are
 * invalid, say), nothing of it was committed and every enqueue of the group is retried alone,
 * so each caller gets exactly its own result or its own error.
 *
 * Ordering: the dispatcher flushes the group before it runs any other method, so an enqueue is
 * committed before any request that arrived after it is handled.
 */
import { LIMITS, type EnqueueParams, type EnqueueResult } from '../../shared/protocol';
import type { QueueEngine } from '../engine/api';
import { unvalidated } from './unvalidated';

interface Pending {
  params: unknown;
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}

export class EnqueueGroup {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly engine: QueueEngine,
    private readonly enabled: boolean,
  ) {}

  enqueue(params: unknown): Promise<EnqueueResult> | EnqueueResult {
    if (!this.enabled) return this.engine.enqueue(unvalidated<EnqueueParams>(params));
    return new Promise((resolve, reject) => {
      this.pending.push({ params, resolve, reject });
      if (this.pending.length >= LIMITS.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is waiting, now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    if (group.length > 1) {
      let results: EnqueueResult[] | null = null;
      try {
        results = this.engine.enqueueBatch({ jobs: group.map((p) => unvalidated<EnqueueParams>(p.params)) }).results;
      } catch {
        // Deliberately not reported: the batch was rolled back as a whole, and each enqueue is
        // retried alone just below, where its own error (if any) goes back to its own caller.
        results = null;
      }
      if (results && results.length === group.length) {
        group.forEach((p, i) => p.resolve(results[i]));
        return;
      }
    }
    for (const p of group) {
      try {
        p.resolve(this.engine.enqueue(unvalidated<EnqueueParams>(p.params)));
      } catch (error) {
        p.reject(error);
      }
    }
  }
}
