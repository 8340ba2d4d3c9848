/**
 * `spool workflows [name]`: the workflows the jobs file declares and those the daemon holds, with
 * each one's last run, then the daemon's recent runs — or one workflow's steps in stages (the
 * order a run can start them in), with what each step waits for and what it runs. The file's
 * workflows are listed without a daemon; one workflow's steps are read from the file only.
 */
import type { Command } from 'commander';
import { stepJobCount, stepStages, type DeclaredStep, type DeclaredWorkflow } from '../../shared/jobsfile';
import { closest } from '../../shared/domain/present';
import { action } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { renderFields, renderTable } from '../format/table';
import { formatRelative } from '../format/time';
import { runDuration, runStateText } from '../format/workflowGraph';
import { DEFAULT_FILES, readJobsFile, type JobsFile } from '../jobsfile/read';
import { listRuns, listWorkflows } from '../workflowCalls';
import { runCountsText } from '../../shared/domain/present';
import { errorMessage } from '../../shared/protocol/errors';
import type { WorkflowRun } from '../../shared/protocol/workflows';
import * as fs from 'node:fs';

/** Recent runs listed under the workflows. */
const RECENT_RUNS = 10;

export function registerWorkflows(program: Command): void {
  program
    .command('workflows [name]')
    .description('List the workflows of the jobs file and of the daemon, with recent runs; or show one workflow\'s steps in the order they can start')
    .option('-f, --file <path>', 'the jobs file (default: spool.jsonc, else spool.json)')
    .option('--json', 'print {workflows, daemonWorkflows, runs} (or {workflow}) as JSON')
    .addHelpText('after', '\nExamples:\n  spool workflows\n  spool workflows release\n  spool workflows release --json')
    .action(action<{ file?: string; json?: boolean }>((ctx, args, o) => (typeof args[0] === 'string' ? Promise.resolve(show(ctx, args[0], o)) : list(ctx, o))));
}

/** A workflow in the list: where it is declared, and its last run when the daemon knows one. */
interface Listed {
  workflow: DeclaredWorkflow;
  from: string;
  lastRun: WorkflowRun | null;
}

/** The file's workflows, then the daemon's that the file does not declare, then recent runs. */
async function list(ctx: CliContext, o: { file?: string; json?: boolean }): Promise<number | void> {
  const file: JobsFile | undefined = o.file !== undefined || DEFAULT_FILES.some((f) => fs.existsSync(f)) ? readJobsFile(o.file, (line) => ctx.note(line)) : undefined;
  let daemon: { workflows: DeclaredWorkflow[]; runs: WorkflowRun[]; lastRuns: Map<string, WorkflowRun> } | undefined;
  try {
    const client = await ctx.client();
    const held = (await listWorkflows(client)).workflows;
    const runs = (await listRuns(client, { limit: RECENT_RUNS })).runs;
    const lastRuns = new Map<string, WorkflowRun>();
    for (const w of held) if (w.lastRun !== null) lastRuns.set(w.name, w.lastRun);
    for (const r of [...runs].reverse()) if ((lastRuns.get(r.workflow)?.createdAt ?? -1) <= r.createdAt) lastRuns.set(r.workflow, r);
    daemon = { workflows: held, runs, lastRuns };
  } catch (error) {
    // The file's workflows are listed all the same; the runs need the daemon.
    if (file === undefined) throw error;
    if (!o.json) ctx.note(ctx.colors.dim(`Runs are not listed: ${errorMessage(error)}`));
  }
  if (o.json) return ctx.printJson({ workflows: file?.workflows ?? [], daemonWorkflows: daemon?.workflows ?? null, runs: daemon?.runs ?? null });
  const fileNames = new Set(file?.workflows.map((w) => w.name) ?? []);
  const heldNames = new Set(daemon?.workflows.map((w) => w.name) ?? []);
  const listed: Listed[] = [
    ...(file?.workflows ?? []).map((w) => ({ workflow: w, from: heldNames.has(w.name) ? `${file?.path ?? ''}, daemon` : (file?.path ?? ''), lastRun: daemon?.lastRuns.get(w.name) ?? null })),
    ...(daemon?.workflows ?? []).filter((w) => !fileNames.has(w.name)).map((w) => ({ workflow: w, from: 'daemon', lastRun: daemon?.lastRuns.get(w.name) ?? null })),
  ];
  if (listed.length === 0) ctx.note(`${file !== undefined ? `${file.path} declares no workflow and the daemon holds none` : 'The daemon holds no workflow'}. See docs/workflows.md for one to copy.`);
  else ctx.print(workflowsTable(listed, daemon !== undefined, ctx));
  if (daemon === undefined) return;
  if (daemon.runs.length === 0) return listed.length > 0 ? ctx.note(ctx.colors.dim(`No runs yet: start one with \`spool run ${listed[0]?.workflow.name ?? 'NAME'}\`.`)) : undefined;
  ctx.print(`\n${runsTable(daemon.runs, ctx)}`);
}

/** Recent runs, newest first. */
function runsTable(runs: readonly WorkflowRun[], ctx: CliContext): string {
  const now = Date.now();
  return renderTable(
    runs,
    [
      { header: 'RUN', value: (r) => r.id },
      { header: 'WORKFLOW', value: (r) => r.workflow },
      { header: 'STATE', value: (r) => runStateText(r.state, ctx.colors) },
      { header: 'JOBS', value: (r) => `${r.total}: ${runCountsText(r.counts)}` },
      { header: 'STARTED', value: (r) => formatRelative(r.createdAt, now) },
      { header: 'TOOK', value: (r) => (r.endedAt === null ? '-' : runDuration(r, now)) },
    ],
    ctx.colors.dim,
  );
}

/** The workflow named, from the file. */
function show(ctx: CliContext, name: string, o: { file?: string; json?: boolean }): number | void {
  const { workflows, path } = readJobsFile(o.file, (line) => ctx.note(line));
  const workflow = workflows.find((w) => w.name === name);
  if (workflow === undefined) {
    const names = workflows.map((w) => w.name);
    const near = closest(name, names);
    throw new CliError(`${path} declares no workflow "${name}"${near !== undefined ? `. Did you mean "${near}"?` : ''} (its workflows: ${names.join(', ') || 'none'}).`);
  }
  if (o.json) return ctx.printJson({ workflow });
  return ctx.print(workflowText(workflow, ctx));
}

/** The list: a row per workflow; LAST RUN when a daemon answered. */
function workflowsTable(listed: readonly Listed[], withRuns: boolean, ctx: CliContext): string {
  const now = Date.now();
  return renderTable(
    listed,
    [
      { header: 'WORKFLOW', value: (l) => l.workflow.name },
      { header: 'FROM', value: (l) => l.from },
      { header: 'STEPS', value: (l) => String(l.workflow.steps.length), right: true },
      { header: 'JOBS', value: (l) => String(l.workflow.steps.reduce((n, s) => n + stepJobCount(s), 0)), right: true },
      { header: 'PARAMS', value: (l) => paramsText(l.workflow) || '-' },
      ...(withRuns ? [{ header: 'LAST RUN', value: (l: Listed) => (l.lastRun === null ? '-' : `${runStateText(l.lastRun.state, ctx.colors)} ${formatRelative(l.lastRun.createdAt, now)}`) }] : []),
      { header: 'DESCRIPTION', value: (l) => l.workflow.description ?? '' },
    ],
    ctx.colors.dim,
  );
}

/** A workflow's parameters in one line: `version (required), channel=stable`. */
function paramsText(workflow: DeclaredWorkflow): string {
  return Object.entries(workflow.params)
    .map(([name, p]) => `${name}${p.default !== undefined ? `=${p.default}` : ' (required)'}${p.type !== 'string' ? ` ${p.type}` : ''}`)
    .join(', ');
}

/** One workflow: its fields, then its steps by stage. */
function workflowText(workflow: DeclaredWorkflow, ctx: CliContext): string {
  const stages = stepStages(workflow);
  const steps = [...workflow.steps].sort((a, b) => (stages.get(a.name) ?? 0) - (stages.get(b.name) ?? 0));
  const fields: [string, string][] = [['workflow', workflow.name]];
  if (workflow.description !== undefined) fields.push(['description', workflow.description]);
  fields.push(['params', paramsText(workflow) || 'none']);
  const table = renderTable(
    steps,
    [
      { header: 'STAGE', value: (s) => String(stages.get(s.name) ?? '?'), right: true },
      { header: 'STEP', value: (s) => s.name },
      { header: 'JOBS', value: (s) => jobsText(s), right: true },
      { header: 'WAITS FOR', value: (s) => s.needs.map((n) => (n.on === 'succeeded' ? n.step : `${n.step} (${n.on})`)).join(', ') || '-' },
      { header: 'RUNS', value: (s) => runsText(s) },
    ],
    ctx.colors.dim,
  );
  return `${renderFields(fields, ctx.colors.dim)}\n${table}`;
}

/** A step's job count, with its matrix: `3 (target)`. */
function jobsText(step: DeclaredStep): string {
  const n = stepJobCount(step);
  return step.matrix === undefined ? String(n) : `${n} (${Object.keys(step.matrix).join(' × ')})`;
}

/** What a step runs, in a few words: `shell on builds: make test`, `http on deploys: GET …`. */
function runsText(step: DeclaredStep): string {
  const payload: unknown = step.payload;
  const field = (name: string): string | undefined => {
    if (typeof payload !== 'object' || payload === null || !(name in payload)) return undefined;
    const value: unknown = (payload as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const where = `${step.kind} on ${step.queue}${step.template !== undefined ? ` (template ${step.template})` : ''}`;
  const what = step.kind === 'shell' ? field('command') : step.kind === 'http' ? `${field('method') ?? 'GET'} ${field('url') ?? ''}` : undefined;
  return what === undefined ? where : `${where}: ${what}`;
}
