/**
 * `spool run NAME`: start a run of a workflow (commands/runWorkflow.ts) or enqueue a template, by
 * name, with parameters. A workflow of the jobs file in this folder comes first, then a template
 * of that file, then the daemon's workflows, then its templates.
 */
import type { Command } from 'commander';
import { TERMINAL_STATES } from '../../shared/protocol/types';
import { formatDuration } from '../../shared/domain/durations';
import { action, arg } from '../action';
import { CliError } from '../errors';
import { readOutput } from '../follow';
import { DEFAULT_FILES, readJobsFile } from '../jobsfile/read';
import { outputPrinter } from '../output';
import { listWorkflows } from '../workflowCalls';
import { runWorkflow } from './runWorkflow';
import * as fs from 'node:fs';
import { ErrorCode } from '../../shared/protocol';
import { SpoolError } from '../../shared/protocol/errors';
import type { DeclaredWorkflow } from '../../shared/jobsfile';
import type { SpoolClient } from '../../shared/client/client';
import { enqueueOutcome } from '../format/enqueued';

/** `--param k=v`, repeatable, collected into an object; the first "=" splits. */
function collectParam(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new CliError(`--param takes name=value (got "${value}").`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

export function registerRun(program: Command): void {
  program
    .command('run <name>')
    .description('Start a run of a workflow (from spool.jsonc, else the daemon\'s), or enqueue a template (as last applied), by name; --param fills its {{name}} placeholders')
    .option('-p, --param <name=value>', 'a value for one of the workflow\'s or template\'s parameters (repeatable); its defaults fill the rest', collectParam)
    .option('-f, --file <path>', 'the jobs file whose workflow runs, or whose project owns the template (default: spool.jsonc, else spool.json, if present)')
    .option('--wait', 'wait for the run (or job) to end, showing each step (or the output); exit 0 if it succeeded, 1 if not')
    .option('--json', 'print the run started ({run, jobs}) or {job, created} as JSON (with --wait: {run} when it ends, or the output lines, then {job})')
    .addHelpText(
      'after',
      `
A workflow declared in the jobs file in the current folder (or --file) runs as the file says it
now, applied or not; without one, the daemon's workflow of that name runs. With --wait, a line
shows each step as it starts, succeeds, fails or is cancelled, and the exit status is 0 only when
the run succeeded. Without --wait the run's id is printed: follow it with \`spool workflow wait\`.

The daemon holds the templates a \`spool apply\` stored: run \`spool apply\` first after changing one.
With a jobs file in the current folder (or --file), the template must be that project's.

Examples:
  spool run release --param version=1.2 --wait
  spool run db-backup --param target=staging
  spool run send-digest -p audience=staff -p since=1h --wait`,
    )
    .action(
      action<{ param?: Record<string, string>; file?: string; wait?: boolean; json?: boolean }>(async (ctx, args, o) => {
        const name = arg(args, 0);
        const hasFile = o.file !== undefined || DEFAULT_FILES.some((f) => fs.existsSync(f));
        const file = hasFile ? readJobsFile(o.file, (line) => ctx.note(line)) : undefined;
        const declared = file?.workflows.find((w) => w.name === name);
        if (file !== undefined && declared !== undefined) return runWorkflow(ctx, { file: file.path, workflow: declared }, o);
        const project = file?.declaration.project;
        const client = await ctx.client();
        if (!(file?.declaration.templates.some((t) => t.name === name) ?? false)) {
          const held = await daemonWorkflow(client, name);
          if (held !== undefined) return runWorkflow(ctx, { daemon: true, workflow: held }, o);
        }
        const result = await client.call('templates.enqueue', { name, params: o.param ?? {}, ...(project === undefined ? {} : { project }) });
        const job = result.job;
        if (!o.wait) {
          if (o.json) ctx.printJson(result);
          else {
            ctx.print(job.id);
            const outcome = enqueueOutcome(result, undefined);
            if (outcome !== null) ctx.note(outcome);
          }
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

/** The daemon's workflow of that name; undefined when it has none (or no workflows at all: an older daemon). */
async function daemonWorkflow(client: SpoolClient, name: string): Promise<DeclaredWorkflow | undefined> {
  try {
    return (await listWorkflows(client)).workflows.find((w) => w.name === name);
  } catch (error) {
    if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) return undefined;
    throw error;
  }
}
