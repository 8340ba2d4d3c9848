/**
 * `spool workflows [name]`: the workflows the jobs file declares — a table of them, or one
 * workflow's steps in stages (the order a run can start them in), with what each step waits
 * for and what it runs. Reads the file only: no daemon is needed.
 */
import type { Command } from 'commander';
import { stepJobCount, stepStages, type DeclaredStep, type DeclaredWorkflow } from '../../shared/jobsfile';
import { closest } from '../../shared/domain/present';
import { action, type Positional } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { renderFields, renderTable } from '../format/table';
import { readJobsFile } from '../jobsfile/read';

export function registerWorkflows(program: Command): void {
  program
    .command('workflows [name]')
    .description('List the workflows of the jobs file, or show one workflow\'s steps in the order they can start')
    .option('-f, --file <path>', 'the jobs file (default: spool.jsonc, else spool.json)')
    .option('--json', 'print {workflows} (or {workflow}) as JSON')
    .addHelpText('after', '\nExamples:\n  spool workflows\n  spool workflows release\n  spool workflows release --json')
    .action(action<{ file?: string; json?: boolean }>((ctx, args, o) => Promise.resolve(show(ctx, args[0], o))));
}

/** The list, or the workflow named. */
function show(ctx: CliContext, name: Positional, o: { file?: string; json?: boolean }): number | void {
  const { workflows, path } = readJobsFile(o.file, (line) => ctx.note(line));
  if (typeof name !== 'string') {
    if (o.json) return ctx.printJson({ workflows });
    if (workflows.length === 0) return ctx.note(`${path} declares no workflow. See docs/workflows.md for one to copy.`);
    return ctx.print(workflowsTable(workflows, ctx));
  }
  const workflow = workflows.find((w) => w.name === name);
  if (workflow === undefined) {
    const names = workflows.map((w) => w.name);
    const near = closest(name, names);
    throw new CliError(`${path} declares no workflow "${name}"${near !== undefined ? `. Did you mean "${near}"?` : ''} (its workflows: ${names.join(', ') || 'none'}).`);
  }
  if (o.json) return ctx.printJson({ workflow });
  return ctx.print(workflowText(workflow, ctx));
}

/** The list: a row per workflow. */
function workflowsTable(workflows: readonly DeclaredWorkflow[], ctx: CliContext): string {
  return renderTable(
    workflows,
    [
      { header: 'WORKFLOW', value: (w) => w.name },
      { header: 'STEPS', value: (w) => String(w.steps.length), right: true },
      { header: 'JOBS', value: (w) => String(w.steps.reduce((n, s) => n + stepJobCount(s), 0)), right: true },
      { header: 'PARAMS', value: (w) => paramsText(w) || '-' },
      { header: 'DESCRIPTION', value: (w) => w.description ?? '' },
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
