/**
 * Merging dead-job notifications: jobs that die within a few seconds of each other (a bad deploy
 * failing a whole bulk enqueue) become one notification, "3 jobs in bulk died: exit 3", rather
 * than a stack of toasts. Pure of `vscode`, with the clock and timer passed in, so the merging is
 * tested without waiting.
 */
import { shortId } from './views/format';

/** What the batch keeps of a job that ended dead. */
export interface Death {
  id: string;
  queue: string;
  kind: string;
  attempt: number;
}

/** A cancellable timer, as `setTimeout` gives one. */
export interface Timer {
  cancel(): void;
}

/** The clock and timer the batch runs on: the real ones in the extension, a fake in tests. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): Timer;
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * How long the batch waits after a death for another (`quietMs`), and at most after its first
 * (`maxWaitMs`): a steady stream of deaths is still reported every few seconds.
 */
export interface BatchTiming {
  quietMs: number;
  maxWaitMs: number;
}

export const DEATH_TIMING: BatchTiming = { quietMs: 2000, maxWaitMs: 6000 };

/** Collects deaths and hands them over together once they stop coming for `quietMs`. */
export class DeathBatch {
  private pending: Death[] = [];
  private firstAt = 0;
  private timer: Timer | undefined;

  constructor(
    private readonly flush: (deaths: Death[]) => void,
    private readonly clock: Clock = REAL_CLOCK,
    private readonly timing: BatchTiming = DEATH_TIMING,
  ) {}

  add(death: Death): void {
    const now = this.clock.now();
    if (this.pending.length === 0) this.firstAt = now;
    this.pending.push(death);
    this.timer?.cancel();
    const due = Math.min(now + this.timing.quietMs, this.firstAt + this.timing.maxWaitMs);
    this.timer = this.clock.setTimeout(() => this.emit(), Math.max(0, due - now));
  }

  /** Drops what is pending without reporting it (the extension is going away). */
  dispose(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.pending = [];
  }

  private emit(): void {
    const deaths = this.pending;
    this.pending = [];
    this.timer = undefined;
    if (deaths.length > 0) this.flush(deaths);
  }
}

/**
 * A job's last error as a notification has room for: its first line, and a shell job's exit in
 * two words ("exit 3") since "The command exited with code 3." says it at length.
 */
export function shortError(lastError: string | null | undefined): string {
  const first = (lastError ?? '').split('\n')[0]?.trim() ?? '';
  const exit = /^The command exited with code (\d+)\./.exec(first);
  if (exit) return `exit ${exit[1]}`;
  const cut = first.replace(/\.$/, '');
  return cut.length > 120 ? `${cut.slice(0, 119)}…` : cut;
}

/** One notification for a batch: its text and the buttons it offers. */
export interface DeathNotice {
  message: string;
  actions: string[];
}

export const RETRY = 'Retry';
export const RETRY_ALL = 'Retry All';
export const SHOW_OUTPUT = 'Show Output';
export const SHOW = 'Show';

/**
 * The notification for a batch of deaths. `firstError` is the first job's last error (fetched
 * when the batch is reported; null when it could not be read). One death reads as it always has;
 * several name how many, where, and the first error, with an ellipsis when the others may differ.
 */
export function deathNotice(deaths: readonly Death[], firstError: string | null): DeathNotice {
  const error = firstError === null ? '' : shortError(firstError);
  const [only] = deaths;
  if (deaths.length === 1 && only) {
    const why = error === '' ? '' : ` ${error.charAt(0).toUpperCase()}${error.slice(1)}.`;
    return {
      message: `Spool: ${only.kind} job ${shortId(only.id)} in ${only.queue} failed after ${only.attempt} attempt${only.attempt === 1 ? '' : 's'} and is dead.${why}`,
      actions: [RETRY, SHOW_OUTPUT],
    };
  }
  const queues = [...new Set(deaths.map((d) => d.queue))];
  const where = queues.length <= 3 ? queues.join(', ') : `${queues.slice(0, 3).join(', ')} and ${queues.length - 3} other queues`;
  return {
    message: `Spool: ${deaths.length} jobs in ${where} died${error === '' ? '.' : `: ${error} …`}`,
    actions: [RETRY_ALL, SHOW],
  };
}
