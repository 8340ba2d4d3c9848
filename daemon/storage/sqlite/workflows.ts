/**
 * SQL of workflows and workflow runs (../statements/workflows.ts) in SQLite (migration 13). No
 * statement locks anything: BEGIN IMMEDIATE holds the write lock for the whole transaction.
 */
import type { Job, JobState } from '../../../shared/protocol/types';
import type { StoredWorkflow, StoredWorkflowRun, WorkflowRunInsert, WorkflowRunMove, WorkflowSql } from '../statements/workflows';
import type { WorkflowRunState } from '../../../shared/protocol/workflows';
import type { Db } from './db';
import { jobState, mapJob, mapWorkflow, mapWorkflowRun } from '../mappers';
import { ArrayRows, int, text, toRow } from './row';

/** A run's state once `jobs` more of its jobs have ended: decided in the UPDATE, from the row's counts. */
const ENDED_STATE = `CASE WHEN unfinished - @jobs > 0 THEN state
  WHEN cancelled + @cancelled > 0 THEN 'cancelled' WHEN dead + @dead > 0 THEN 'failed' ELSE 'succeeded' END`;

export class WorkflowStatements implements WorkflowSql {
  private readonly listStmt;
  private readonly getStmt;
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly runInsertStmt;
  private readonly runGetStmt;
  private readonly runListStmt;
  private readonly runEndedStmt;
  private readonly runReopenedStmt;
  private readonly runCountsStmt;
  private readonly runJobsStmt;
  private readonly runDeleteEmptyStmt;

  constructor(db: Db) {
    this.listStmt = db.prepare('SELECT * FROM workflows ORDER BY name');
    this.getStmt = db.prepare('SELECT * FROM workflows WHERE name = @name');
    this.putStmt = db.prepare(`
      INSERT INTO workflows (name, body, created_at, updated_at) VALUES (@name, @body, @now, @now)
      ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`);
    this.deleteStmt = db.prepare('DELETE FROM workflows WHERE name = @name');
    this.runInsertStmt = db.prepare(`
      INSERT INTO workflow_runs (id, workflow, params, definition, state, source, total, unfinished, created_at)
      VALUES (@id, @workflow, @params, @definition, 'running', @source, @total, @unfinished, @createdAt)`);
    this.runGetStmt = db.prepare('SELECT * FROM workflow_runs WHERE id = @id');
    this.runListStmt = db.prepare(`
      SELECT * FROM workflow_runs
      WHERE (@workflow IS NULL OR workflow = @workflow) AND (@state IS NULL OR state = @state) AND (@beforeId IS NULL OR id < @beforeId)
      ORDER BY id DESC LIMIT @limit`);
    this.runEndedStmt = db.prepare(`
      UPDATE workflow_runs SET unfinished = unfinished - @jobs, dead = dead + @dead, cancelled = cancelled + @cancelled,
        state = ${ENDED_STATE}, ended_at = CASE WHEN unfinished - @jobs > 0 THEN ended_at ELSE @now END
      WHERE id = @id RETURNING *`);
    this.runReopenedStmt = db.prepare(`
      UPDATE workflow_runs SET unfinished = unfinished + @jobs, dead = dead - @dead, cancelled = cancelled - @cancelled,
        state = 'running', ended_at = NULL
      WHERE id = @id RETURNING *`);
    this.runCountsStmt = db.prepare(`
      SELECT workflow_run_id, state, count(*) AS count FROM jobs INDEXED BY jobs_workflow_run
      WHERE workflow_run_id IN (SELECT value FROM json_each(@ids)) GROUP BY workflow_run_id, state`);
    this.runJobsStmt = new ArrayRows(db.prepare('SELECT * FROM jobs INDEXED BY jobs_workflow_run WHERE workflow_run_id = @id ORDER BY id'), 'job');
    this.runDeleteEmptyStmt = db.prepare(`
      DELETE FROM workflow_runs WHERE id IN (
        SELECT r.id FROM workflow_runs r WHERE r.state <> 'running'
          AND NOT EXISTS (SELECT 1 FROM jobs j INDEXED BY jobs_workflow_run WHERE j.workflow_run_id = r.id)
        LIMIT @limit)`);
  }

  workflowList(): StoredWorkflow[] {
    return this.listStmt.all().map((raw) => mapWorkflow(toRow(raw, 'workflow')));
  }

  workflowGet(name: string): StoredWorkflow | undefined {
    const raw = this.getStmt.get({ name });
    return raw === undefined ? undefined : mapWorkflow(toRow(raw, 'workflow'));
  }

  workflowPut(p: { name: string; body: string; now: number }): void {
    this.putStmt.run(p);
  }

  /** Its ownership record goes with it (trigger workflows_unmanage). */
  workflowDelete(name: string): boolean {
    return this.deleteStmt.run({ name }).changes > 0;
  }

  workflowRunInsert(p: WorkflowRunInsert): void {
    this.runInsertStmt.run(p);
  }

  workflowRunGet(id: string): StoredWorkflowRun | undefined {
    const raw = this.runGetStmt.get({ id });
    return raw === undefined ? undefined : mapWorkflowRun(toRow(raw, 'workflow run'));
  }

  /** Unlike PostgreSQL, SQLite locks nothing: BEGIN IMMEDIATE holds the write lock. */
  workflowRunGetForUpdate(id: string): StoredWorkflowRun | undefined {
    return this.workflowRunGet(id);
  }

  workflowRunList(p: { workflow: string | null; state: WorkflowRunState | null; beforeId: string | null; limit: number }): StoredWorkflowRun[] {
    return this.runListStmt.all(p).map((raw) => mapWorkflowRun(toRow(raw, 'workflow run')));
  }

  workflowRunJobsEnded(p: WorkflowRunMove): StoredWorkflowRun | undefined {
    const raw = this.runEndedStmt.get(p);
    return raw === undefined ? undefined : mapWorkflowRun(toRow(raw, 'workflow run'));
  }

  workflowRunJobsReopened(p: WorkflowRunMove): StoredWorkflowRun | undefined {
    const { now: _now, ...values } = p;
    const raw = this.runReopenedStmt.get(values);
    return raw === undefined ? undefined : mapWorkflowRun(toRow(raw, 'workflow run'));
  }

  workflowRunCounts(ids: readonly string[]): { runId: string; state: JobState; count: number }[] {
    if (ids.length === 0) return [];
    return this.runCountsStmt.all({ ids: JSON.stringify(ids) }).map((raw) => {
      const row = toRow(raw, 'workflow run count');
      return { runId: text(row, 'workflow_run_id'), state: jobState(row), count: int(row, 'count') };
    });
  }

  workflowRunJobs(id: string): Job[] {
    return this.runJobsStmt.all({ id }).map(mapJob);
  }

  workflowRunDeleteEmpty(limit: number): number {
    return this.runDeleteEmptyStmt.run({ limit }).changes;
  }
}
