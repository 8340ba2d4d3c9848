/** `spool run TEMPLATE`: enqueue a template of the jobs file by name, with parameters. */
import type { Command } from 'commander';
import { TERMINAL_STATES } from '../../shared/protocol/types';
import { formatDuration } from '../../shared/domain/durations';
import { action, arg } from '../action';
import { CliError } from '../errors';
import { readOutput } from '../follow';
import { DEFAULT_FILES, readJobsFile } from '../jobsfile/read';
import { outputPrinter } from '../output';
import * as fs from 'node:fs';

/** `--param k=v`, repeatable, collected into an object; the first "=" splits. */
function collectParam(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new CliError(`--param takes name=value (got "${value}").`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

export function registerRun(program: Command): void {
  program
    .command('run <template>')
    .description('Enqueue a template of the jobs file (as last applied) by name; --param fills its {{name}} placeholders')
    .option('-p, --param <name=value>', 'a value for one of the template\'s parameters (repeatable); its defaults fill the rest', collectParam)
    .option('-f, --file <path>', 'the jobs file whose project owns the template (default: spool.jsonc, else spool.json, if present)')
    .option('--wait', 'wait for the job to finish, showing its output; exit 0 if it completed, 1 if not')
    .option('--json', 'print {job, created} as JSON (with --wait: the output lines, then {job})')
    .addHelpText(
      'after',
      `
The daemon holds the templates a \`spool apply\` stored: run \`spool apply\` first after changing one.
With a jobs file in the current folder (or --file), the template must be that project's.

Examples:
  spool run db-backup --param target=staging
  spool run send-digest -p audience=staff -p since=1h --wait`,
    )
    .action(
      action<{ param?: Record<string, string>; file?: string; wait?: boolean; json?: boolean }>(async (ctx, args, o) => {
        const name = arg(args, 0);
        const hasFile = o.file !== undefined || DEFAULT_FILES.some((f) => fs.existsSync(f));
        const project = hasFile ? readJobsFile(o.file, (line) => ctx.note(line)).declaration.project : undefined;
        const client = await ctx.client();
        const result = await client.call('templates.enqueue', { name, params: o.param ?? {}, ...(project === undefined ? {} : { project }) });
        const job = result.job;
        if (!o.wait) {
          if (o.json) ctx.printJson(result);
          else ctx.print(job.id);
          return 0;
        }
        if (!o.json) ctx.note(ctx.colors.dim(`Enqueued ${job.id} (template ${name}) on ${job.queue}; waiting for it to finish (Ctrl-C stops waiting, not the job).`));
        await readOutput(client, job.id, job.queue, { follow: true, onLines: outputPrinter(ctx, o.json === true) });
        const final = (await client.call('jobs.get', { id: job.id })).job;
        if (o.json) ctx.print(JSON.stringify({ job: final }));
        else {
          const took = final.startedAt !== null && final.finishedAt !== null ? ` in ${formatDuration(final.finishedAt - final.startedAt)}` : '';
          if (final.state === 'completed') ctx.note(ctx.colors.green(`Job ${final.id} completed${took}.`));
          else ctx.note(ctx.colors.red(`Job ${final.id} is ${final.state} after ${final.attempts} attempt(s).`));
        }
        if (!TERMINAL_STATES.includes(final.state)) throw new CliError(`Job ${final.id} is still ${final.state}.`);
        return final.state === 'completed' ? 0 : 1;
      }),
    );
}
