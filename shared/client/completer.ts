/**
 * Completes a worker's jobs in batches. Completes asked for in the same turn of the event loop
 * (handlers that finish together, as a busy worker's do) go to the daemon as one
 * `jobs.completeMany`: one request and one transaction, and no job sent back, instead of one
 * `jobs.complete` each. A complete alone is sent as `jobs.complete`, as before.
 *
 * Each caller gets the outcome its own `jobs.complete` would have had: it resolves once the job
 * is completed, or rejects with the job's error (LeaseLost, JobNotFound), or with the request's
 * (the connection was lost, the store is away) for the caller to retry. A batch the daemon refuses
 * as a whole (a result over the size limit: each job must learn its own refusal) is sent again one
 * job at a time, and so is every batch to a daemon older than `jobs.completeMany`.
 */
import { ErrorCode, LIMITS } from '../protocol';
import { SpoolError } from '../protocol/errors';
import type { SpoolClient } from './client';

interface Waiting {
  id: string;
  result: unknown;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class Completer {
  private waiting: Waiting[] = [];
  private scheduled = false;
  /** False once the daemon did not know jobs.completeMany: an older daemon. */
  private batches = true;

  constructor(
    private readonly client: SpoolClient,
    private readonly workerId: string,
  ) {}

  /** Completes job `id` with `result` (undefined: none); see the class comment for the outcome. */
  complete(id: string, result: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ id, result, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.waiting.splice(0, LIMITS.maxBatch);
      if (this.waiting.length > 0) this.schedule();
      void this.send(batch);
    });
  }

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1 || !this.batches) {
      await Promise.all(batch.map((w) => this.one(w)));
      return;
    }
    let answer;
    try {
      const jobs = batch.map((w) => (w.result === undefined ? { id: w.id } : { id: w.id, result: w.result }));
      answer = await this.client.call('jobs.completeMany', { workerId: this.workerId, jobs });
    } catch (error) {
      const code = error instanceof SpoolError ? error.code : null;
      if (code === ErrorCode.MethodNotFound || code === ErrorCode.InvalidParams || code === ErrorCode.PayloadTooLarge) {
        if (code === ErrorCode.MethodNotFound) this.batches = false;
        await Promise.all(batch.map((w) => this.one(w)));
        return;
      }
      for (const w of batch) w.reject(error);
      return;
    }
    const failed = new Map(answer.failed.map((f) => [f.id, f]));
    for (const w of batch) {
      const failure = failed.get(w.id);
      if (failure === undefined) w.resolve();
      else w.reject(new SpoolError(failure.code, failure.message, { id: w.id }));
    }
  }

  private one(w: Waiting): Promise<void> {
    const params = { id: w.id, workerId: this.workerId, ...(w.result !== undefined ? { result: w.result } : {}) };
    return this.client.call('jobs.complete', params).then(
      () => w.resolve(),
      (error: unknown) => w.reject(error),
    );
  }
}
