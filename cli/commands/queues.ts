/** `spool queues` and `spool queue <name> [pause|resume|purge|set|delete]`. */
import type { Command } from 'commander';
import type { ConfigureQueueParams, QueueResult } from '../../shared/protocol';
import { JOB_STATES, type JobState, type Queue } from '../../shared/protocol/types';
import { confirm } from '../confirm';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { ownedChangeNote } from '../owned';
import { noWorkerNotes, queueDetails, queuesTable } from '../format/records';
import { dueCount } from '../../shared/domain/present';
import type { SpoolClient } from '../../shared/client/client';
import { parseTimeout } from '../jobsource';
import { parseBackoff, parseDuration } from '../parse/duration';
import { collect, orFail, parseRate, parseStates } from '../parse/values';
import { attemptsText, concurrencyText } from '../../shared/domain/rules/options';
import { parseGroupWeights } from '../../shared/domain/groupWeights';
import { formatAgeing, parseAgeing } from '../../shared/domain/ageing';
import { addLimitOptions, resolveLimitChanges, type LimitOptionValues } from '../parse/limits';
import { addRetryOptions, parseExpireAfter, resolveRetryRule, type RetryOptionValues } from '../parse/retry';

type QueueOptions = LimitOptionValues &
  RetryOptionValues & {
  retryRule?: string;
  expireAfter?: string;
  ageing?: string;
  concurrency?: string;
  rate?: string;
  groupConcurrency?: string;
  groupRate?: string;
  groupWeights?: string;
  attempts?: string;
  backoff?: string;
  timeout?: string;
  retention?: string;
  state?: string[];
  force?: boolean;
  yes?: boolean;
  json?: boolean;
};

const ACTIONS = ['show', 'pause', 'resume', 'purge', 'set', 'delete'] as const;
type QueueAction = (typeof ACTIONS)[number];

export function registerQueues(program: Command): void {
  program
    .command('queues')
    .description('List queues with their job counts')
    .option('--json', 'print {queues} as JSON')
    .addHelpText('after', '\nExamples:\n  spool queues\n  spool queues --json | jq ".queues[] | {name, dead: .counts.dead}"')
    .action(
      action<{ json?: boolean }>(async (ctx, _args, o) => {
        const client = await ctx.client();
        const result = await client.call('queues.list');
        if (o.json) return ctx.printJson(result);
        if (result.queues.length === 0) return ctx.note('No queues yet. Enqueue a job: spool enqueue default --shell "echo hello"');
        ctx.print(queuesTable(result.queues, ctx.colors));
        for (const line of await noWorkerLines(client, result.queues)) ctx.note(ctx.colors.yellow(line));
      }),
    );

  const cmd = program
    .command('queue')
    .description('Show a queue, or pause, resume, purge, set (configure) or delete it')
    .argument('<name>', 'the queue')
    .argument('[action]', `${ACTIONS.join(' | ')} (default show)`)
    .option('--concurrency <n|none>', 'set: most jobs running at once')
    .option('--rate <rate|off>', 'set: most jobs started per second, e.g. 10/s, 600/m, 5/s:20 (bursts of 20) or off')
    .option('--group-concurrency <n|none>', 'set: most jobs of one group (enqueue --group) running at once, counted by weight')
    .option('--group-rate <rate|off>', 'set: most jobs of one group started per second, same syntax as --rate')
    .option('--group-weights <group=n,...|none>', 'set: fair turns between groups, e.g. customer:1=3 gives it three turns for one of any other group')
    .option('--attempts <n>', 'set: default attempts per job')
    .option('--backoff <strategy:base:cap>', 'set: default wait between attempts, e.g. exponential:1s:5m')
    .option('--timeout <duration>', 'set: default lease per attempt, e.g. 10m')
    .option('--retention <duration|forever>', 'set: delete finished jobs older than this, e.g. 7d');
  addLimitOptions(cmd, "set: its shell jobs' ", true);
  addRetryOptions(cmd, 'set: ');
  cmd
    .option('--retry-rule <none>', 'set: none removes the retry rule')
    .option('--expire-after <duration|none>', 'set: jobs not started within this long end dead, unless they set their own, e.g. 1h; none removes it')
    .option('--ageing <ageing|off>', 'set: "N per DURATION": a waiting job counts N priority higher for every DURATION it has waited, e.g. "1 per 10m"; off turns it off')
    .option('-s, --state <state>', 'purge: only these states (default all but running)', collect)
    .option('--force', 'delete: even if it still has jobs')
    .option('-y, --yes', 'purge: do not ask (without a terminal, purge asks for this)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      `
Examples:
  spool queue images
  spool queue images pause
  spool queue images set --concurrency 2 --rate 5/s --attempts 5 --backoff exponential:1s:5m --retention 7d
  spool queue exports set --group-concurrency 1 --group-rate 5/s --group-weights customer:1=3
  spool queue encode set --memory 2GiB --cpu 10m --open-files 1024
  spool queue encode set --cpu none
  spool queue sync set --retry-on-exit 75 --retry-never-exit 2 --expire-after 1h
  spool queue sync set --retry-rule none --expire-after none
  spool queue reports set --ageing "1 per 10m"
  spool queue images purge --state dead
  spool queue images purge --yes
  spool queue images delete --force`,
    )
    .action(action<QueueOptions>((ctx, args, o) => queueAction(ctx, arg(args, 0), arg(args, 1) || 'show', o)));
}

async function queueAction(ctx: CliContext, name: string, what: string, o: QueueOptions): Promise<void> {
  const act = ACTIONS.find((a) => a === what);
  if (!act) throw new CliError(`Unknown queue action "${what}": use ${ACTIONS.join(', ')}.`);
  const client = await ctx.client();
  const show = (result: unknown, text: string): void => (o.json ? ctx.printJson(result) : ctx.print(text));
  /** After a change by hand: a warning if spool.jsonc owns the queue (apply would undo it). */
  const owned = (queue: Queue): void => {
    const note = ownedChangeNote('queue', name, queue.owner, 'changed');
    if (note !== null) ctx.note(ctx.colors.yellow(note));
  };
  switch (act satisfies QueueAction) {
    case 'show': {
      const r = await client.call('queues.get', { name });
      return show(r, queueDetails(r.queue, ctx.colors));
    }
    case 'pause': {
      const r = await client.call('queues.pause', { name });
      owned(r.queue);
      return show(r, `Paused ${name}: no new jobs start; running ones finish. Resume with: spool queue ${name} resume`);
    }
    case 'resume': {
      const r = await client.call('queues.resume', { name });
      owned(r.queue);
      return show(r, `Resumed ${name}.`);
    }
    case 'purge': {
      const states = o.state ? parseStates(o.state) : undefined;
      await confirmPurge(ctx, await client.call('queues.get', { name }), states, o.yes === true);
      const r = await client.call('queues.purge', { name, ...(states ? { states } : {}) });
      return show(r, `Purged ${r.deleted} job${r.deleted === 1 ? '' : 's'} from ${name}.`);
    }
    case 'delete': {
      const r = await client.call('queues.delete', { name, force: o.force === true });
      return show(r, `Deleted queue ${name} and ${r.deleted} job${r.deleted === 1 ? '' : 's'}.`);
    }
    case 'set': {
      const r = await client.call('queues.configure', configureParams(name, o));
      owned(r.queue);
      return show(r, queueDetails(r.queue, ctx.colors));
    }
  }
}

/**
 * Purge deletes jobs and their output for good: say how many and ask first (or take --yes), as
 * the count of the states it deletes (running jobs are never purged). Nothing to delete: no
 * question.
 */
async function confirmPurge(ctx: CliContext, { queue }: QueueResult, states: JobState[] | undefined, yes: boolean): Promise<void> {
  const purged = (states ?? JOB_STATES).filter((s) => s !== 'running');
  const count = purged.reduce((n, s) => n + queue.counts[s], 0);
  if (count === 0) return;
  const which = states === undefined ? 'every state but running' : purged.join(', ');
  await confirm(ctx, {
    what: `This deletes ${count} job${count === 1 ? '' : 's'} of ${queue.name} (${which}) and their output.`,
    question: 'Purge them?',
    yes,
  });
}

function configureParams(name: string, o: QueueOptions): ConfigureQueueParams {
  const p: ConfigureQueueParams = { name };
  if (o.concurrency !== undefined) p.concurrency = o.concurrency === 'none' ? null : orFail(concurrencyText(o.concurrency, '--concurrency'));
  if (o.rate !== undefined) p.rateLimit = parseRate(o.rate);
  if (o.groupConcurrency !== undefined) p.groupConcurrency = o.groupConcurrency === 'none' ? null : orFail(concurrencyText(o.groupConcurrency, '--group-concurrency'));
  if (o.groupRate !== undefined) p.groupRate = parseRate(o.groupRate);
  if (o.groupWeights !== undefined) p.groupWeights = orFail(parseGroupWeights(o.groupWeights, '--group-weights'));
  if (o.attempts !== undefined) p.defaultMaxAttempts = orFail(attemptsText(o.attempts, '--attempts'));
  if (o.backoff !== undefined) p.defaultBackoff = parseBackoff(o.backoff);
  if (o.timeout !== undefined) p.defaultTimeoutMs = parseTimeout(o.timeout);
  if (o.retention !== undefined) p.retentionMs = o.retention === 'forever' ? null : parseDuration(o.retention, '--retention');
  const limits = resolveLimitChanges(o);
  if (limits !== undefined) p.limits = limits;
  const retry = resolveRetryRule(o);
  if (o.retryRule !== undefined) {
    if (o.retryRule !== 'none') throw new CliError(`--retry-rule takes only none (it removes the queue's rule); got ${o.retryRule}. Set a rule with --retry-on-exit, --retry-never-exit and the like.`);
    if (retry !== undefined) throw new CliError('Use --retry-rule none or the --retry-on-…/--retry-never-… options, not both.');
    p.retry = null;
  } else if (retry !== undefined) p.retry = retry;
  if (o.expireAfter !== undefined) p.defaultExpireAfterMs = o.expireAfter === 'none' ? null : parseExpireAfter(o.expireAfter);
  if (o.ageing !== undefined) {
    const ageing = parseAgeing(o.ageing);
    if (!ageing.ok) throw new CliError(`--ageing ${JSON.stringify(o.ageing)} is not valid: ${ageing.message}`);
    p.ageing = ageing.value === null ? null : formatAgeing(ageing.value);
  }
  if (Object.keys(p).length === 1) {
    throw new CliError(
      'Nothing to set: give --concurrency, --rate, --group-concurrency, --group-rate, --group-weights, --attempts, --backoff, --timeout, --retention, --memory, --cpu, --open-files, --processes, a --retry-… option, --expire-after or --ageing.',
    );
  }
  return p;
}

/**
 * The lines under `spool queues` for due jobs that no live worker takes: the kinds of each
 * queue's due jobs are read from the 200 that have waited longest (and the 200 retrying ones due
 * soonest), so a queue of many jobs costs a call or two. Nothing when the workers cannot be read (a token that may not list them).
 */
async function noWorkerLines(client: SpoolClient, queues: readonly Queue[]): Promise<string[]> {
  const waiting = queues.filter((q) => dueCount(q.counts, q.delayed) + q.counts.retrying > 0);
  if (waiting.length === 0) return [];
  const workers = await client.call('workers.list').then((r) => r.workers, () => undefined);
  if (workers === undefined) return [];
  const now = Date.now();
  const due = new Map<string, Set<string>>();
  for (const q of waiting) due.set(q.name, new Set());
  // Due queued jobs oldest first, as the Queues view's Queued group lists them (served by the
  // listing index, not a sort of the queue); retrying ones soonest first, when there are any.
  const pages = waiting.flatMap((q) => [
    client.call('jobs.list', { queue: q.name, states: ['queued'], delayed: false, order: 'oldest', limit: 200 }),
    ...(q.counts.retrying > 0 ? [client.call('jobs.list', { queue: q.name, states: ['retrying'], order: 'runAt', limit: 200 })] : []),
  ]);
  for (const { jobs } of await Promise.all(pages)) {
    for (const job of jobs) if (job.runAt <= now) due.get(job.queue)?.add(job.kind);
  }
  return noWorkerNotes(due, workers, now);
}
