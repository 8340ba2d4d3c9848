/** `spool schedules` and `spool schedule add|set|rm|enable|disable|run|show <name>`. */
import type { Command } from 'commander';
import type { CreateScheduleParams, UpdateScheduleParams } from '../../shared/protocol';
import type { MissedRunPolicy } from '../../shared/protocol/types';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { ownedChangeNote } from '../owned';
import { inZone, scheduleDetails, schedulesTable } from '../format/records';
import { formatRelative, formatTimestamp } from '../format/time';
import { addJobOptions, addJobSourceOptions, resolveJobOptions, resolveJobSource, type JobOptionValues, type JobSourceOptions } from '../jobsource';

type AddOptions = JobSourceOptions &
  JobOptionValues & { cron: string; tz?: string; queue: string; missed?: string; disabled?: boolean; json?: boolean };
type SetOptions = JobSourceOptions & JobOptionValues & { cron?: string; tz?: string; queue?: string; missed?: string; json?: boolean };

export function registerSchedules(program: Command): void {
  program
    .command('schedules')
    .description('List schedules with their next and last run')
    .option('--json', 'print {schedules} as JSON')
    .addHelpText('after', '\nExamples:\n  spool schedules\n  spool schedules --json')
    .action(
      action<{ json?: boolean }>(async (ctx, _args, o) => {
        const result = await (await ctx.client()).call('schedules.list');
        if (o.json) return ctx.printJson(result);
        if (result.schedules.length === 0) return ctx.note('No schedules. Add one: spool schedule add nightly --cron "0 3 * * *" --queue default --shell "make backup"');
        ctx.print(schedulesTable(result.schedules, ctx.colors));
      }),
    );

  const schedule = program
    .command('schedule')
    .description('Add, change, remove, enable, disable, run or show a schedule')
    .addHelpText(
      'after',
      `
Examples:
  spool schedule add cleanup --cron "*/5 * * * *" --queue maintenance --shell "make clean"
  spool schedule add report --cron "0 9 * * 1-5" --tz Europe/Paris --queue mail --kind send-report --payload '{"to":"team"}'
  spool schedule set cleanup --cron "*/15 * * * *"
  spool schedule run cleanup
  spool schedule disable cleanup
  spool schedule rm cleanup`,
    );

  const add = schedule
    .command('add')
    .description('Create a schedule; prints its next three fire times')
    .argument('<name>', 'the schedule name')
    .requiredOption('--cron <expression>', 'cron: 5 fields (minute hour day month weekday) or 6 (seconds first)')
    .option('--tz <zone>', 'IANA time zone, e.g. Europe/Paris (default UTC)')
    .requiredOption('-q, --queue <queue>', 'the queue its jobs go to');
  addJobSourceOptions(add);
  addJobOptions(add);
  add
    .option('--missed <policy>', 'fire times missed while no daemon ran: skip (default) or run-once')
    .option('--disabled', 'create it disabled')
    .option('--json', 'print {schedule, nextRuns} as JSON')
    .addHelpText('after', '\nExamples:\n  spool schedule add cleanup --cron "*/5 * * * *" --queue maintenance --shell "make clean"\n  spool schedule add tick --cron "*/10 * * * * *" --queue demo --kind tick')
    .action(
      action<AddOptions>(async (ctx, args, o) => {
        const name = arg(args, 0);
        const source = await resolveJobSource(o, ctx.target() !== null ? ctx : null);
        const params: CreateScheduleParams = {
          name,
          cron: o.cron,
          queue: o.queue,
          job: { ...source, ...resolveJobOptions(o) },
          enabled: o.disabled !== true,
        };
        if (o.tz) params.timezone = o.tz;
        if (o.missed !== undefined) params.missedPolicy = parseMissed(o.missed);
        const result = await (await ctx.client()).call('schedules.create', params);
        if (o.json) return ctx.printJson(result);
        ctx.print(`Created schedule ${name} (${result.schedule.cron}, ${result.schedule.timezone}) on queue ${result.schedule.queue}.`);
        if (result.nextRuns.length > 0) {
          ctx.print('Next runs:');
          for (const t of result.nextRuns) ctx.print(`  ${formatTimestamp(t)}  (${inZone(t, result.schedule.timezone)}${formatRelative(t)})`);
        }
      }),
    );

  const set = schedule
    .command('set')
    .description("Change a schedule: only what you name changes; prints its next three fire times")
    .argument('<name>', 'the schedule name')
    .option('--cron <expression>', 'a new cron expression')
    .option('--tz <zone>', 'a new IANA time zone')
    .option('-q, --queue <queue>', 'a new queue for its jobs');
  addJobSourceOptions(set);
  addJobOptions(set);
  set
    .option('--missed <policy>', 'skip or run-once')
    .option('--json', 'print {schedule, nextRuns} as JSON')
    .addHelpText(
      'after',
      `
--shell, --http or --kind replace the job; --priority, --attempts, --backoff, --timeout and --tag
alone change those of the job it has.

Examples:
  spool schedule set cleanup --cron "*/15 * * * *"
  spool schedule set report --tz America/New_York --attempts 5
  spool schedule set cleanup --shell "make clean-all"`,
    )
    .action(
      action<SetOptions>(async (ctx, args, o) => {
        const name = arg(args, 0);
        const client = await ctx.client();
        const params: UpdateScheduleParams = { name };
        if (o.cron !== undefined) params.cron = o.cron;
        if (o.tz !== undefined) params.timezone = o.tz;
        if (o.queue !== undefined) params.queue = o.queue;
        if (o.missed !== undefined) params.missedPolicy = parseMissed(o.missed);
        const options = resolveJobOptions(o);
        if (o.shell !== undefined || o.http !== undefined || o.kind !== undefined) params.job = { ...(await resolveJobSource(o, ctx.target() !== null ? ctx : null)), ...options };
        else if (Object.keys(options).length > 0) params.job = { ...(await client.call('schedules.get', { name })).schedule.job, ...options };
        if (Object.keys(params).length === 1) {
          throw new CliError('Say what to change: --cron, --tz, --queue, --missed, the job (--shell, --http or --kind), or its --priority, --attempts, --backoff, --timeout or --tag.');
        }
        const result = await client.call('schedules.update', params);
        ownedNote(ctx, name, result.schedule.owner, 'changed');
        if (o.json) return ctx.printJson(result);
        ctx.print(scheduleDetails(result, ctx.colors));
      }),
    );

  const simple: { verb: string; description: string; method: 'schedules.delete' | 'schedules.enable' | 'schedules.disable' | 'schedules.trigger' | 'schedules.get' }[] = [
    { verb: 'rm', description: 'Delete a schedule (jobs it enqueued stay)', method: 'schedules.delete' },
    { verb: 'enable', description: 'Enable a schedule', method: 'schedules.enable' },
    { verb: 'disable', description: 'Disable a schedule (it keeps its settings)', method: 'schedules.disable' },
    { verb: 'run', description: "Enqueue the schedule's job now, or start a run of its workflow (its next fire time does not change)", method: 'schedules.trigger' },
    { verb: 'show', description: 'Show a schedule and its next fire times', method: 'schedules.get' },
  ];
  for (const s of simple) {
    schedule
      .command(s.verb)
      .description(s.description)
      .argument('<name>', 'the schedule name')
      .option('--json', 'print the result as JSON')
      .addHelpText('after', `\nExample:\n  spool schedule ${s.verb} cleanup`)
      .action(
        action<{ json?: boolean }>(async (ctx, args, o) => {
          const name = arg(args, 0);
          const client = await ctx.client();
          switch (s.method) {
            case 'schedules.delete': {
              const { owner } = (await client.call('schedules.get', { name })).schedule;
              const r = await client.call(s.method, { name });
              ownedNote(ctx, name, owner, 'deleted');
              return o.json ? ctx.printJson(r) : ctx.print(`Deleted schedule ${name}.`);
            }
            case 'schedules.trigger': {
              const r = await client.call(s.method, { name });
              if (o.json) return ctx.printJson(r);
              // A workflow schedule starts a run: its id is what `spool workflow show` takes.
              return ctx.print(r.run !== undefined ? `Started run ${r.run.id} of workflow ${r.run.workflow}. Follow it: spool workflow wait ${r.run.id}` : r.job.id);
            }
            case 'schedules.enable':
            case 'schedules.disable':
            case 'schedules.get': {
              const r = await client.call(s.method, { name });
              if (s.method !== 'schedules.get') ownedNote(ctx, name, r.schedule.owner, 'changed');
              return o.json ? ctx.printJson(r) : ctx.print(scheduleDetails(r, ctx.colors));
            }
          }
        }),
      );
  }
}

/** A warning on stderr when spool.jsonc owns the schedule just changed by hand. */
function ownedNote(ctx: CliContext, name: string, owner: string | undefined, change: 'changed' | 'deleted'): void {
  const note = ownedChangeNote('schedule', name, owner, change);
  if (note !== null) ctx.note(ctx.colors.yellow(note));
}

function parseMissed(text: string): MissedRunPolicy {
  if (text === 'skip') return 'skip';
  if (text === 'run-once' || text === 'runOnce') return 'runOnce';
  throw new CliError(`Unknown --missed policy "${text}": use skip or run-once.`);
}
