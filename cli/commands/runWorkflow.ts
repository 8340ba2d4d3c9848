/**
 * `spool run WORKFLOW`: start a run of a workflow — the one the jobs file in this folder declares
 * (sent as `definition`, so what runs is what the file says now, applied or not), else the
 * daemon's workflow of that name — and with --wait follow it step by step to its end. Called by
 * `spool run` (commands/run.ts) once the name is known to be a workflow's.
 */
import { resolveWorkflowParams, type DeclaredWorkflow } from '../../shared/jobsfile';
import type { WorkflowRunDetail } from '../../shared/protocol/workflows';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { finalLine } from '../format/workflowProgress';
import { startRun } from '../workflowCalls';
import { followRun } from '../workflowWait';

export interface RunWorkflowOptions {
  param?: Record<string, string>;
  wait?: boolean;
  json?: boolean;
}

/** Where the workflow comes from: the jobs file (its path) or the daemon. */
export type WorkflowSource = { file: string; workflow: DeclaredWorkflow } | { daemon: true; workflow: DeclaredWorkflow };

export async function runWorkflow(ctx: CliContext, source: WorkflowSource, o: RunWorkflowOptions): Promise<number> {
  const { workflow } = source;
  // Checked here first, in the words every client uses, so a mistyped --param sends nothing.
  const params = resolveWorkflowParams(workflow, o.param ?? {});
  if (!params.ok) throw new CliError(`Cannot start a run: ${params.message}.`);
  const client = await ctx.client();
  const started = await startRun(client, { workflow: workflow.name, params: o.param ?? {}, ...('file' in source ? { definition: workflow } : {}) });
  const run = started.run;
  const from = 'file' in source ? ` from ${source.file}` : '';
  if (!o.wait) {
    if (o.json) ctx.printJson(started);
    else {
      ctx.print(run.id);
      ctx.note(ctx.colors.dim(`Started run ${run.id} of workflow ${workflow.name}${from}: ${started.jobs.length} job${started.jobs.length === 1 ? '' : 's'}. Watch it with \`spool workflow wait ${run.id}\`, see its graph with \`spool workflow show ${run.id}\`.`));
    }
    return 0;
  }
  if (!o.json) ctx.note(ctx.colors.dim(`Started run ${run.id} of workflow ${workflow.name}${from}: ${started.jobs.length} job${started.jobs.length === 1 ? '' : 's'}. Waiting for it to end (Ctrl-C stops waiting, not the run).`));
  return waitAndReport(ctx, run.id, o.json === true);
}

/**
 * Follows a run to its end, then prints its last line (or, with json, the run); 0 only when it
 * succeeded. `since`: the run as read before, whose unchanged jobs are not announced again.
 */
export async function waitAndReport(ctx: CliContext, id: string, json: boolean, since?: WorkflowRunDetail): Promise<number> {
  const client = await ctx.client();
  const ended = await followRun(ctx, client, id, json, since);
  if (json) ctx.printJson({ run: ended });
  else ctx.print(finalLine(ended, ctx.colors, Date.now()));
  return ended.state === 'succeeded' ? 0 : 1;
}
