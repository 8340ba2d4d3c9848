/**
 * A workflow run drawn in the terminal (`spool workflow show`): the steps in columns by stage,
 * left to right (`stepStages`: a step stands one column right of the latest step it needs, arrows
 * between the columns' first names), each
 * step a small block — its name, what it waits for when that is not simply the column before,
 * its state and duration, and for a matrix step one line per instance under a line of counts.
 * When the columns do not fit the width, the same blocks are listed one under another, indented
 * by stage. Pure: the caller passes the width, the colours and the clock.
 */
import { stepStages } from '../../shared/jobsfile';
import { firstLine, runCountsText, stepStateWord } from '../../shared/domain/present';
import type { JobState } from '../../shared/protocol/types';
import type { WorkflowRun, WorkflowRunDetail, WorkflowRunJob, WorkflowRunState } from '../../shared/protocol/workflows';
import type { Colors } from './color';
import { visibleLength } from './color';
import { formatDuration, formatRelative } from './time';

/** A matrix step lists this many instances at most; the rest are counted. */
export const MAX_INSTANCES_SHOWN = 12;

/** The room between two columns; on the row of the first steps' names, an arrow. */
const GAP = '   ';
const ARROW = ' → ';

export interface GraphOptions {
  colors: Colors;
  /** The terminal's width: columns that do not fit give the indented form. */
  width: number;
  now: number;
}

/** A state word in its colour. */
export function stateText(state: JobState, c: Colors): string {
  const word = stepStateWord(state);
  switch (state) {
    case 'completed':
      return c.green(word);
    case 'dead':
      return c.red(word);
    case 'running':
      return c.cyan(word);
    case 'retrying':
      return c.yellow(word);
    case 'cancelled':
    case 'blocked':
      return c.dim(word);
    default:
      return word;
  }
}

/** A run's state in its colour. */
export function runStateText(state: WorkflowRunState, c: Colors): string {
  if (state === 'succeeded') return c.green(state);
  if (state === 'failed') return c.red(state);
  if (state === 'running') return c.cyan(state);
  return c.dim(state);
}

/** How long a job ran (so far, while it runs); empty before it starts. */
export function jobDuration(job: Pick<WorkflowRunJob, 'startedAt' | 'finishedAt'>, now: number): string {
  if (job.startedAt === null) return '';
  return formatDuration(Math.max(0, (job.finishedAt ?? now) - job.startedAt));
}

/** How long a run took (so far, while it runs). */
export function runDuration(run: Pick<WorkflowRun, 'createdAt' | 'endedAt'>, now: number): string {
  return formatDuration(Math.max(0, (run.endedAt ?? now) - run.createdAt));
}

/** The lines above the graph: which run, its state, params and counts. */
export function runHeader(run: WorkflowRunDetail, o: GraphOptions): string[] {
  const c = o.colors;
  const took = run.endedAt === null ? `started ${formatRelative(run.createdAt, o.now)}, ${runDuration(run, o.now)} so far` : `took ${runDuration(run, o.now)}, ended ${formatRelative(run.endedAt, o.now)}`;
  const params = Object.entries(run.params).map(([k, v]) => `${k}=${v}`);
  return [
    `${c.bold(run.workflow)}  run ${run.id}  ${runStateText(run.state, c)}  ${c.dim(took)}`,
    ...(params.length > 0 ? [c.dim(`params: ${params.join(' ')}`)] : []),
    c.dim(`${run.total} job${run.total === 1 ? '' : 's'}: ${runCountsText(run.counts)}`),
  ];
}

/** The run drawn: header, blank line, then the columns, or the indented list when they do not fit. */
export function renderRunGraph(run: WorkflowRunDetail, o: GraphOptions): string {
  const blocks = stepBlocks(run, o);
  const columns = new Map<number, string[][]>();
  for (const b of blocks) columns.set(b.stage, [...(columns.get(b.stage) ?? []), b.lines]);
  const stages = [...columns.keys()].sort((a, b) => a - b);
  const drawn = stages.map((s) => columnLines(columns.get(s) ?? []));
  const widths = drawn.map((lines) => Math.max(0, ...lines.map(visibleLength)));
  const total = widths.reduce((n, w) => n + w, 0) + GAP.length * Math.max(0, widths.length - 1);
  const body = total <= o.width ? sideBySide(drawn, widths) : indented(blocks);
  return [...runHeader(run, o), '', ...body].join('\n') + '\n';
}

/** One step's block and the column it goes in. */
interface StepBlock {
  stage: number;
  lines: string[];
}

function stepBlocks(run: WorkflowRunDetail, o: GraphOptions): StepBlock[] {
  const c = o.colors;
  const stages = stepStages({ name: run.workflow, steps: run.steps });
  const jobsOf = new Map<string, WorkflowRunJob[]>();
  for (const job of run.jobs) jobsOf.set(job.step, [...(jobsOf.get(job.step) ?? []), job]);
  return run.steps.map((step) => {
    const stage = stages.get(step.name) ?? 1;
    const jobs = jobsOf.get(step.name) ?? [];
    const lines: string[] = [];
    const matrix = step.matrix !== undefined || jobs.length > 1;
    lines.push(c.bold(matrix ? `${step.name} ×${jobs.length}` : step.name));
    // What the step waits for, unless it is simply every step of the column before.
    const before = run.steps.filter((s) => stages.get(s.name) === stage - 1).map((s) => s.name);
    const plain = step.needs.every((n) => n.on === 'succeeded') && step.needs.length === before.length && step.needs.every((n) => before.includes(n.step));
    if (step.needs.length > 0 && !plain) lines.push(c.dim(`after ${step.needs.map((n) => (n.on === 'succeeded' ? n.step : `${n.step} (${n.on})`)).join(', ')}`));
    if (!matrix) {
      const job = jobs[0];
      lines.push(job === undefined ? c.dim('no job') : jobLine(job, '', o));
      // Why it failed, in a few words: the job's page (`spool job`) has the rest.
      if (job?.state === 'dead' && job.lastError !== null && job.lastError !== '') lines.push(c.dim(firstLine(job.lastError, 40)));
    } else {
      lines.push(c.dim(runCountsText(countsOf(jobs))));
      const width = Math.max(0, ...jobs.slice(0, MAX_INSTANCES_SHOWN).map((j) => instanceName(j).length));
      for (const job of jobs.slice(0, MAX_INSTANCES_SHOWN)) lines.push(jobLine(job, instanceName(job).padEnd(width) + ' ', o));
      if (jobs.length > MAX_INSTANCES_SHOWN) lines.push(c.dim(`… ${jobs.length - MAX_INSTANCES_SHOWN} more`));
    }
    return { stage, lines };
  });
}

/** A matrix instance by its values: `linux`, `linux, node 20`. */
function instanceName(job: WorkflowRunJob): string {
  return job.matrix !== undefined ? Object.values(job.matrix).join(', ') : job.label;
}

/** `succeeded 12s`, `running 3s`, `failed 2s (3/3 attempts)`, `blocked`. */
function jobLine(job: WorkflowRunJob, name: string, o: GraphOptions): string {
  const took = jobDuration(job, o.now);
  const tries = job.attempts > 1 || (job.state === 'dead' && job.maxAttempts > 1) ? ` (${job.attempts}/${job.maxAttempts} attempts)` : '';
  return `${name}${stateText(job.state, o.colors)}${took === '' ? '' : ` ${took}`}${tries}`;
}

function countsOf(jobs: readonly WorkflowRunJob[]): Partial<Record<JobState, number>> {
  const counts: Partial<Record<JobState, number>> = {};
  for (const j of jobs) counts[j.state] = (counts[j.state] ?? 0) + 1;
  return counts;
}

/** A column's blocks one under another, a blank line between two. */
function columnLines(blocks: readonly string[][]): string[] {
  return blocks.flatMap((lines, i) => (i === 0 ? lines : ['', ...lines]));
}

/** Columns side by side, each padded to its width. */
function sideBySide(columns: readonly string[][], widths: readonly number[]): string[] {
  const height = Math.max(0, ...columns.map((c) => c.length));
  const out: string[] = [];
  for (let row = 0; row < height; row++) {
    const cells = columns.map((lines, i) => {
      const cell = lines[row] ?? '';
      return cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - visibleLength(cell)));
    });
    out.push(cells.join(row === 0 ? ARROW : GAP).trimEnd());
  }
  return out;
}

/** The narrow form: each step's block indented two spaces per stage after the first, in stage order. */
function indented(blocks: readonly StepBlock[]): string[] {
  const sorted = [...blocks].sort((a, b) => a.stage - b.stage);
  return sorted.flatMap((b) => {
    const pad = '  '.repeat(b.stage - 1);
    return b.lines.map((line, i) => `${pad}${i === 0 ? '' : '  '}${line}`);
  });
}
