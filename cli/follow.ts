/**
 * Reading a job's output, and following it live (`spool logs -f`, `spool enqueue --wait`).
 *
 * Following is driven by notifications, never by a polling loop: subscribe to the job's
 * `jobs.output` and `jobs.changed` first, then read the backlog with `jobs.output`. Lines that
 * arrive by notification right after the last one seen are printed at once; anything else (a
 * gap, an overlap with the backlog) is settled by reading `jobs.output` from the last seq seen,
 * so every line is printed once and in order. The end is when `jobs.output` says `done`: the
 * job reached a final state and every line was returned.
 */
import type { SpoolClient } from '../shared/client/client';
import { TERMINAL_STATES, type OutputLine } from '../shared/protocol/types';

const PAGE = 1000;

export interface FollowOptions {
  /** Keep going until the job is finished; otherwise print what is there and return. */
  follow: boolean;
  onLines(lines: OutputLine[]): void;
}

export async function readOutput(client: SpoolClient, jobId: string, queue: string, options: FollowOptions): Promise<void> {
  let last = 0;
  let finished = false;
  let pulling: Promise<void> | null = null;
  let again = false;
  const settle: { resolve: () => void; reject: (e: Error) => void } = { resolve: () => {}, reject: () => {} };
  const done = new Promise<void>((resolve, reject) => {
    settle.resolve = resolve;
    settle.reject = reject;
  });

  const emit = (lines: OutputLine[]): void => {
    const fresh = lines.filter((l) => l.seq > last);
    if (fresh.length === 0) return;
    last = fresh[fresh.length - 1]?.seq ?? last;
    options.onLines(fresh);
  };

  /** Read jobs.output from `last` until caught up; one reader at a time, re-run if asked meanwhile. */
  const pull = (): Promise<void> => {
    if (pulling) {
      again = true;
      return pulling;
    }
    pulling = (async () => {
      do {
        again = false;
        for (;;) {
          const page = await client.call('jobs.output', { id: jobId, after: last, limit: PAGE });
          emit(page.lines);
          if (page.nextAfter > last) last = page.nextAfter;
          if (page.done) {
            finished = true;
            return;
          }
          if (page.lines.length < PAGE) break;
        }
      } while (again);
    })().finally(() => {
      pulling = null;
    });
    return pulling;
  };

  const kick = (): void => {
    pull().then(
      () => {
        if (finished) settle.resolve();
      },
      (error: unknown) => settle.reject(error instanceof Error ? error : new Error(String(error))),
    );
  };

  if (!options.follow) {
    await pull();
    return;
  }

  const subscription = await client.subscribe(
    { topics: ['jobs', 'output'], queues: [queue], jobIds: [jobId] },
    {
      'jobs.output': (event) => {
        if (event.id !== jobId || finished) return;
        const first = event.lines[0];
        if (first !== undefined && first.seq === last + 1 && !pulling) emit(event.lines);
        else kick();
      },
      'jobs.changed': (event) => {
        if (event.id !== jobId) return;
        if (event.deleted) {
          settle.reject(new Error(`Job ${jobId} was deleted while its output was followed.`));
          return;
        }
        if (TERMINAL_STATES.includes(event.state)) kick();
      },
    },
  );
  const stopOnClose = client.onClose((error) => settle.reject(error ?? new Error('The connection to the daemon closed.')));
  try {
    kick();
    await done;
  } finally {
    stopOnClose();
    if (!client.isClosed) await subscription.unsubscribe();
  }
}
