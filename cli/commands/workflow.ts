/**
 * `spool workflow show|wait|cancel|retry RUN`: one workflow run — its graph in the terminal
 * (format/workflowGraph.ts), followed to its end, cancelled, or its failed part retried. RUN is a
 * run's whole id or a unique beginning or end of it (runRef.ts).
 */
import type { Command } from 'commander';
import type { WorkflowRunDetail } from '../../shared/protocol/workflows';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { renderRunGraph, runStateText } from '../format/workflowGraph';
import { runCountsText, stepStateWord } from '../../shared/domain/present';
import { resolveRunId, runIdText } from '../runRef';
import { cancelRun, getRun, retryRun } from '../workflowCalls';
import { waitAndReport } from './runWorkflow';

/** The width the graph is drawn for when stdout is not a terminal and COLUMNS is not set. */
const DEFAULT_WIDTH = 120;

export function registerWorkflow(program: Command): void {
  const workflow = program
    .command('workflow')
    .description('Show, wait for, cancel or retry a workflow run')
    .addHelpText(
      'after',
      `
RUN is a run's id, or its first or last characters (at least 4) when they name one run;
\`spool workflows\` lists recent runs.

Examples:
  spool workflow show 3e4f5a6b
  spool workflow wait 3e4f5a6b
  spool workflow cancel 3e4f5a6b
  spool workflow retry 3e4f5a6b --wait`,
    );

  workflow
    .command('show')
    .description("Draw a run's steps in columns by stage, each with its state and duration")
    .argument('<run>', 'the run id, or a unique beginning or end of it')
    .option('--json', 'print the run with its steps and jobs as JSON')
    .addHelpText('after', '\nExamples:\n  spool workflow show 3e4f5a6b\n  spool workflow show 3e4f5a6b --json')
    .action(
      action<{ json?: boolean }>(async (ctx, args, o) => {
        runIdText(arg(args, 0));
        const client = await ctx.client();
        const run = await getRun(client, await resolveRunId(client, arg(args, 0)));
        if (o.json) return ctx.printJson(run);
        ctx.print(renderRunGraph(run, { colors: ctx.colors, width: terminalWidth(ctx), now: Date.now() }));
      }),
    );

  workflow
    .command('wait')
    .description('Follow a run step by step until it ends; exit 0 if it succeeded, 1 if not')
    .argument('<run>', 'the run id, or a unique beginning or end of it')
    .option('--json', 'print the run as JSON when it ends, instead of a line per step')
    .addHelpText('after', '\nExamples:\n  spool workflow wait 3e4f5a6b')
    .action(
      action<{ json?: boolean }>(async (ctx, args, o) => {
        runIdText(arg(args, 0));
        const client = await ctx.client();
        return waitAndReport(ctx, await resolveRunId(client, arg(args, 0)), o.json === true);
      }),
    );

  workflow
    .command('cancel')
    .description('Cancel every job of a run that has not ended (running ones are asked to stop)')
    .argument('<run>', 'the run id, or a unique beginning or end of it')
    .option('--json', 'print {run, changed} as JSON')
    .addHelpText('after', '\nExamples:\n  spool workflow cancel 3e4f5a6b')
    .action(
      action<{ json?: boolean }>(async (ctx, args, o) => {
        runIdText(arg(args, 0));
        const client = await ctx.client();
        const id = await resolveRunId(client, arg(args, 0));
        const before = await getRun(client, id);
        const result = await cancelRun(client, id);
        if (o.json) return ctx.printJson(result);
        const after = await getRun(client, id);
        if (result.changed === 0) return ctx.print(`Nothing to cancel: every job of run ${id} (${after.workflow}) had ended. The run is ${runStateText(after.state, ctx.colors)}.`);
        ctx.print(cancelText(before, after, result.changed, ctx));
      }),
    );

  workflow
    .command('retry')
    .description('Run again the failed and cancelled steps of a run and what depends on them; the succeeded steps keep their results')
    .argument('<run>', 'the run id, or a unique beginning or end of it')
    .option('--wait', 'then follow the run until it ends; exit 0 if it succeeded, 1 if not')
    .option('--json', 'print {run, changed} as JSON (with --wait: {run} when it ends)')
    .addHelpText('after', '\nExamples:\n  spool workflow retry 3e4f5a6b\n  spool workflow retry 3e4f5a6b --wait')
    .action(
      action<{ json?: boolean; wait?: boolean }>(async (ctx, args, o) => {
        runIdText(arg(args, 0));
        const client = await ctx.client();
        const id = await resolveRunId(client, arg(args, 0));
        const before = await getRun(client, id);
        const result = await retryRun(client, id);
        if (o.json && !o.wait) return ctx.printJson(result);
        if (!o.json) ctx.print(retryText(before, await getRun(client, id), result.changed));
        return o.wait ? waitAndReport(ctx, id, o.json === true, before) : 0;
      }),
    );
}

/** What a retry changed, in words: which jobs run again, and which keep their results. */
export function retryText(before: WorkflowRunDetail, after: WorkflowRunDetail, changed: number): string {
  if (changed === 0) return `Nothing to retry: no job of run ${after.id} (${after.workflow}) failed or was cancelled.`;
  const again = changedLabels(before, after);
  const was = new Map(before.jobs.map((j) => [j.id, j.state]));
  const kept = after.jobs.filter((j) => j.state === 'completed' && was.get(j.id) === 'completed').map((j) => j.label);
  return (
    `Retrying ${changed} job${changed === 1 ? '' : 's'} of run ${after.id} (${after.workflow})${again.length > 0 ? `: ${again.join(', ')}` : ''}.` +
    (kept.length > 0 ? ` ${kept.join(', ')} ${kept.length === 1 ? 'keeps its result' : 'keep their results'}.` : '') +
    // A quick job may have ended the run again before it was read.
    (after.state === 'running' ? ' The run is running again.' : ` The run has ended again: ${after.state}.`)
  );
}

/** What a cancel changed, in words: the jobs cancelled (with their state before), those asked to stop. */
function cancelText(before: WorkflowRunDetail, after: WorkflowRunDetail, changed: number, ctx: CliContext): string {
  const now = new Map(after.jobs.map((j) => [j.id, j.state]));
  const named = before.jobs.flatMap((j) => {
    const state = now.get(j.id);
    if (state === 'cancelled' && j.state !== 'cancelled') return [`${j.label} (was ${stepStateWord(j.state)})`];
    // A running job is asked to stop: it ends cancelled once its process has.
    if (state === 'running' && j.state === 'running') return [`${j.label} (stopping)`];
    return [];
  });
  const state = after.state === 'running' ? 'running until its jobs have stopped' : runStateText(after.state, ctx.colors);
  return `Cancelled ${changed} job${changed === 1 ? '' : 's'} of run ${after.id} (${after.workflow})${named.length > 0 ? `: ${named.join(', ')}` : ''}. The run is ${state}: ${runCountsText(after.counts)}.`;
}

/** The jobs whose state changed between two reads, by label, with the old state. */
function changedLabels(before: WorkflowRunDetail, after: WorkflowRunDetail): string[] {
  const was = new Map(before.jobs.map((j) => [j.id, j.state]));
  return after.jobs.filter((j) => was.get(j.id) !== j.state).map((j) => {
    const old = was.get(j.id);
    return old === undefined ? j.label : `${j.label} (was ${stepStateWord(old)})`;
  });
}

/** The terminal's width, else $COLUMNS, else DEFAULT_WIDTH. */
function terminalWidth(ctx: CliContext): number {
  const columns = ctx.stdout.isTTY ? ctx.stdout.columns : Number(process.env['COLUMNS']);
  return Number.isFinite(columns) && columns > 0 ? columns : DEFAULT_WIDTH;
}
