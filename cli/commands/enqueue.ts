/** `spool enqueue <queue> ...`: add a job; with --wait, follow it to its end. */
import type { Command } from 'commander';
import { LIMITS, type EnqueueParams } from '../../shared/protocol';
import { DEPENDENCY_CONDITIONS, TERMINAL_STATES, UNIQUE_WHILE, type DependsOn, type UniqueParams } from '../../shared/protocol/types';
import { UNIQUE_BY_RULE, uniqueKeyPart } from '../../shared/domain/rules/unique';
import { enqueueOutcome } from '../format/enqueued';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { readOutput } from '../follow';
import { enqueueContext } from '../gitcontext';
import { newQueueNote, queueNames } from '../hints';
import { addJobOptions, addJobSourceOptions, resolveJobOptions, resolveJobSource, type JobOptionValues, type JobSourceOptions } from '../jobsource';
import { jobEnded, outputPrinter } from '../output';
import { parseDuration } from '../parse/duration';
import { parseStartTime, type StartTime } from '../parse/startTime';
import { collect, parseInteger } from '../parse/values';
import { addLimitOptions, resolveLimits, type LimitOptionValues } from '../parse/limits';
import { addRetryOptions, parseDeadline, parseExpireAfter, resolveRetryRule, type RetryOptionValues } from '../parse/retry';

type EnqueueOptions = JobSourceOptions &
  JobOptionValues &
  LimitOptionValues &
  RetryOptionValues & {
    expireAfter?: string;
    deadline?: string;
    delay?: string;
    at?: string;
    key?: string;
    weight?: string;
    group?: string;
    wait?: boolean;
    json?: boolean;
    after?: string[];
    uniqueFor?: string;
    uniqueBy?: string;
    uniqueWhile?: string;
    debounce?: string;
    throttle?: string;
  };

/** `--after ID`, `--after ID:failed`, `--after ID:finished` (and `ID:succeeded`, the default spelt out). */
export function parseAfter(values: readonly string[]): DependsOn[] {
  return values.map((value) => {
    const colon = value.lastIndexOf(':');
    if (colon < 0) return value;
    const id = value.slice(0, colon);
    const on = DEPENDENCY_CONDITIONS.find((c) => c === value.slice(colon + 1));
    if (on === undefined || id === '') {
      throw new CliError(`--after ${value}: write a job id, optionally followed by :succeeded (the default), :failed or :finished, e.g. --after ${id || 'ID'}:failed.`);
    }
    return { id, on };
  });
}

export function registerEnqueue(program: Command): void {
  const cmd = program
    .command('enqueue')
    .description('Add a job to a queue and print its id')
    .argument('<queue>', 'the queue (created on first use)');
  addJobSourceOptions(cmd);
  addJobOptions(cmd);
  addLimitOptions(cmd, 'with --shell: ', false);
  addRetryOptions(cmd);
  cmd
    .option('--expire-after <duration>', 'end the job dead ("expired before it started") if it has not started within this long, e.g. 1h')
    .option('--deadline <time>', 'make no retry after this time: +6h from now, or a time such as 2026-05-01T18:00')
    .option('--delay <duration>', 'start no earlier than this from now, e.g. 30s, 5m, 2h')
    .option('--at <time>', 'start no earlier than this time: local unless it names a zone, e.g. 2026-05-01T09:00, 2026-05-01T09:00Z or +30m (a past time is refused)')
    .option('--weight <n>', `the room the job takes of its queue's concurrency and its worker's capacity while it runs (1..${LIMITS.maxWeight}, default 1)`)
    .option('--group <key>', 'the job\'s group, e.g. customer:42: the queue\'s --group-concurrency and --group-rate hold per group, and its claims take groups in turn')
    .option('--key <key>', 'idempotency key, global across queues: enqueueing the same key again returns the existing job (wherever it is) and enqueues nothing')
    .option('--wait', 'wait for the job to finish, showing its output; exit 0 if it completed, 1 if not')
    .option('--json', 'print the result as JSON (with --wait: one JSON object per line, the output lines, then {job})')
    .option('--after <id[:on]>', 'run only after job <id> ends: when it succeeded (the default), :failed or :finished whatever the outcome (repeatable); until then the job is blocked', collect)
    .option('--unique-for <duration>', 'for this long, enqueueing an equal job returns this one instead, e.g. 10m')
    .option('--unique-by <parts>', `what makes two jobs equal, comma-separated: ${UNIQUE_BY_RULE}; default queue,kind,payload (with --debounce or --throttle: queue,kind)`)
    .option('--unique-while <when>', `how long the existing job holds with --unique-for: waiting (until it starts), active (until it ends) or any (the whole window, the default)`)
    .option('--debounce <duration>', 'if an equal job is still queued, replace its payload and move its start to now + this, instead of adding a job, e.g. 5s')
    .option('--throttle <duration>', 'start equal jobs at least this far apart: this job waits until the previous one\'s start + this, e.g. 1m')
    .addHelpText(
      'after',
      `
Examples:
  spool enqueue default --shell "npm run build"
  spool enqueue ci --shell "make test" --wait
  spool enqueue encode --shell "ffmpeg -i in.mov out.mp4" --memory 2GiB --cpu 10m
  spool enqueue hooks --http https://example.com/hook --method POST --body '{"ok":true}'
  spool enqueue images --kind resize --payload '{"path":"a.png","width":640}' --priority 5
  spool enqueue video --shell "./encode.sh big.mov" --weight 4
  spool enqueue exports --kind export --payload '{"customer":42}' --group customer:42
  spool enqueue deploy --shell "make deploy" --after 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b
  spool enqueue builds --shell "make clean" --after 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b:finished
  spool enqueue images --kind resize --payload @job.json --delay 10m --attempts 5 --backoff exponential:1s:5m
  spool enqueue reports --kind monthly --payload '{"month":"2026-11"}' --unique-for 1h
  spool enqueue builds --shell "make site" --debounce 5s
  spool enqueue sync --kind pull --payload '{"repo":"app"}' --unique-by payload.repo --throttle 1m
  echo '{"n":1}' | spool enqueue work --kind count --payload - --key count-1
  spool enqueue sync --shell ./sync.sh --retry-on-exit 75 --retry-never-exit 2 --expire-after 1h --deadline +6h`,
    )
    .action(action<EnqueueOptions>(enqueue));
}

/** `--unique-for`, `--unique-by`, `--unique-while`, `--debounce`, `--throttle` as enqueue params. */
export function parseUniqueOptions(o: Pick<EnqueueOptions, 'uniqueFor' | 'uniqueBy' | 'uniqueWhile' | 'debounce' | 'throttle'>): Pick<EnqueueParams, 'unique' | 'debounce' | 'throttle'> {
  const rules = [o.uniqueFor !== undefined ? '--unique-for' : null, o.debounce !== undefined ? '--debounce' : null, o.throttle !== undefined ? '--throttle' : null].filter((r) => r !== null);
  if (rules.length > 1) throw new CliError(`Use one of --unique-for, --debounce and --throttle, not ${rules.join(' and ')}.`);
  if (rules.length === 0) {
    if (o.uniqueBy !== undefined || o.uniqueWhile !== undefined) throw new CliError(`${o.uniqueBy !== undefined ? '--unique-by' : '--unique-while'} goes with --unique-for${o.uniqueBy !== undefined ? ', --debounce or --throttle' : ''}: add one, e.g. --unique-for 10m.`);
    return {};
  }
  const unique: UniqueParams = {};
  if (o.uniqueBy !== undefined) {
    unique.by = o.uniqueBy.split(',').map((part, i, all) => {
      try {
        return uniqueKeyPart(part.trim(), '--unique-by');
      } catch {
        throw new CliError(`--unique-by ${o.uniqueBy}: "${part.trim()}"${all.length > 1 ? ` (part ${i + 1})` : ''} is not one of ${UNIQUE_BY_RULE}.`);
      }
    });
  }
  if (o.uniqueWhile !== undefined) {
    const when = UNIQUE_WHILE.find((w) => w === o.uniqueWhile);
    if (when === undefined) throw new CliError(`--unique-while ${o.uniqueWhile}: use waiting (until the job starts), active (until it ends) or any (the whole window).`);
    if (o.uniqueFor === undefined) throw new CliError('--unique-while goes with --unique-for, not with --debounce or --throttle.');
    unique.while = when;
  }
  if (o.uniqueFor !== undefined) return { unique: { ...unique, for: parseDuration(o.uniqueFor, '--unique-for') } };
  const hasBy = unique.by !== undefined ? { unique } : {};
  if (o.debounce !== undefined) return { debounce: parseDuration(o.debounce, '--debounce'), ...hasBy };
  return { throttle: parseDuration(o.throttle ?? '', '--throttle'), ...hasBy };
}

async function enqueue(ctx: CliContext, args: (string | string[] | undefined)[], o: EnqueueOptions): Promise<number> {
  const queue = arg(args, 0);
  const source = await resolveJobSource(o, ctx.target() !== null ? ctx : null);
  const params: EnqueueParams = { queue, ...source, ...resolveJobOptions(o), context: enqueueContext() };
  const limits = resolveLimits(o);
  if (limits !== undefined) {
    if (o.shell === undefined || typeof params.payload !== 'object' || params.payload === null) {
      throw new CliError('--memory, --cpu, --open-files and --processes limit a shell job: use them with --shell "<command>". A queue\'s limits are set with spool queue <name> set.');
    }
    params.payload = { ...params.payload, limits };
  }
  if (o.delay !== undefined && o.at !== undefined) throw new CliError('Use --delay or --at, not both.');
  if (o.delay !== undefined) params.delayMs = parseDuration(o.delay, '--delay');
  let start: StartTime | null = null;
  if (o.at !== undefined) {
    start = parseStartTime(o.at, '--at');
    params.runAt = start.at;
  }
  if (o.key !== undefined) params.idempotencyKey = o.key;
  if (o.group !== undefined) params.group = o.group;
  if (o.weight !== undefined) params.weight = parseInteger(o.weight, '--weight', 1, LIMITS.maxWeight);
  if (o.after !== undefined && o.after.length > 0) params.dependsOn = parseAfter(o.after);
  Object.assign(params, parseUniqueOptions(o));
  const retry = resolveRetryRule(o);
  if (retry !== undefined) params.retry = retry;
  if (o.expireAfter !== undefined) params.expireAfterMs = parseExpireAfter(o.expireAfter);
  if (o.deadline !== undefined) Object.assign(params, parseDeadline(o.deadline));
  const client = await ctx.client();
  const queuesBefore = await queueNames(client);
  const result = await client.call('jobs.enqueue', params);
  const job = result.job;
  // An idempotency key is global across queues: the job it matched may sit in another queue than
  // the one named here, and this command made nothing, so neither a new-queue note nor an
  // "Enqueued" line applies; what follows is the existing job, wherever it is. The same for the
  // job a unique rule or a debounce matched.
  const outcome = enqueueOutcome(result, o.key);
  const existing = result.created ? null : outcome;
  if (result.created && outcome !== null) ctx.note(outcome);
  if (existing === null) {
    const typo = newQueueNote(queue, queuesBefore);
    if (typo !== null) ctx.note(typo);
    // --at is read in the local zone unless it names one: say which, so 09:00 is not taken for UTC.
    if (start !== null) ctx.note(`Job ${job.id} runs at ${start.shown}${start.passed ? ' (that time has just passed: it may start at once)' : ''}.`);
  }
  if (!o.wait) {
    if (o.json) ctx.printJson(result);
    else {
      ctx.print(job.id);
      if (existing !== null) ctx.note(existing);
    }
    return 0;
  }
  if (!o.json) {
    const waiting = existing !== null ? `${existing} Waiting for that job to finish` : `Enqueued ${job.id} on ${queue}; waiting for it to finish`;
    ctx.note(ctx.colors.dim(`${waiting} (Ctrl-C stops waiting, not the job).`));
  } else if (existing !== null) ctx.note(existing);
  await readOutput(client, job.id, job.queue, { follow: true, onLines: outputPrinter(ctx, o.json === true) });
  const final = (await client.call('jobs.get', { id: job.id })).job;
  // One JSON object per line throughout, so that a script can read the output lines and the job alike.
  if (o.json) {
    ctx.print(JSON.stringify({ job: final }));
    if (!TERMINAL_STATES.includes(final.state)) throw new CliError(`Job ${final.id} is still ${final.state}.`);
    return final.state === 'completed' ? 0 : 1;
  }
  return jobEnded(ctx, final, { quiet: false });
}
