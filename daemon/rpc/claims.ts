/**
 * Long-poll claims. A `jobs.claim` with `waitMs` that finds nothing parks here until a job it
 * could take appears or its wait runs out. Nothing polls: the daemon calls `wake(queue)` when the
 * engine reports a job became claimable (enqueued, retried, a running job ended and freed a
 * concurrency slot) and `wakeAll()` when a timer finds delayed jobs due. Wake-ups of one commit
 * are coalesced into one pass over the waiting claims, oldest first.
 *
 * On SQLite an enqueue's waiting claims do not wait for the enqueue to commit: the group commit
 * calls `claimWithin` inside its transaction, after its writes, and the waiting claims of the
 * queues it enqueued into take their jobs in that same transaction. The job goes from the
 * producer to the worker with one commit instead of two; a waiter is answered only once that
 * commit has succeeded.
 */
import type { Job } from '../../shared/protocol/types';
import type { EngineClaimParams } from '../engine/api';
import type { Logger } from '../lifecycle/logger';
import type { RpcConnection } from './connection';

interface Waiter {
  params: EngineClaimParams;
  connection: RpcConnection;
  resolve: (jobs: Job[]) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
  /** A drain's claim for it is in flight (an async store): its timer must not answer it meanwhile. */
  claiming: boolean;
  /** Its wait ran out while a claim was in flight: that claim's outcome is the answer, jobs or none. */
  timedOut: boolean;
}

export class ClaimWaiters {
  private readonly waiters = new Set<Waiter>();
  /** The waits of each connection, to end them when it closes (one close listener per connection). */
  private readonly byConnection = new Map<RpcConnection, Set<Waiter>>();
  private wokenQueues = new Set<string>();
  private wokenAll = false;
  private drainScheduled = false;
  /** A drain is claiming: another must wait for it, or both could claim for one waiter and one answer would be lost. */
  private draining = false;

  constructor(
    private readonly claim: (params: EngineClaimParams) => Promise<Job[]>,
    private readonly logger: Logger,
    /** Hands back jobs a claim took for a waiter that was answered meanwhile: nobody received them. */
    private readonly giveBack: (jobs: Job[], params: EngineClaimParams) => Promise<void>,
  ) {}

  get size(): number {
    return this.waiters.size;
  }

  /** Parks a claim that found nothing; resolves with the jobs it later gets, or [] when the wait ends. */
  wait(params: EngineClaimParams, waitMs: number, connection: RpcConnection): Promise<Job[]> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        params,
        connection,
        resolve,
        reject,
        timer: setTimeout(() => {
          if (waiter.claiming) waiter.timedOut = true;
          else this.finish(waiter, []);
        }, waitMs),
        claiming: false,
        timedOut: false,
      };
      this.waiters.add(waiter);
      const own = this.byConnection.get(connection);
      if (own) own.add(waiter);
      else {
        const set = new Set<Waiter>([waiter]);
        this.byConnection.set(connection, set);
        // A worker that hangs up stops waiting: nothing must be claimed on its behalf afterwards.
        // That includes a half-close, which is indistinguishable from a worker that died. (On a
        // connection that has hung up already, this runs at once and ends the new wait too.)
        connection.onHangUp(() => {
          this.byConnection.delete(connection);
          for (const w of [...set]) this.finish(w, []);
        });
      }
    });
  }

  /** A job of this queue may have become claimable. */
  wake(queue: string): void {
    if (this.waiters.size === 0) return;
    this.wokenQueues.add(queue);
    this.scheduleDrain();
  }

  wakeAll(): void {
    if (this.waiters.size === 0) return;
    this.wokenAll = true;
    this.scheduleDrain();
  }

  /**
   * Claims, inside an open write transaction whose writes enqueued into `queues`, for the waiting
   * claims of those queues, oldest first (the store must do each call's work inside the call, as
   * SQLite does). Returns what to call once that transaction has ended — committed, or rolled
   * back, whereupon nothing was claimed and they wait on — or null when no waiter wants these
   * queues. A waiter whose claim is under way is left out of drains meanwhile.
   */
  claimWithin(queues: ReadonlySet<string>): ((committed: boolean) => void) | null {
    if (this.waiters.size === 0) return null;
    const started: [Waiter, Promise<Job[]>][] = [];
    for (const waiter of this.waiters) {
      if (waiter.claiming || !wants(waiter.params, queues)) continue;
      waiter.claiming = true;
      started.push([waiter, this.claim(waiter.params)]);
    }
    if (started.length === 0) return null;
    return (committed) => {
      for (const [waiter, claim] of started) void this.settleWithin(waiter, claim, committed);
    };
  }

  /** Ends every wait with no jobs (shutdown). */
  releaseAll(): void {
    for (const waiter of [...this.waiters]) this.finish(waiter, []);
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.draining) return;
    this.drainScheduled = true;
    // A microtask, not the next event-loop turn: the wake-ups of one commit (which arrive
    // together) are still coalesced, and the waiting worker gets its job one turn sooner.
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    this.drainScheduled = false;
    this.draining = true;
    try {
      await this.drainOnce();
    } finally {
      this.draining = false;
    }
    // Wake-ups that came while this drain claimed get a pass of their own.
    if (this.wokenAll || this.wokenQueues.size > 0) this.scheduleDrain();
  }

  private async drainOnce(): Promise<void> {
    const all = this.wokenAll;
    const queues = this.wokenQueues;
    this.wokenAll = false;
    this.wokenQueues = new Set();
    for (const waiter of [...this.waiters]) {
      // It may have ended (timed out, hung up) while an earlier waiter's claim was awaited, or
      // be claiming inside a group commit (claimWithin).
      if (!this.waiters.has(waiter) || waiter.claiming) continue;
      if (!all && !wants(waiter.params, queues)) continue;
      waiter.claiming = true;
      await this.answer(waiter, this.claim(waiter.params));
    }
  }

  /** A claim made inside a transaction (claimWithin), once that transaction has ended. */
  private async settleWithin(waiter: Waiter, claim: Promise<Job[]>, committed: boolean): Promise<void> {
    if (committed) return this.answer(waiter, claim);
    // Rolled back with the rest of its group: it took nothing, whatever it said. The waiter waits
    // on (or ends, its wait having run out meanwhile).
    await claim.catch(() => undefined);
    waiter.claiming = false;
    if (waiter.timedOut) this.finish(waiter, []);
  }

  /** Answers a waiter with the outcome of the claim made for it (its `claiming` set), if it may be answered. */
  private async answer(waiter: Waiter, claim: Promise<Job[]>): Promise<void> {
    let jobs: Job[];
    try {
      jobs = await claim;
    } catch (error) {
      waiter.claiming = false;
      this.logger.error('A waiting claim failed', { workerId: waiter.params.workerId, error });
      this.waiters.delete(waiter);
      this.byConnection.get(waiter.connection)?.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.reject(error);
      return;
    }
    waiter.claiming = false;
    // The worker hung up (or the daemon began to stop) while the claim was in flight: it was
    // answered with no jobs, so the jobs the claim took would stay running for nobody until
    // their lease ran out. They go back to the queue at once, their attempt given back.
    if (!this.waiters.has(waiter)) {
      if (jobs.length > 0) await this.handBack(jobs, waiter.params);
      return;
    }
    // A wait that ran out while its claim was in flight (PostgreSQL answers asynchronously) is
    // answered with what that claim took: ending it with none before the commit would leave the
    // jobs running for a worker that never heard of them, until their lease ran out.
    if (jobs.length > 0 || waiter.timedOut) this.finish(waiter, jobs);
  }

  private async handBack(jobs: Job[], params: EngineClaimParams): Promise<void> {
    try {
      await this.giveBack(jobs, params);
    } catch (error) {
      // Left to the reaper, as a worker's unfinished jobs are: their lease still runs out.
      this.logger.warn('Could not hand back jobs claimed for a worker that hung up', { workerId: params.workerId, error });
    }
  }

  private finish(waiter: Waiter, jobs: Job[]): void {
    if (!this.waiters.delete(waiter)) return;
    this.byConnection.get(waiter.connection)?.delete(waiter);
    clearTimeout(waiter.timer);
    waiter.resolve(jobs);
  }
}

function wants(params: EngineClaimParams, queues: ReadonlySet<string>): boolean {
  if (!params.queues || params.queues.length === 0) return queues.size > 0;
  return params.queues.some((q) => queues.has(q));
}
