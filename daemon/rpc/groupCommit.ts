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
import { LIMITS, type CompleteParams, type EnqueueParams, type EnqueueResult } from '../../shared/protocol';
import type { Job } from '../../shared/types';
import type { QueueEngine } from '../engine/api';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * One write waiting for the group's transaction. It keeps its own typed outcome: `execute` runs
 * it inside the transaction, `settle` answers its caller once the transaction has committed (or
 * failed as a whole).
 */
interface Pending {
  execute(): void;
  settle(commitError: { error: unknown } | null): void;
  /** Set when consecutive writes of the same kind can share one engine call. */
  shared?: SharedCall;
}

/**
 * A write that can run in one engine call with its neighbours of the same kind: enqueues in one
 * enqueueBatch, completes in one completeMany. `provide` hands it the outcome of its part.
 */
type SharedCall =
  | { kind: 'enqueue'; params: EnqueueParams; provide(outcome: Outcome<EnqueueResult>): void }
  | { kind: 'complete'; params: CompleteParams; provide(outcome: Outcome<Job>): void };

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
    return new Promise<T>((resolve, reject) => this.add(pendingWrite(write, resolve, reject)));
  }

  /**
   * An enqueue. Consecutive enqueues of a group go to the engine as one `enqueueBatch` (one
   * savepoint for all instead of one each, measured ~1.6× cheaper); if that fails, they are
   * retried one by one so each caller gets its own result or error.
   */
  enqueue(params: EnqueueParams): Promise<EnqueueResult> | EnqueueResult {
    const write = (): EnqueueResult => this.engine.enqueue(params);
    if (!this.enabled) return write();
    return new Promise<EnqueueResult>((resolve, reject) => this.add(pendingWrite(write, resolve, reject, (provide) => ({ kind: 'enqueue', params, provide }))));
  }

  /**
   * A complete. Consecutive completes of a group (a worker's batch of them) go to the engine as
   * one `completeMany`: one UPDATE for all of them, each still with its own outcome.
   */
  complete(params: CompleteParams): Promise<Job> | Job {
    const write = (): Job => this.engine.complete(params);
    if (!this.enabled) return write();
    return new Promise<Job>((resolve, reject) => this.add(pendingWrite(write, resolve, reject, (provide) => ({ kind: 'complete', params, provide }))));
  }

  private add(pending: Pending): void {
    this.pending.push(pending);
    if (this.pending.length >= LIMITS.maxBatch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Commits whatever is waiting, now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    try {
      this.engine.batch(() => {
        let i = 0;
        while (i < group.length) {
          const kind = runKind(group[i]);
          let end = i + 1;
          while (kind !== null && end < group.length && runKind(group[end]) === kind) end++;
          if (end - i === 1) group[i].execute();
          else if (kind === 'enqueue') this.enqueueRun(group.slice(i, end));
          else this.completeRun(group.slice(i, end));
          i = end;
        }
      });
    } catch (error) {
      // The shared commit itself failed (disk full, say): nothing of the group was stored.
      for (const p of group) p.settle({ error });
      return;
    }
    for (const p of group) p.settle(null);
  }

  /** Enqueues as one enqueueBatch; one by one if it fails (it undid only itself). */
  private enqueueRun(run: Pending[]): void {
    const entries = run.flatMap((p) => (p.shared?.kind === 'enqueue' ? [p.shared] : []));
    const batched = attempt(() => this.engine.enqueueBatch({ jobs: entries.map((e) => e.params) }).results);
    if (entries.length === run.length && batched.ok && batched.value.length === run.length) {
      batched.value.forEach((result, i) => entries[i].provide({ ok: true, value: result }));
      return;
    }
    for (const p of run) p.execute();
  }

  /** Completes as one completeMany; one by one if it failed as a whole (it undid only itself). */
  private completeRun(run: Pending[]): void {
    const entries = run.flatMap((p) => (p.shared?.kind === 'complete' ? [p.shared] : []));
    const outcomes = attempt(() => this.engine.completeMany(entries.map((e) => e.params)));
    if (entries.length === run.length && outcomes.ok && outcomes.value.length === run.length) {
      outcomes.value.forEach((outcome, i) => entries[i].provide(outcome.ok ? { ok: true, value: outcome.job } : outcome));
      return;
    }
    for (const p of run) p.execute();
  }
}

/** Which engine call a run of consecutive pending writes of the same kind can share, if any. */
function runKind(pending: Pending): SharedCall['kind'] | null {
  return pending.shared?.kind ?? null;
}

/** A write of the group; `shared` describes it when it can share an engine call with its neighbours. */
function pendingWrite<T>(
  write: () => T,
  resolve: (value: T) => void,
  reject: (error: unknown) => void,
  shared?: (provide: (outcome: Outcome<T>) => void) => SharedCall,
): Pending {
  let outcome: Outcome<T> | null = null;
  const provide = (result: Outcome<T>): void => {
    outcome = result;
  };
  return {
    execute: () => provide(attempt(write)),
    settle: (commitError) => settleWith(outcome, commitError, resolve, reject),
    ...(shared ? { shared: shared(provide) } : {}),
  };
}

function settleWith<T>(outcome: Outcome<T> | null, commitError: { error: unknown } | null, resolve: (value: T) => void, reject: (error: unknown) => void): void {
  if (commitError) reject(commitError.error);
  else if (outcome === null) reject(new Error('A grouped write was never run; this is a bug in the daemon.'));
  else if (outcome.ok) resolve(outcome.value);
  else reject(outcome.error);
}

/** Runs one write; a failure (its savepoint rolled back) becomes its caller's error. */
function attempt<T>(write: () => T): Outcome<T> {
  try {
    return { ok: true, value: write() };
  } catch (error) {
    return { ok: false, error };
  }
}
