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
 * This relies on the store doing each call's work synchronously, inside the call (SQLite does;
 * `engine.batch` runs the calls one by one, each committing alone, on a store that cannot).
 *
 * Ordering: the dispatcher flushes the group before it runs any method that is not grouped, so
 * a write is committed before any later request is handled.
 */
import { LIMITS, type CompleteParams, type EnqueueParams, type EnqueueResult } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import type { Engine } from '../engine/engine';
import { actingAs, currentActor } from '../engine/actor';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * One write waiting for the group's transaction. `execute` starts it inside the transaction (the
 * engine call does its store work before it returns, see daemon/engine/engine.ts), `settle`
 * answers its caller once the transaction has committed (or failed as a whole).
 */
interface Pending {
  /** Who the write acts for (engine/actor.ts), read when it was added: it runs later, in the flush. */
  who: string;
  execute(): void;
  settle(commitError: { error: unknown } | null): void;
  /** Set when consecutive writes of the same kind can share one engine call. */
  shared?: SharedCall;
}

/**
 * A write that can run in one engine call with its neighbours of the same kind: enqueues in one
 * enqueueEach, completes in one completeMany. `provide` hands it the outcome of its part.
 */
type SharedCall =
  | { kind: 'enqueue'; params: EnqueueParams; provide(outcome: Promise<Outcome<EnqueueResult>>): void }
  | { kind: 'complete'; params: CompleteParams; provide(outcome: Promise<Outcome<Job>>): void };

export class WriteGroup {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly engine: Engine,
    /** False (`--no-group-commit`): each write commits alone, at once. */
    private readonly enabled: boolean,
    /**
     * Called inside the transaction, after the group's writes, with the queues its enqueues went
     * to: the waiting claims of those queues claim there (ClaimWaiters.claimWithin), and are told
     * after the commit whether it held. Only for a store that does each call's work inside the call.
     */
    private readonly claimWithin: ((queues: ReadonlySet<string>) => ((committed: boolean) => void) | null) | null = null,
  ) {}

  /**
   * Runs `write` (engine calls only, started without awaiting anything first) in the current
   * group; settles after the commit.
   */
  run<T>(write: () => Promise<T>): Promise<T> {
    if (!this.enabled) return write();
    return new Promise<T>((resolve, reject) => this.add(pendingWrite(write, resolve, reject)));
  }

  /**
   * An enqueue. Consecutive enqueues of a group go to the engine as one `enqueueEach` (one
   * savepoint for all instead of one each, measured ~1.6× cheaper), each with its own result or
   * error.
   */
  enqueue(params: EnqueueParams): Promise<EnqueueResult> {
    const write = (): Promise<EnqueueResult> => this.engine.enqueue(params);
    if (!this.enabled) return write();
    return new Promise<EnqueueResult>((resolve, reject) => this.add(pendingWrite(write, resolve, reject, (provide) => ({ kind: 'enqueue', params, provide }))));
  }

  /**
   * A complete. Consecutive completes of a group (a worker's batch of them) go to the engine as
   * one `completeMany`: one UPDATE for all of them, each still with its own outcome.
   */
  complete(params: CompleteParams): Promise<Job> {
    const write = (): Promise<Job> => this.engine.complete(params);
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
    // Set inside the batch callback, which TypeScript does not follow.
    let claimed = null as ((committed: boolean) => void) | null;
    try {
      this.engine.batch(() => {
        let i = 0;
        while (i < group.length) {
          const kind = runKind(group[i]);
          let end = i + 1;
          const who = group[i].who;
          while (kind !== null && end < group.length && runKind(group[end]) === kind && group[end].who === who) end++;
          const start = i;
          actingAs(who, () => {
            if (end - start === 1) group[start].execute();
            else if (kind === 'enqueue') this.enqueueRun(group.slice(start, end));
            else this.completeRun(group.slice(start, end));
          });
          i = end;
        }
        if (this.claimWithin !== null) {
          const queues = enqueuedQueues(group);
          if (queues.size > 0) claimed = this.claimWithin(queues);
        }
      });
    } catch (error) {
      // The shared commit itself failed (disk full, say): nothing of the group was stored.
      claimed?.(false);
      for (const p of group) p.settle({ error });
      return;
    }
    claimed?.(true);
    for (const p of group) p.settle(null);
  }

  /** Enqueues as one enqueueEach: one engine call, each enqueue with its own outcome. */
  private enqueueRun(run: Pending[]): void {
    const entries = run.flatMap((p) => (p.shared?.kind === 'enqueue' ? [p.shared] : []));
    const outcomes = this.engine.enqueueEach(entries.map((e) => e.params));
    entries.forEach((entry, i) => entry.provide(outcomes.then((all) => nth(all, i)).then((o) => (o.ok ? { ok: true, value: o.result } : o))));
  }

  /** Completes as one completeMany: one engine call, each complete with its own outcome. */
  private completeRun(run: Pending[]): void {
    const entries = run.flatMap((p) => (p.shared?.kind === 'complete' ? [p.shared] : []));
    const outcomes = this.engine.completeMany(entries.map((e) => e.params));
    entries.forEach((entry, i) => entry.provide(outcomes.then((all) => nth(all, i)).then((o) => (o.ok ? { ok: true, value: o.job } : o))));
  }
}

/** The i-th outcome of a shared call (or a failure naming the bug, should the call return fewer). */
function nth<T extends { ok: boolean }>(all: readonly T[], i: number): T | { ok: false; error: unknown } {
  return all[i] ?? { ok: false, error: new Error(`A shared engine call returned no outcome for its write ${i}; this is a bug in the daemon.`) };
}

/** The queues the group's enqueues name (an enqueue with no queue fails on its own). */
function enqueuedQueues(group: readonly Pending[]): Set<string> {
  const queues = new Set<string>();
  for (const p of group) {
    const params: unknown = p.shared?.kind === 'enqueue' ? p.shared.params : null;
    if (typeof params === 'object' && params !== null && 'queue' in params && typeof params.queue === 'string') queues.add(params.queue);
  }
  return queues;
}

/** Which engine call a run of consecutive pending writes of the same kind can share, if any. */
function runKind(pending: Pending): SharedCall['kind'] | null {
  return pending.shared?.kind ?? null;
}

/** A write of the group; `shared` describes it when it can share an engine call with its neighbours. */
function pendingWrite<T>(
  write: () => Promise<T>,
  resolve: (value: T) => void,
  reject: (error: unknown) => void,
  shared?: (provide: (outcome: Promise<Outcome<T>>) => void) => SharedCall,
): Pending {
  let outcome: Promise<Outcome<T>> | null = null;
  const provide = (result: Promise<Outcome<T>>): void => {
    outcome = result;
  };
  return {
    who: currentActor(),
    execute: () => provide(attempt(write)),
    settle: (commitError) => settleWith(outcome, commitError, resolve, reject),
    ...(shared ? { shared: shared(provide) } : {}),
  };
}

function settleWith<T>(outcome: Promise<Outcome<T>> | null, commitError: { error: unknown } | null, resolve: (value: T) => void, reject: (error: unknown) => void): void {
  if (commitError) reject(commitError.error);
  else if (outcome === null) reject(new Error('A grouped write was never run; this is a bug in the daemon.'));
  else
    void outcome.then((result) => {
      if (result.ok) resolve(result.value);
      else reject(result.error);
    });
}

/**
 * Starts one write; its failure (its savepoint rolled back) becomes its caller's error. The
 * outcome is a promise that never rejects, so a write whose group then fails as a whole leaves
 * no unhandled rejection behind.
 */
function attempt<T>(write: () => Promise<T>): Promise<Outcome<T>> {
  let started: Promise<T>;
  try {
    started = write();
  } catch (error) {
    return Promise.resolve({ ok: false, error });
  }
  return started.then(
    (value): Outcome<T> => ({ ok: true, value }),
    (error: unknown): Outcome<T> => ({ ok: false, error }),
  );
}
