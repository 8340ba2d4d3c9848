/**
 * One bound on the unfinished lines the daemon holds across all its connections. Each connection
 * may hold up to LIMITS.maxLineBytes (16 MiB) of a line still waiting for its newline, which is
 * fine for one client and not for forty: 40 connections each sending 15 MiB without a newline
 * took the daemon from 140 MB to 745 MB. Above the budget, the connections holding the largest
 * unfinished lines are closed (with an error saying why) until the total is back under it, so
 * the daemon's memory stays bounded and every other client keeps being answered.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/** What the budget needs of a connection. */
export interface BudgetHolder {
  /** Closes the connection with an error and drops its unfinished line (then calls `release`). */
  refuseOverBudget(held: number, total: number, limit: number): void;
}

/** 64 MiB: four lines of the largest size a request may have, at once. */
export const DEFAULT_PARTIAL_LINE_BUDGET = 64 * 1024 * 1024;

/** Released unfinished lines worth a garbage collection: a few large ones, not the tails of pipelined bursts. */
const COLLECT_AFTER_RELEASED_BYTES = 8 * 1024 * 1024;
/** At most one collection this often, however many lines are released (a burst of closes makes one). */
const COLLECT_DELAY_MS = 500;
/**
 * And once more this long after: a refused connection is ended, not destroyed, and holds its
 * socket's buffers until it closes, up to 2 s later (Connection.end).
 */
const COLLECT_AGAIN_MS = 2500;

export class InputBudget {
  private readonly held = new Map<BudgetHolder, number>();
  private heldTotal = 0;
  private released = 0;
  private collectTimer: NodeJS.Timeout | null = null;

  constructor(readonly limit: number = DEFAULT_PARTIAL_LINE_BUDGET) {}

  /** Bytes of unfinished lines held across all connections. */
  get total(): number {
    return this.heldTotal;
  }

  /**
   * Records what `holder` holds now; over the limit, closes the largest holders until the total
   * fits (the holder that just grew is usually the largest, but an older, larger one goes first).
   */
  update(holder: BudgetHolder, bytes: number): void {
    const before = this.held.get(holder) ?? 0;
    if (bytes < before) this.noteReleased(before - bytes);
    this.heldTotal += bytes - before;
    if (bytes === 0) this.held.delete(holder);
    else this.held.set(holder, bytes);
    while (this.heldTotal > this.limit) {
      let largest: BudgetHolder | null = null;
      let largestBytes = 0;
      for (const [candidate, candidateBytes] of this.held) {
        if (candidateBytes > largestBytes) {
          largest = candidate;
          largestBytes = candidateBytes;
        }
      }
      if (largest === null) break;
      const total = this.heldTotal;
      this.release(largest);
      largest.refuseOverBudget(largestBytes, total, this.limit);
    }
  }

  /** The holder holds nothing any more (its line completed, or it closed). */
  release(holder: BudgetHolder): void {
    const bytes = this.held.get(holder) ?? 0;
    this.heldTotal -= bytes;
    this.held.delete(holder);
    this.noteReleased(bytes);
  }

  /**
   * Gives the memory of large released lines back to the system. An idle daemon allocates
   * nothing, so V8 would not collect for a long while, and until it does the lines' slabs stay
   * mapped: 40 connections sending 15 MiB each left the daemon 150 MB larger after they closed
   * until it collected (measured), and about 130 MB larger after (the allocator keeps the
   * socket's 64 KiB read buffers), against 620 MB before the budget.
   */
  private noteReleased(bytes: number): void {
    this.released += bytes;
    if (this.released < COLLECT_AFTER_RELEASED_BYTES) return;
    if (this.collectTimer !== null) return;
    this.collectTimer = setTimeout(() => {
      this.collectTimer = null;
      this.released = 0;
      collectGarbage();
      setTimeout(collectGarbage, COLLECT_AGAIN_MS).unref();
    }, COLLECT_DELAY_MS);
    this.collectTimer.unref();
  }
}

let gc: (() => void) | null = null;

/**
 * A full garbage collection. Node offers `gc` only with --expose-gc; the flag can be set at run
 * time, after which a new context has the function (the way Node's own tests reach it).
 */
function collectGarbage(): void {
  if (gc === null) {
    v8.setFlagsFromString('--expose-gc');
    const found: unknown = vm.runInNewContext('gc');
    if (typeof found !== 'function') return;
    gc = () => void found();
  }
  gc();
}
