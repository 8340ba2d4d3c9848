/** `spool jobs`, `spool job <id>` (with `edit` and `run-now`, ./jobEdit.ts), `spool logs <id> [-f]`: reading jobs and their output. */
import type { Command } from 'commander';
import type { SpoolClient } from '../../shared/client/client';
import type { JobOrder, ListJobsParams, ListJobsResult } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import type { WaitingFacts } from '../../shared/domain/present';
import { LIMITS } from '../../shared/protocol';
import { action, arg } from '../action';
import { CliError } from '../errors';
import { readOutput } from '../follow';
import { jobDetails, jobsTable } from '../format/records';
import { jobHistoryTable } from '../format/history';
import { jobEnded, outputPrinter } from '../output';
import { parseDuration } from '../parse/duration';
import { collect, parseInteger, parseQueues, parseStates } from '../parse/values';
import { unknownQueueNote } from '../hints';
import { resolveJobId } from '../jobRef';
import { registerJobEdit } from './jobEdit';

type ListOptions = {
  queue?: string[];
  state?: string[];
  kind?: string;
  tag?: string;
  search?: string;
  branch?: string;
  group?: string;
  delayed?: boolean;
  olderThan?: string;
  order?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
};

const ORDERS: readonly JobOrder[] = ['newest', 'oldest', 'runAt'];

export function registerJobs(program: Command): void {
  program
    .command('jobs')
    .description('List jobs, newest first')
    .option('-q, --queue <queue>', 'only these queues (comma-separated or repeated)', collect)
    .option('-s, --state <state>', 'only these states: blocked, queued, running, retrying, held, completed, dead, cancelled (comma-separated or repeated)', collect)
    .option('-k, --kind <kind>', 'only this kind')
    .option('-t, --tag <tag>', 'only jobs with this tag')
    .option('--search <text>', 'text in the payload or the last error')
    .option('--branch <branch>', 'only jobs enqueued from this git branch')
    .option('--group <key>', 'only jobs of this group (enqueue --group)')
    .option('--delayed', 'only queued jobs whose start time is still ahead')
    .option('--older-than <duration>', 'only jobs created longer ago than this, e.g. 2h, 7d')
    .option('--order <order>', `${ORDERS.join(', ')} (default newest)`)
    .option('-n, --limit <n>', `how many (1..${LIMITS.maxPageSize}, default 50)`)
    .option('--cursor <cursor>', 'continue after a previous page (printed when there are more)')
    .option('--json', 'print {jobs, nextCursor} as JSON')
    .addHelpText(
      'after',
      `
Examples:
  spool jobs
  spool jobs --queue images --state dead
  spool jobs --queue builds,images --state queued
  spool jobs --state queued,retrying --limit 200
  spool jobs --branch feature/login
  spool jobs --queue exports --group customer:42
  spool jobs --search "timeout" --json | jq '.jobs[].id'`,
    )
    .action(
      action<ListOptions>(async (ctx, _args, o) => {
        const params: ListJobsParams = {};
        const queues = o.queue ? parseQueues(o.queue) : [];
        if (queues.length > 1 && o.cursor) throw new CliError('--cursor continues a listing of one queue: give one --queue with it.');
        if (o.state) params.states = parseStates(o.state);
        if (o.kind) params.kind = o.kind;
        if (o.tag) params.tag = o.tag;
        if (o.search) params.search = o.search;
        if (o.branch) params.branch = o.branch;
        if (o.group) params.group = o.group;
        if (o.delayed) params.delayed = true;
        if (o.olderThan !== undefined) params.olderThanMs = parseDuration(o.olderThan, '--older-than');
        if (o.order) {
          const order = ORDERS.find((x) => x === o.order);
          if (!order) throw new CliError(`Unknown order "${o.order}": use ${ORDERS.join(', ')}.`);
          params.order = order;
        }
        params.limit = o.limit !== undefined ? parseInteger(o.limit, '--limit', 1, LIMITS.maxPageSize) : 50;
        if (o.cursor) params.cursor = o.cursor;
        const client = await ctx.client();
        const result = await listAcross(client, queues, params);
        if (o.json) return ctx.printJson(result);
        if (result.jobs.length === 0) {
          ctx.note((queues.length > 0 ? await unknownQueueNote(client, queues) : null) ?? 'No jobs match.');
          return;
        }
        // The workers, so that a due job no live worker takes says so (a token that may not list them sees the table without).
        const workers = result.jobs.some((j) => (j.state === 'queued' || j.state === 'retrying') && j.runAt <= Date.now()) ? await client.call('workers.list').then((r) => r.workers, () => undefined) : undefined;
        ctx.print(jobsTable(result.jobs, ctx.colors, Date.now(), workers));
        if (result.nextCursor === '') ctx.note(ctx.colors.dim('More jobs: raise --limit, or list one queue at a time to page with --cursor.'));
        else if (result.nextCursor) ctx.note(ctx.colors.dim(`More jobs: add --cursor ${result.nextCursor}`));
      }),
    );

  const job = program
    .command('job')
    .description('Show one job: its record, the jobs it depends on and that depend on it, and the history of its runs')
    .argument('<id>', 'the job id, or its last 8 characters (or more) as the views show them')
    .option('--json', 'print {job, runs, dependencies, dependents} as JSON (with --history: {events})')
    .option('--history', "print the job's history instead: each change of its state, when (UTC), what caused it and who")
    .addHelpText(
      'after',
      '\nExamples:\n  spool job 0193f0c2-7a4e-7b1c-9d2e-3f4a5b6c7d8e\n  spool job 3f4a5b6c\n  spool job 3f4a5b6c --history\n  spool job 0193f0c2-7a4e-7b1c-9d2e-3f4a5b6c7d8e --json | jq .job.state',
    )
    .action(
      action<{ json?: boolean; history?: boolean }>(async (ctx, args, o) => {
        const client = await ctx.client();
        const id = await resolveJobId(client, arg(args, 0));
        if (o.history) {
          const { events } = await client.call('jobs.history', { id });
          if (o.json) ctx.printJson({ events });
          else ctx.print(jobHistoryTable(events, ctx.colors).trimEnd());
          return;
        }
        const result = await client.call('jobs.get', { id });
        if (o.json) ctx.printJson(result);
        else ctx.print(jobDetails(result.job, result.runs, ctx.colors, Date.now(), result, await waitingFacts(client, result.job)));
      }),
    );
  registerJobEdit(job);

  program
    .command('logs')
    .description("Print a job's output (stdout to stdout, stderr to stderr); -f follows a running job live")
    .argument('<id>', 'the job id')
    .option('-f, --follow', 'keep printing new lines until the job finishes')
    .option('--json', 'print each line as a JSON object per line ({seq, run, attempt, stream, text, at})')
    .addHelpText('after', '\nExamples:\n  spool logs 0193f0c2-7a4e-7b1c-9d2e-3f4a5b6c7d8e\n  spool logs -f 0193f0c2-7a4e-7b1c-9d2e-3f4a5b6c7d8e')
    .action(
      action<{ follow?: boolean; json?: boolean }>(async (ctx, args, o) => {
        const id = arg(args, 0);
        const client = await ctx.client();
        const { job } = await client.call('jobs.get', { id });
        await readOutput(client, id, job.queue, { follow: o.follow === true, onLines: outputPrinter(ctx, o.json === true) });
        if (o.follow !== true) return 0;
        // Followed to its end: exit as `enqueue --wait` does, 0 only if it completed.
        return jobEnded(ctx, (await client.call('jobs.get', { id })).job, { quiet: true });
      }),
    );
}

/**
 * `jobs.list` over the queues given (every queue when none): one call per queue, merged in the
 * listing's order and cut to its limit. Across several queues there is no cursor to continue
 * with; a queue that had more says so by a nextCursor of "" (the note then asks for one queue).
 */
async function listAcross(client: SpoolClient, queues: readonly string[], params: ListJobsParams): Promise<ListJobsResult> {
  if (queues.length <= 1) return client.call('jobs.list', queues.length === 1 ? { ...params, queue: queues[0] } : params);
  const pages = await Promise.all(queues.map((queue) => client.call('jobs.list', { ...params, queue })));
  const order = params.order ?? 'newest';
  // Job ids are UUIDv7: in creation order.
  const byId = (a: Job, b: Job): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const compare = order === 'newest' ? (a: Job, b: Job) => byId(b, a) : order === 'oldest' ? byId : (a: Job, b: Job) => a.runAt - b.runAt || byId(a, b);
  const all = pages.flatMap((p) => p.jobs).sort(compare);
  const limit = params.limit ?? 50;
  const more = all.length > limit || pages.some((p) => p.nextCursor !== null);
  return { jobs: all.slice(0, limit), nextCursor: more ? '' : null };
}

/**
 * For a due job (queued, or retrying past its next attempt's time): its queue and the workers,
 * for `spool job` to say why it has not started; what cannot be read is left out.
 */
async function waitingFacts(client: SpoolClient, job: Job): Promise<WaitingFacts | undefined> {
  if ((job.state !== 'queued' && job.state !== 'retrying') || job.runAt > Date.now()) return undefined;
  const [queue, workers] = await Promise.all([client.call('queues.get', { name: job.queue }).then((r) => r.queue, () => undefined), client.call('workers.list').then((r) => r.workers, () => undefined)]);
  return { ...(queue ? { queue } : {}), ...(workers ? { workers } : {}) };
}
