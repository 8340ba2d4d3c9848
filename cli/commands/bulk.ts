/** `spool retry|cancel|delete <id...>` and their bulk forms over a queue and states. */
import type { Command } from 'commander';
import type { SpoolClient } from '../../shared/client';
import { bulkDefaultStates } from '../../shared/domain/states';
import type { BulkParams, BulkResult } from '../../shared/protocol';
import { action, list } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { collect, parseStates } from '../parse/values';

type BulkOptions = { queue?: string; state?: string[]; kind?: string; json?: boolean };

interface Verb {
  name: 'retry' | 'cancel' | 'delete';
  past: string;
  description: string;
  example: string;
  one(client: SpoolClient, id: string): Promise<unknown>;
  many(client: SpoolClient, params: BulkParams): Promise<BulkResult>;
}

const VERBS: Verb[] = [
  {
    name: 'retry',
    past: 'Retried',
    description: 'Run dead, cancelled or completed jobs again with a fresh attempt budget',
    example: 'spool retry --queue images --state dead',
    one: (c, id) => c.call('jobs.retry', { id }),
    many: (c, p) => c.call('jobs.retryMany', p),
  },
  {
    name: 'cancel',
    past: 'Cancelled',
    description: 'Cancel jobs: waiting ones at once, running ones as soon as their worker stops them',
    example: 'spool cancel --queue images --state queued',
    one: (c, id) => c.call('jobs.cancel', { id }),
    many: (c, p) => c.call('jobs.cancelMany', p),
  },
  {
    name: 'delete',
    past: 'Deleted',
    description: 'Delete jobs and their output (not running ones: cancel them first)',
    example: 'spool delete --queue images --state completed',
    one: (c, id) => c.call('jobs.delete', { id }),
    many: (c, p) => c.call('jobs.deleteMany', p),
  },
];

export function registerBulk(program: Command): void {
  for (const verb of VERBS) {
    program
      .command(verb.name)
      .description(verb.description)
      .argument('[ids...]', 'job ids')
      .option('-q, --queue <queue>', 'instead of ids: every matching job of this queue')
      .option('-s, --state <state>', `with --queue: these states (default ${bulkDefaultStates(verb.name).join(',')})`, collect)
      .option('-k, --kind <kind>', 'with --queue: only this kind')
      .option('--json', `print {count, errors${verb.name === 'cancel' ? ', stopRequested' : ''}} as JSON`)
      .addHelpText('after', `\nExamples:\n  spool ${verb.name} 0193f0c2-7a4e-7b1c-9d2e-3f4a5b6c7d8e\n  ${verb.example}`)
      .action(action<BulkOptions>((ctx, args, o) => runVerb(ctx, verb, list(args, 0), o)));
  }
}

async function runVerb(ctx: CliContext, verb: Verb, ids: string[], o: BulkOptions): Promise<number> {
  if (ids.length > 0 && o.queue) throw new CliError(`Give job ids or --queue, not both.`);
  if (ids.length === 0 && !o.queue) throw new CliError(`Say which jobs: spool ${verb.name} <id...>, or spool ${verb.name} --queue <queue> [--state ...].`);
  const client = await ctx.client();
  let result: BulkResult;
  let mayBeRunning = ids.length > 1;
  if (ids.length === 1 && ids[0] !== undefined) {
    // One id: the single-job method, whose error says exactly why (not found, wrong state).
    const answer = await verb.one(client, ids[0]);
    const running = verb.name === 'cancel' && isRunningJob(answer);
    if (running && !o.json) {
      // A running job is not cancelled yet: its worker or executor is told and stops it.
      ctx.print(`Cancel requested for job ${ids[0]}: it is running and ends as cancelled once its worker stops it.`);
      return 0;
    }
    // As jobs.cancelMany answers, so that --json reads the same for one id or many.
    result = verb.name === 'cancel' ? { count: 1, errors: [], stopRequested: running ? 1 : 0 } : { count: 1, errors: [] };
  } else if (ids.length > 0) {
    result = await verb.many(client, { ids });
  } else {
    // The defaults are the transitions table's (shared/domain/states.ts), where each is explained.
    const states = o.state !== undefined ? parseStates(o.state) : [...bulkDefaultStates(verb.name)];
    mayBeRunning = states.includes('running');
    result = await verb.many(client, { filter: { queue: o.queue ?? '', states, ...(o.kind ? { kind: o.kind } : {}) } });
    // Nothing matched: a queue that does not exist is a mistake to report, not "0 jobs".
    if (result.count === 0 && result.errors.length === 0) await client.call('queues.get', { name: o.queue ?? '' });
  }
  if (o.json) ctx.printJson(result);
  else {
    ctx.print(summary(verb, result, mayBeRunning));
    for (const e of result.errors) ctx.note(`${e.id}: ${e.message}`);
  }
  return result.errors.length > 0 ? 1 : 0;
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
