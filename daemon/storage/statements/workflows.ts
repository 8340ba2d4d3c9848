/**
 * Statements of workflows (see ./index.ts for the protocol): the workflows an apply stores, and
 * workflow runs. A run's row keeps the counts its state is decided from — jobs not yet ended,
 * jobs dead, jobs cancelled by a user — moved by one UPDATE in the transaction that ends (or
 * reopens) each of its jobs, so that keeping a run's state costs O(1) per job, never a scan of
 * the run. The engine decides what the numbers are (daemon/engine/ops/workflowRuns.ts); these
 * only write. Counts per job state are read from the jobs by their `workflow_run_id` index.
 */
import type { Job, JobState } from '../../../shared/protocol/types';
import type { WorkflowRunState } from '../../../shared/protocol/workflows';

/** A workflow as a store holds it: the declaration without its name, as canonical JSON text. */
export interface StoredWorkflow {
  name: string;
  body: string;
  createdAt: number;
  updatedAt: number;
}

/** A workflow run's row. */
export interface StoredWorkflowRun {
  id: string;
  workflow: string;
  /** JSON of the run's values. */
  params: string;
  /** JSON of the workflow (without its name) as it was when the run started. */
  definition: string;
  state: WorkflowRunState;
  source: string;
  /** Jobs the run made. */
  total: number;
  /** Of them, those that have not ended. */
  unfinished: number;
  /** Those that ended dead. */
  dead: number;
  /** Those a user cancelled (not those cancelled because a dependency's condition could not hold). */
  cancelled: number;
  createdAt: number;
  endedAt: number | null;
}

export type WorkflowRunInsert = Omit<StoredWorkflowRun, 'state' | 'dead' | 'cancelled' | 'endedAt'>;

/** Jobs of a run that ended (or, for a reopen, started again), as counts. */
export type WorkflowRunMove = { id: string; jobs: number; dead: number; cancelled: number; now: number };

export interface WorkflowSql {
  /** Every stored workflow, by name. */
  workflowList(): StoredWorkflow[];
  /** One workflow, or undefined. */
  workflowGet(name: string): StoredWorkflow | undefined;
  /** Creates or rewrites a workflow. */
  workflowPut(p: { name: string; body: string; now: number }): void;
  /** Deletes a workflow and its ownership record (its runs stay); false if there was none. */
  workflowDelete(name: string): boolean;
  /** Inserts a run, `running`. */
  workflowRunInsert(p: WorkflowRunInsert): void;
  /** One run, or undefined. */
  workflowRunGet(id: string): StoredWorkflowRun | undefined;
  /** One run, its row locked for the rest of the transaction (PostgreSQL: FOR UPDATE). */
  workflowRunGetForUpdate(id: string): StoredWorkflowRun | undefined;
  /** Runs newest first, those with ids below `beforeId` when given, at most `limit`. */
  workflowRunList(p: { workflow: string | null; state: WorkflowRunState | null; beforeId: string | null; limit: number }): StoredWorkflowRun[];
  /**
   * `jobs` jobs of the run ended, `dead` of them dead and `cancelled` of them cancelled by a user:
   * at no unfinished job left, the run ends (cancelled if a user cancelled a job, else failed if
   * one is dead, else succeeded) at `now`. The run as left; undefined when there is none.
   */
  workflowRunJobsEnded(p: WorkflowRunMove): StoredWorkflowRun | undefined;
  /** `jobs` ended jobs of the run were retried (`dead` were dead, `cancelled` cancelled by a user): it is running again. */
  workflowRunJobsReopened(p: WorkflowRunMove): StoredWorkflowRun | undefined;
  /** How many jobs each run has in each state (states with none left out). */
  workflowRunCounts(ids: readonly string[]): { runId: string; state: JobState; count: number }[];
  /** Every job of a run, in creation order. */
  workflowRunJobs(id: string): Job[];
  /** Deletes up to `limit` ended runs that have no job left; how many. */
  workflowRunDeleteEmpty(limit: number): number;
}
