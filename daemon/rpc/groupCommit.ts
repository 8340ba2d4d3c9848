/**
 * Group commit. Writes that arrive in the same event-loop turn — a pipelined burst of enqueues,
 * a worker's batch of completes, several clients at once — run in one engine transaction
 * (`engine.batch`) instead of one each: a commit costs far more than the writes it holds, so
 * this is what lets single requests over the socket approach SQLite's batch speed (bench/daemon.ts
 * measures it with and without).
 *
 * Each write still answers on its own: inside the batch every engine call is a savepoint, so one
 * that fails (invalid params, a lost lease) undoes only itself and its caller gets its own error;
 * the others commit together. Events are delivered after the one commit.
 *
 * Ordering: the dispatcher flushes the group before it runs any method that is not grouped, so
 * a write is committed before any later request is handled.
 */
import { LIMITS } from '../../shared/protocol';
import type { QueueEngine } from '../engine/api';

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class WriteGroup {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly engine: QueueEngine,
    /** False (`--no-group-commit`): each write commits alone, at once. */
    private readonly enabled: boolean,
  ) {}

  /** Runs `write` (engine calls only, synchronous) in the current group; settles after the commit. */
  run<T>(write: () => T): Promise<T> | T {
    if (!this.enabled) return write();
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: write, resolve: (value) => resolve(value as T), reject });
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
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.engine.batch(() => {
        for (const p of group) {
          try {
            outcomes.push({ ok: true, value: p.run() });
          } catch (error) {
            // This write's savepoint was rolled back; the error goes to its own caller below.
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The shared commit itself failed (disk full, say): nothing of the group was stored.
      for (const p of group) p.reject(error);
      return;
    }
    group.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.error);
    });
  }
}
