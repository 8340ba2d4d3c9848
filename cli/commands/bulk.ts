/** `spool retry|cancel|delete|hold|release|edit <id...>` and their bulk forms over a queue (or every queue), states, kind, tag, text and branch. */
import type { Command } from 'commander';
import type { SpoolClient } from '../../shared/client/client';
import { bulkDefaultStates } from '../../shared/domain/states';
import type { BulkParams, BulkResult, JobFilter } from '../../shared/protocol';
import { action, list } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { parseDuration } from '../parse/duration';
import { collect, parseInteger, parseQueues, parseStates } from '../parse/values';
import { LIMITS } from '../../shared/protocol';

type BulkOptions = {
  queue?: string[];
  state?: string[];
  kind?: string;
  tag?: string;
  search?: string;
  branch?: string;
  olderThan?: string;
  group?: string;
  dryRun?: boolean;
  json?: boolean;
  cascade?: boolean;
  priority?: string;
};

interface Verb {
  name: 'retry' | 'cancel' | 'delete' | 'hold' | 'release' | 'edit';
  /** The action of the transitions table (shared/domain/states.ts) it takes. */
  action: 'retry' | 'cancel' | 'delete' | 'hold' | 'unhold' | 'update';
  past: string;
  description: string;
  example: string;
  one(client: SpoolClient, id: string, o: BulkOptions): Promise<unknown>;
  many(client: SpoolClient, params: BulkParams, o: BulkOptions): Promise<BulkResult>;
}

const VERBS: Verb[] = [
  {
    name: 'retry',
    action: 'retry',
    past: 'Retried',
    description: 'Run dead, cancelled or completed jobs again with a fresh attempt budget',
    example: 'spool retry --state dead',
    one: (c, id) => c.call('jobs.retry', { id }),
    many: (c, p) => c.call('jobs.retryMany', p),
  },
  {
    name: 'cancel',
    action: 'cancel',
    past: 'Cancelled',
    description: 'Cancel jobs: waiting ones at once, running ones as soon as their worker stops them',
    example: 'spool cancel --queue images --state queued',
    one: (c, id) => c.call('jobs.cancel', { id }),
    many: (c, p) => c.call('jobs.cancelMany', p),
  },
  {
    name: 'delete',
    action: 'delete',
    past: 'Deleted',
    description: 'Delete jobs and their output (not running ones: cancel them first; not one that unfinished jobs depend on, unless --cascade)',
    example: 'spool delete --queue images --state completed',
    one: (c, id) => c.call('jobs.delete', { id }),
    many: (c, p) => c.call('jobs.deleteMany', p),
  },
  {
    name: 'hold',
    action: 'hold',
    past: 'Held',
    description: 'Hold waiting jobs (blocked, queued, delayed or retrying): no worker takes them until they are released',
    example: 'spool hold --queue images --state queued',
    one: (c, id) => c.call('jobs.hold', { id }),
    many: (c, p) => c.call('jobs.holdMany', p),
  },
  {
    name: 'release',
    action: 'unhold',
    past: 'Released',
    description: 'Release held jobs: each waits again as it did (blocked on its dependencies, retrying, or queued at its run time)',
    example: 'spool release --queue images',
    one: (c, id) => c.call('jobs.unhold', { id }),
    many: (c, p) => c.call('jobs.unholdMany', p),
  },
  {
    name: 'edit',
    action: 'update',
    past: 'Set the priority of',
    description: 'Set the priority of jobs that have not started (blocked, queued, delayed, retrying or held); one job\'s other fields: spool job edit',
    example: 'spool edit --priority 5 --queue images --state queued',
    one: (c, id, o) => c.call('jobs.update', { id, priority: priorityOf(o) }),
    many: (c, p, o) => c.call('jobs.updateMany', { ...p, priority: priorityOf(o) }),
  },
];

/** `spool edit --priority <n>`: the priority given. */
function priorityOf(o: BulkOptions): number {
  if (o.priority === undefined) throw new CliError('Say what to change: --priority <n> (the other fields of one job change with spool job edit).');
  return parseInteger(o.priority, '--priority', LIMITS.minPriority, LIMITS.maxPriority);
}

export function registerBulk(program: Command): void {
  for (const verb of VERBS) {
    const cmd = program.command(verb.name);
    if (verb.name === 'delete') cmd.option('--cascade', 'with one id: delete the jobs that depend on it (and on them) too');
    if (verb.name === 'edit') cmd.option('--priority <n>', 'the priority each job gets (higher runs first)');
    cmd
      .description(verb.description)
      .argument('[ids...]', 'job ids')
      .option('-q, --queue <queue>', 'instead of ids: every matching job of these queues, comma-separated or repeated (without it: of every queue)', collect)
      .option('-s, --state <state>', `instead of ids: jobs in these states (default ${bulkDefaultStates(verb.action).join(',')})`, collect)
      .option('-k, --kind <kind>', 'instead of ids: only this kind')
      .option('-t, --tag <tag>', 'instead of ids: only jobs with this tag')
      .option('--search <text>', 'instead of ids: only jobs with this text in the payload or the last error')
      .option('--branch <branch>', 'instead of ids: only jobs enqueued from this git branch')
      .option('--older-than <duration>', 'instead of ids: only jobs created longer ago than this, e.g. 2h, 7d')
      .option('--group <key>', 'instead of ids: only jobs of this group (enqueue --group)')
      .option('--dry-run', `count the jobs it would ${verb.name}, and in how many queues, and change nothing`)
      .option('--json', `print {count, errors${verb.name === 'cancel' ? ', stopRequested' : ''}} as JSON (with --dry-run: {count, queues})`)
      .addHelpText(
        'after',
        `\nWithout --queue, the filters apply across every queue.\n\nExamples:\n  spool ${verb.name} 0193f0c2-7a4e-7b1c-9d2e-3f4a5b6c7d8e\n  ${verb.example}\n  spool ${verb.name} --queue images --tag nightly --search "out of memory"\n  spool ${verb.name} --branch feature/login\n  spool ${verb.name} --state ${bulkDefaultStates(verb.action)[0] ?? 'queued'} --older-than 7d --dry-run`,
      )
      .action(action<BulkOptions>((ctx, args, o) => runVerb(ctx, verb, list(args, 0), o)));
  }
}

async function runVerb(ctx: CliContext, verb: Verb, ids: string[], o: BulkOptions): Promise<number> {
  const filters = filterFlags(o);
  if (ids.length > 0 && (o.queue !== undefined || filters.length > 0)) throw new CliError(`Give job ids or --queue${filters.length > 0 ? ` and ${filters.join(', ')}` : ''}, not both.`);
  if (ids.length === 0 && o.queue === undefined && filters.length === 0) {
    throw new CliError(`Say which jobs: spool ${verb.name} <id...>, or spool ${verb.name} [--queue <queue>] --state … (or --kind, --tag, --search, --branch, --older-than, --group).`);
  }
  if (o.cascade && ids.length !== 1) throw new CliError('--cascade deletes one job with the jobs that depend on it: give one job id.');
  if (o.cascade && o.dryRun) throw new CliError('--dry-run counts the jobs of a filter or a list of ids; leave out --cascade.');
  const dryRun = o.dryRun === true ? { dryRun: true } : {};
  const client = await ctx.client();
  let result: BulkResult;
  let mayBeRunning = ids.length > 1;
  if (o.cascade && ids[0] !== undefined) {
    result = { count: (await client.call('jobs.delete', { id: ids[0], cascade: true })).deleted, errors: [] };
  } else if (ids.length === 1 && ids[0] !== undefined && o.dryRun !== true) {
    // One id: the single-job method, whose error says exactly why (not found, wrong state).
    const answer = await verb.one(client, ids[0], o);
    const running = verb.name === 'cancel' && isRunningJob(answer);
    if (running && !o.json) {
      // A running job is not cancelled yet: its worker or executor is told and stops it.
      ctx.print(`Cancel requested for job ${ids[0]}: it is running and ends as cancelled once its worker stops it.`);
      return 0;
    }
    // As jobs.cancelMany answers, so that --json reads the same for one id or many.
    result = verb.name === 'cancel' ? { count: 1, errors: [], stopRequested: running ? 1 : 0 } : { count: 1, errors: [] };
  } else if (ids.length > 0) {
    result = await verb.many(client, { ids, ...dryRun }, o);
  } else {
    // The defaults are the transitions table's (shared/domain/states.ts), where each is explained.
    const states = o.state !== undefined ? parseStates(o.state) : [...bulkDefaultStates(verb.action)];
    mayBeRunning = states.includes('running');
    const filter = {
      states,
      ...(o.kind !== undefined ? { kind: o.kind } : {}),
      ...(o.tag !== undefined ? { tag: o.tag } : {}),
      ...(o.search !== undefined ? { search: o.search } : {}),
      ...(o.branch !== undefined ? { branch: o.branch } : {}),
      ...(o.olderThan !== undefined ? { olderThanMs: parseDuration(o.olderThan, '--older-than') } : {}),
      ...(o.group !== undefined ? { group: o.group } : {}),
    };
    const queues = o.queue !== undefined ? parseQueues(o.queue) : [];
    result = queues.length === 0 ? await verb.many(client, { filter, ...dryRun }, o) : await manyQueues(client, verb, queues, filter, o);
  }
  if (o.json) ctx.printJson(result);
  else if (o.dryRun === true) {
    const queues = result.queues ?? 0;
    ctx.print(`Would ${verb.name} ${jobs(result.count)}${result.count > 0 ? ` in ${queues} queue${queues === 1 ? '' : 's'}` : ''}; nothing was changed.`);
    return 0;
  } else {
    ctx.print(summary(verb, result, mayBeRunning));
    for (const line of errorLines(verb, result.errors)) ctx.note(line);
  }
  return result.errors.length > 0 ? 1 : 0;
}

/**
 * A bulk action over each queue given, in turn (the protocol's filter names one queue), and the
 * results summed. Nothing matched in a queue that does not exist is a mistake to report, not
 * "0 jobs".
 */
async function manyQueues(client: SpoolClient, verb: Verb, queues: readonly string[], filter: JobFilter, o: BulkOptions): Promise<BulkResult> {
  const dryRun = o.dryRun === true;
  const total: BulkResult = { count: 0, errors: [], ...(dryRun ? { queues: 0 } : {}) };
  for (const queue of queues) {
    const result = await verb.many(client, { filter: { ...filter, queue }, ...(dryRun ? { dryRun } : {}) }, o);
    if (result.queues !== undefined) total.queues = (total.queues ?? 0) + result.queues;
    if (result.count === 0 && result.errors.length === 0) await client.call('queues.get', { name: queue });
    total.count += result.count;
    total.errors.push(...result.errors);
    if (result.stopRequested !== undefined) total.stopRequested = (total.stopRequested ?? 0) + result.stopRequested;
  }
  return total;
}

/**
 * The jobs a bulk command could not act on, one line per reason: `spool cancel --state completed`
 * over 135 finished jobs says once why none could be cancelled, not 135 times. A reason met by
 * one job keeps its own line, with its id.
 */
function errorLines(verb: Verb, errors: BulkResult['errors']): string[] {
  const prefix = (id: string): string => `Cannot ${verb.name} job ${id}: `;
  const byReason = new Map<string, { ids: string[]; reason: string }>();
  const lines: string[] = [];
  for (const e of errors) {
    if (!e.message.startsWith(prefix(e.id))) {
      lines.push(`${e.id}: ${e.message}`);
      continue;
    }
    const reason = e.message.slice(prefix(e.id).length);
    const group = byReason.get(reason) ?? { ids: [], reason };
    group.ids.push(e.id);
    byReason.set(reason, group);
  }
  for (const { ids, reason } of byReason.values()) {
    const [first] = ids;
    if (ids.length === 1 && first !== undefined) lines.push(`${first}: ${prefix(first)}${reason}`);
    else {
      // The reason is said of one job ("it is already finished… Retry it"): said of them all.
      const plural = reason.replace(/^it is /, 'they are ').replace(/\bit\b/g, 'them');
      lines.push(`Cannot ${verb.name} ${jobs(ids.length)} (${first} and ${ids.length - 1} more; --json lists them): ${plural}`);
    }
  }
  return lines;
}

/** The filter options given besides --queue, as typed: `--state`, `--kind`, `--tag`, `--search`, `--branch`, `--older-than`, `--group`. */
function filterFlags(o: BulkOptions): string[] {
  const given: [unknown, string][] = [
    [o.state, '--state'],
    [o.kind, '--kind'],
    [o.tag, '--tag'],
    [o.search, '--search'],
    [o.branch, '--branch'],
    [o.olderThan, '--older-than'],
    [o.group, '--group'],
  ];
  return given.filter(([value]) => value !== undefined).map(([, flag]) => flag);
}

function jobs(n: number): string {
  return `${n} job${n === 1 ? '' : 's'}`;
}

function summary(verb: Verb, result: BulkResult, mayBeRunning: boolean): string {
  if (verb.name !== 'cancel') return `${verb.past} ${jobs(result.count)}.`;
  const asked = result.stopRequested;
  // A daemon from before stopRequested: the count may include running jobs only asked to stop.
  if (asked === undefined) return `Cancelled ${jobs(result.count)}${mayBeRunning ? ' (running ones end as cancelled once their worker stops them)' : ''}.`;
  if (asked === 0) return `Cancelled ${jobs(result.count)}.`;
  const waiting = result.count - asked;
  const running =
    asked === 1
      ? 'asked 1 running job to stop: it ends as cancelled once its worker stops it'
      : `asked ${asked} running jobs to stop: they end as cancelled once their workers stop them`;
  return waiting === 0 ? `${running[0]?.toUpperCase()}${running.slice(1)}.` : `Cancelled ${jobs(waiting)}; ${running}.`;
}

function isRunningJob(answer: unknown): boolean {
  if (typeof answer !== 'object' || answer === null || !('job' in answer)) return false;
  const job: unknown = answer.job;
  return typeof job === 'object' && job !== null && 'state' in job && job.state === 'running';
}
