/**
 * Following a workflow run until it ends (`spool run WORKFLOW --wait`, `spool workflow wait`).
 * Driven by events, never by a polling loop: subscribe to the jobs of the run's queues, then
 * read the run (`workflows.get`); every event about one of its jobs reads it again (one read at
 * a time, one more if events came meanwhile), and what changed is printed a line each
 * (format/workflowProgress.ts). A change made before the subscription is in the first read, so
 * nothing is missed. The end is a read whose run is no longer `running`.
 */
import type { SpoolClient } from '../shared/client/client';
import type { WorkflowRunDetail } from '../shared/protocol/workflows';
import type { CliContext } from './context';
import { progressLines, type SeenStates } from './format/workflowProgress';
import { getRun } from './workflowCalls';

/**
 * Follows run `id`, printing its progress unless `quiet`; resolves with the run as it ended.
 * `since`: the run as read before (a retry's), whose jobs are printed only once they change.
 */
export async function followRun(ctx: CliContext, client: SpoolClient, id: string, quiet: boolean, since?: WorkflowRunDetail): Promise<WorkflowRunDetail> {
  const first = await getRun(client, id);
  const seen: SeenStates = new Map(since?.jobs.map((j) => [j.id, { state: j.state, attempts: j.attempts }]));
  const show = (run: WorkflowRunDetail): void => {
    const lines = progressLines(run, seen, ctx.colors, Date.now());
    if (!quiet && lines.length > 0) ctx.print(lines.join('\n'));
  };
  show(first);
  if (first.state !== 'running') return first;
  const ids = new Set(first.jobs.map((j) => j.id));
  const queues = [...new Set(first.jobs.map((j) => j.queue))];

  let settle: { resolve: (run: WorkflowRunDetail) => void; reject: (e: Error) => void } = { resolve: () => {}, reject: () => {} };
  const done = new Promise<WorkflowRunDetail>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let reading = false;
  let again = false;
  let ended = false;
  const read = (): void => {
    if (ended) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void (async () => {
      try {
        do {
          again = false;
          const run = await getRun(client, id);
          show(run);
          if (run.state !== 'running') {
            ended = true;
            settle.resolve(run);
            return;
          }
        } while (again);
      } catch (error) {
        settle.reject(error instanceof Error ? error : new Error(String(error)));
      } finally {
        reading = false;
      }
    })();
  };

  const subscription = await client.subscribe(
    { topics: ['jobs'], queues },
    {
      'jobs.changed': (event) => {
        if (ids.has(event.id)) read();
      },
    },
  );
  const stopOnClose = client.onClose((error) => settle.reject(error ?? new Error('The connection to the daemon closed.')));
  try {
    // What changed between the first read and the subscription.
    read();
    return await done;
  } finally {
    stopOnClose();
    if (!client.isClosed) await subscription.unsubscribe();
  }
}
