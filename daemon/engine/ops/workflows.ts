/**
 * Workflows and their runs, written once for every store: the workflows an apply stored, a run
 * started (every job of it created in one transaction, each with the jobs it waits for), read,
 * listed, cancelled and retried. A run's state is kept by the transactions that end its jobs
 * (./workflowRuns.ts); what is read here is its row and, for counts, its jobs.
 */
import { SpoolError, invalidParams } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import type { DeclaredWorkflow } from '../../../shared/protocol';
import type { Job, JobState } from '../../../shared/protocol/types';
import type { Workflow, WorkflowRun, WorkflowRunActionResult, WorkflowRunDetail, WorkflowRunJob, WorkflowRunStarted, WorkflowRunsResult } from '../../../shared/protocol/workflows';
import { canonicalJson, workflowJobs, workflowState, type StepJob } from '../../../shared/jobsfile';
import { workflowStateOf, type RunInput, type RunsInput } from '../../../shared/domain/rules/workflows';
import { enqueueParams, type EnqueueInput } from '../../../shared/domain/rules/jobs';
import { emptyCounts } from '../../storage/statements/queues';
import type { StoredQueue } from '../../storage/statements/queues';
import type { StoredWorkflowRun } from '../../storage/statements/workflows';
import type { DependencyEdge, JobCount } from '../../storage/statements/dependencies';
import type { JobInsert } from '../../storage/statements/jobs';
import { applyEach, cancel, retry } from './jobs';
import { hasEnded } from './dependencies';
import { groupedFor } from './groups';
import { checkWeight, jobRow } from './enqueue';
import { ensureQueue } from './queues';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';
import * as history from './historySteps';

export function workflowNotFound(name: string): SpoolError {
  return new SpoolError(ErrorCode.WorkflowNotFound, `No workflow named "${name}". Workflows come from a jobs file: declare it under "workflows" in spool.jsonc and run \`spool apply\`, or run it from the project folder.`, { workflow: name });
}

export function runNotFound(id: string): SpoolError {
  return new SpoolError(ErrorCode.WorkflowRunNotFound, `No workflow run with id ${id}. List runs with \`spool workflows\`.`, { id });
}

/** A stored body read back with the checks an apply made; a body that no longer passes is an error, not a wrong run. */
function stateOf(body: string, what: string): Omit<DeclaredWorkflow, 'name'> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new Error(`The stored ${what} is not JSON; apply the jobs file again to rewrite it.`);
  }
  return workflowStateOf(value, what);
}

/** A run's row and its counts as the protocol's record. */
function runRecord(run: StoredWorkflowRun, counts: Record<JobState, number>): WorkflowRun {
  let total = 0;
  for (const n of Object.values(counts)) total += n;
  return {
    id: run.id,
    workflow: run.workflow,
    params: JSON.parse(run.params) as Record<string, string>,
    state: run.state,
    counts,
    total,
    source: run.source,
    createdAt: run.createdAt,
    endedAt: run.endedAt,
  };
}

/** The runs as records, their counts read in one statement. */
function* runRecords(runs: readonly StoredWorkflowRun[]): Op<WorkflowRun[]> {
  const counts = new Map<string, Record<JobState, number>>();
  for (const run of runs) counts.set(run.id, emptyCounts());
  for (const row of yield* sql('workflowRunCounts', runs.map((r) => r.id))) {
    const c = counts.get(row.runId);
    if (c !== undefined) c[row.state] = row.count;
  }
  return runs.map((run) => runRecord(run, counts.get(run.id) ?? emptyCounts()));
}

/** One run as the protocol's record, or WorkflowRunNotFound. */
export function* getRun(id: string): Op<WorkflowRun> {
  const run = yield* sql('workflowRunGet', id);
  if (!run) throw runNotFound(id);
  const [record] = yield* runRecords([run]);
  if (record === undefined) throw runNotFound(id);
  return record;
}

/** Every workflow held, with its owner and last run. */
export function* listWorkflows(): Op<Workflow[]> {
  const owners = new Map((yield* sql('ownerList')).filter((o) => o.type === 'workflow').map((o) => [o.name, o.project]));
  const out: Workflow[] = [];
  for (const stored of yield* sql('workflowList')) {
    const [last] = yield* sql('workflowRunList', { workflow: stored.name, state: null, beforeId: null, limit: 1 });
    const lastRun = last === undefined ? null : ((yield* runRecords([last]))[0] ?? null);
    out.push({ name: stored.name, ...stateOf(stored.body, `workflow "${stored.name}"`), owner: owners.get(stored.name) ?? null, lastRun });
  }
  return out;
}

/** Runs newest first, a page at a time. */
export function* listRuns(input: RunsInput): Op<WorkflowRunsResult> {
  const page = yield* sql('workflowRunList', { workflow: input.workflow, state: input.state, beforeId: input.cursor, limit: input.limit + 1 });
  const more = page.length > input.limit;
  const runs = yield* runRecords(more ? page.slice(0, input.limit) : page);
  return { runs, nextCursor: more ? (runs[runs.length - 1]?.id ?? null) : null };
}

/** The jobs of `planned` as enqueue inputs, each checked as `jobs.enqueue` checks one; a refusal names the step. */
function inputsOf(planned: readonly StepJob[], now: number): EnqueueInput[] {
  return planned.map((p) => {
    try {
      return enqueueParams(p.job, now, 'job');
    } catch (error) {
      if (!(error instanceof SpoolError)) throw error;
      throw invalidParams('params', `Step "${p.label}" cannot be enqueued with these values: ${error.message}`, 'values that make every step a valid job');
    }
  });
}

/**
 * Starts a run: the held workflow (or the one sent), its values checked, every job inserted in
 * this one transaction with its dependencies — blocked until the jobs of the steps it needs end.
 */
export function* startRun(c: OpContext, input: RunInput, source: string): Op<WorkflowRunStarted> {
  let workflow = input.definition;
  if (workflow === null) {
    const stored = yield* sql('workflowGet', input.workflow);
    if (!stored) throw workflowNotFound(input.workflow);
    workflow = { name: stored.name, ...stateOf(stored.body, `workflow "${stored.name}"`) };
  }
  const planned = workflowJobs(workflow, input.params);
  if (!planned.ok) throw invalidParams('params', planned.message, "the workflow's parameters");
  const now = c.now();
  const inputs = inputsOf(planned.value, now);
  const runId = c.policy.newId();
  const queues = new Map<string, StoredQueue>();
  const rows: JobInsert[] = [];
  for (const [i, p] of planned.value.entries()) {
    const jobInput = inputs[i];
    if (jobInput === undefined) continue;
    let queue = queues.get(jobInput.queue);
    if (queue === undefined) queues.set(jobInput.queue, (queue = yield* ensureQueue(c, jobInput.queue)));
    if (jobInput.group !== null && !queue.grouped) {
      queues.set(jobInput.queue, (queue = yield* groupedFor(c, jobInput, queue)));
      for (const row of rows) if (row.queue === jobInput.queue && row.groupKey === null) row.groupKey = '';
    }
    checkWeight(jobInput, queue, true);
    const row = jobRow(c, jobInput, queue, now);
    row.step = p.step;
    row.workflowRunId = runId;
    row.dependsOn = p.dependsOn.length;
    row.waitingFor = p.dependsOn.length;
    row.state = p.dependsOn.length > 0 ? 'blocked' : 'queued';
    rows.push(row);
  }
  const values: Record<string, string> = {};
  for (const [name, param] of Object.entries(workflow.params)) {
    const v = Object.hasOwn(input.params, name) ? input.params[name] : param.default;
    if (v !== undefined) values[name] = v;
  }
  yield* sql('workflowRunInsert', {
    id: runId,
    workflow: workflow.name,
    params: JSON.stringify(values),
    definition: canonicalJson(workflowState(workflow)),
    source,
    total: rows.length,
    unfinished: rows.length,
    createdAt: now,
  });
  const jobs = yield* sql('jobInsertMany', rows);
  const edges: DependencyEdge[] = [];
  const dependents = new Map<string, number>();
  for (const [i, p] of planned.value.entries()) {
    const row = rows[i];
    if (row === undefined) continue;
    for (const d of p.dependsOn) {
      const parent = rows[d.index];
      if (parent === undefined) continue;
      edges.push({ jobId: row.id, dependsOnId: parent.id, on: d.on, resolved: false });
      dependents.set(parent.id, (dependents.get(parent.id) ?? 0) + 1);
    }
  }
  if (dependents.size > 0) {
    const counts: JobCount[] = [...dependents].map(([id, n]) => ({ id, n }));
    yield* sql('jobAddDependents', { counts, now });
  }
  if (edges.length > 0) yield* sql('dependencyInsertMany', edges);
  for (const job of jobs) {
    if (!job) throw new Error(`A job of workflow run ${runId} was not inserted`);
    c.changes.job(job);
    history.stepped(c, job, 'enqueued', now);
  }
  return {
    run: yield* getRun(runId),
    jobs: planned.value.map((p, i) => ({ id: rows[i]?.id ?? '', step: p.step, label: p.label })),
  };
}

/** One run with its steps and every job (in creation order), with what each waits for. */
export function* runDetail(id: string): Op<WorkflowRunDetail> {
  const run = yield* sql('workflowRunGet', id);
  if (!run) throw runNotFound(id);
  const definition = stateOf(run.definition, `definition of workflow run ${id}`);
  const jobs = yield* sql('workflowRunJobs', id);
  const counts = emptyCounts();
  for (const job of jobs) counts[job.state] += 1;
  const dependsOn = new Map<string, { id: string; on: WorkflowRunJob['dependsOn'][number]['on'] }[]>();
  const waiting = jobs.filter((job) => job.dependsOn > 0).map((job) => job.id);
  if (waiting.length > 0) {
    for (const d of yield* sql('dependenciesOf', waiting)) {
      const list = dependsOn.get(d.jobId);
      if (list === undefined) dependsOn.set(d.jobId, [{ id: d.id, on: d.on }]);
      else list.push({ id: d.id, on: d.on });
    }
  }
  // A job's label and matrix values come from the definition: a step's jobs were made in the
  // order of its matrix's combinations, and ids sort by creation.
  const labels = new Map<string, { label: string; matrix?: Record<string, string> }[]>();
  const planned = workflowJobs({ name: run.workflow, ...definition }, JSON.parse(run.params) as Record<string, string>);
  if (planned.ok) {
    for (const p of planned.value) {
      const list = labels.get(p.step) ?? [];
      list.push(p.matrix === undefined ? { label: p.label } : { label: p.label, matrix: p.matrix });
      labels.set(p.step, list);
    }
  }
  const seen = new Map<string, number>();
  const runJobs = jobs.map((job): WorkflowRunJob => {
    const step = job.step ?? '';
    const n = seen.get(step) ?? 0;
    seen.set(step, n + 1);
    const made = labels.get(step)?.[n];
    const out: WorkflowRunJob = {
      id: job.id,
      step,
      label: made?.label ?? step,
      queue: job.queue,
      kind: job.kind,
      state: job.state,
      attempts: job.attempts,
      maxAttempts: job.maxAttempts,
      startedAt: job.startedAt,
      finishedAt: job.finishedAt,
      lastError: job.lastError,
      dependsOn: dependsOn.get(job.id) ?? [],
    };
    if (made?.matrix !== undefined) out.matrix = made.matrix;
    return out;
  });
  const detail: WorkflowRunDetail = {
    ...runRecord(run, counts),
    steps: definition.steps.map((s) => {
      const step: WorkflowRunDetail['steps'][number] = { name: s.name, needs: s.needs };
      if (s.matrix !== undefined) step.matrix = s.matrix;
      if (s.description !== undefined) step.description = s.description;
      return step;
    }),
    jobs: runJobs,
  };
  if (definition.description !== undefined) detail.description = definition.description;
  return detail;
}

/**
 * Cancels every job of the run that has not ended, the last made first (so that a job waiting
 * for another is cancelled before that one's end could queue it); running ones are asked to stop.
 */
export function* cancelRun(c: OpContext, id: string): Op<WorkflowRunActionResult> {
  const run = yield* sql('workflowRunGetForUpdate', id);
  if (!run) throw runNotFound(id);
  const open = (yield* sql('workflowRunJobs', id)).filter((job) => !hasEnded(job.state) && !job.cancelRequested);
  const applied = yield* applyEach(open.map((job) => job.id).reverse(), (jobId) => cancel(c, jobId));
  return { run: yield* getRun(id), changed: applied.count };
}

/**
 * Retries the jobs of the run that ended dead or cancelled, and every ended job that depends on
 * them (and on those, and so on), in creation order so that each waits for the retried jobs it
 * depends on. A job whose retry is refused (it was cancelled because a kept job ended so that its
 * condition could not hold) stays as it is. Succeeded jobs nothing retried depends on keep their
 * results.
 */
export function* retryRun(c: OpContext, id: string): Op<WorkflowRunActionResult> {
  const run = yield* sql('workflowRunGetForUpdate', id);
  if (!run) throw runNotFound(id);
  const jobs = yield* sql('workflowRunJobs', id);
  const byId = new Map<string, Job>(jobs.map((job) => [job.id, job]));
  const dependents = new Map<string, string[]>();
  const waiting = jobs.filter((job) => job.dependsOn > 0).map((job) => job.id);
  if (waiting.length > 0) {
    for (const d of yield* sql('dependenciesOf', waiting)) {
      const list = dependents.get(d.id);
      if (list === undefined) dependents.set(d.id, [d.jobId]);
      else list.push(d.jobId);
    }
  }
  const chosen = new Set<string>();
  const stack = jobs.filter((job) => job.state === 'dead' || job.state === 'cancelled').map((job) => job.id);
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined || chosen.has(next)) continue;
    const job = byId.get(next);
    if (job === undefined || !hasEnded(job.state)) continue;
    chosen.add(next);
    for (const d of dependents.get(next) ?? []) stack.push(d);
  }
  const ids = jobs.filter((job) => chosen.has(job.id)).map((job) => job.id);
  const applied = yield* applyEach(ids, (jobId) => retry(c, jobId));
  return { run: yield* getRun(id), changed: applied.count };
}
