/**
 * Workflows as they travel over the wire: a declared workflow the daemon holds (applied from a
 * jobs file like a template), and a workflow run — one start of a workflow, whose jobs are all
 * created in one transaction with their dependencies. The methods that carry them:
 *
 * - `workflows.list {}` → `WorkflowsListResult`: the workflows the daemon holds, each with its
 *   last run.
 * - `workflows.run {workflow, params?, definition?}` → `WorkflowRunStarted`: start a run of a held
 *   workflow, or of `definition` (a workflow read from a jobs file and not applied: the editor's
 *   "Run workflow" and `spool run` in a project folder send it).
 * - `workflows.runs {workflow?, state?, limit?, cursor?}` → `WorkflowRunsResult`: recent runs,
 *   newest first.
 * - `workflows.get {id}` → `WorkflowRunDetail`: a run with every job and its dependencies.
 * - `workflows.cancel {id}` → `WorkflowRunActionResult`: cancel every unfinished job of the run.
 * - `workflows.retry {id}` → `WorkflowRunActionResult`: retry the failed and cancelled jobs and
 *   what depends on them; succeeded jobs and their results are kept.
 *
 * A run's state is kept in step with its jobs in the transaction that ends each job, and a
 * `workflows.changed` notification (`WorkflowRunChange`) goes out when its state or counts change.
 */
import type { DeclaredWorkflow, StepNeed } from './projects';
import type { DependencyCondition, Job, JobState } from './types';

/**
 * `running` until every job of the run has ended; then `succeeded` when no job ended `dead` and
 * none was cancelled by a user; `failed` when a job ended `dead`; `cancelled` when the run (or one
 * of its jobs) was cancelled by a user. Jobs cancelled because their condition could not hold
 * (a cleanup `on: failed` after a success) do not make a run fail. A retry makes it `running` again.
 */
export type WorkflowRunState = 'running' | 'succeeded' | 'failed' | 'cancelled';

export const WORKFLOW_RUN_STATES: readonly WorkflowRunState[] = ['running', 'succeeded', 'failed', 'cancelled'];

/** A workflow held by the daemon, with its owner (the project that applied it). */
export interface Workflow extends DeclaredWorkflow {
  owner: string | null;
  /** Its most recent run, or null when it has never run. */
  lastRun: WorkflowRun | null;
}

export interface WorkflowsListResult {
  workflows: Workflow[];
}

/** One workflow run, without its jobs. */
export interface WorkflowRun {
  id: string;
  workflow: string;
  /** The values the run was started with, defaults filled in. */
  params: Record<string, string>;
  state: WorkflowRunState;
  /** Jobs of the run per state (every state present, 0 when none). */
  counts: Record<JobState, number>;
  /** All jobs of the run. */
  total: number;
  /** What started it: `user` (the CLI, the editor, the protocol) or `schedule NAME`. */
  source: string;
  createdAt: number;
  /** When the last job ended; null while running. */
  endedAt: number | null;
}

/** One job of a run: a step, or one combination of a step's matrix. */
export interface WorkflowRunJob {
  id: string;
  step: string;
  /** The step's name with its matrix values: `test (linux)`. */
  label: string;
  /** The matrix values this job runs with; absent for a step without a matrix. */
  matrix?: Record<string, string>;
  queue: string;
  kind: string;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The last error line, when it failed. */
  lastError: string | null;
  /** The jobs (of this run) it waits for, and for which outcome. */
  dependsOn: { id: string; on: DependencyCondition }[];
}

/** A run with its jobs and the steps it was made from (the definition as it was at the start). */
export interface WorkflowRunDetail extends WorkflowRun {
  /** The steps and their needs, in the file's order: what a graph draws. */
  steps: { name: string; needs: StepNeed[]; matrix?: Record<string, string[]>; description?: string }[];
  jobs: WorkflowRunJob[];
  description?: string;
}

export interface WorkflowRunParams {
  /** The workflow's name. Without `definition`, the daemon's workflow of that name. */
  workflow: string;
  /** Values of the workflow's parameters, as text; checked against their declared types. */
  params?: Record<string, string>;
  /** A workflow read from a jobs file, run as given (its `name` must equal `workflow`). */
  definition?: DeclaredWorkflow;
}

export interface WorkflowRunStarted {
  run: WorkflowRun;
  /** The jobs created, in an order where each comes after those it waits for. */
  jobs: { id: string; step: string; label: string }[];
}

export interface WorkflowRunsParams {
  workflow?: string;
  state?: WorkflowRunState;
  /** 1..500, default 50. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface WorkflowRunsResult {
  runs: WorkflowRun[];
  nextCursor: string | null;
}

export interface WorkflowRunIdParams {
  id: string;
}

export interface WorkflowRunActionResult {
  run: WorkflowRun;
  /** How many jobs the action changed. */
  changed: number;
}

/** `workflows.changed`: a run started, changed counts or state, or ended. */
export interface WorkflowRunChange {
  id: string;
  workflow: string;
  state: WorkflowRunState;
  counts: Record<JobState, number>;
  at: number;
}

/**
 * `schedules.trigger`'s result: the job it enqueued, or for a schedule that starts a workflow,
 * the run it started (`run`) and the run's first job (`job`).
 */
export interface ScheduleTriggerResult {
  job: Job;
  created: boolean;
  run?: WorkflowRun;
}
