/**
 * SQL of workflows and workflow runs (../statements/workflows.ts) in PostgreSQL (migration 3).
 * A run's counts move by one UPDATE per ending, which takes the run row's lock: two of its jobs
 * ending at once on two daemons wait for each other, and READ COMMITTED re-reads the counts
 * after the wait, so neither ending is lost and the run ends once.
 */
import type { AsyncPart } from '../statements';
import type { WorkflowSql } from '../statements/workflows';
import { jobState, mapJob, mapWorkflow, mapWorkflowRun } from '../mappers';
import { int, text } from '../rows';
import type { PgTx } from './db';
import { JOB_COLUMNS } from './jobs';

/** A run's state once $2 more of its jobs have ended ($3 dead, $4 cancelled by a user). */
const ENDED_STATE = `CASE WHEN unfinished - $2 > 0 THEN state
  WHEN cancelled + $4 > 0 THEN 'cancelled' WHEN dead + $3 > 0 THEN 'failed' ELSE 'succeeded' END`;

export const workflowStatements: AsyncPart<PgTx, WorkflowSql> = {
  async workflowList(tx) {
    return (await tx.rows('SELECT * FROM workflows ORDER BY name')).map(mapWorkflow);
  },

  async workflowGet(tx, name) {
    const row = await tx.row('SELECT * FROM workflows WHERE name = $1', [name]);
    return row === undefined ? undefined : mapWorkflow(row);
  },

  async workflowPut(tx, p) {
    await tx.run(
      `INSERT INTO workflows (name, body, created_at, updated_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`,
      [p.name, p.body, p.now],
    );
  },

  /** Its ownership record goes with it (trigger workflows_unmanage). */
  async workflowDelete(tx, name) {
    return (await tx.run('DELETE FROM workflows WHERE name = $1', [name])) > 0;
  },

  async workflowRunInsert(tx, p) {
    await tx.run(
      `INSERT INTO workflow_runs (id, workflow, params, definition, state, source, total, unfinished, created_at)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8)`,
      [p.id, p.workflow, p.params, p.definition, p.source, p.total, p.unfinished, p.createdAt],
    );
  },

  async workflowRunGet(tx, id) {
    const row = await tx.row('SELECT * FROM workflow_runs WHERE id = $1', [id]);
    return row === undefined ? undefined : mapWorkflowRun(row);
  },

  async workflowRunGetForUpdate(tx, id) {
    const row = await tx.row('SELECT * FROM workflow_runs WHERE id = $1 FOR UPDATE', [id]);
    return row === undefined ? undefined : mapWorkflowRun(row);
  },

  async workflowRunList(tx, p) {
    const rows = await tx.rows(
      `SELECT * FROM workflow_runs
       WHERE ($1::text IS NULL OR workflow = $1) AND ($2::text IS NULL OR state = $2) AND ($3::text IS NULL OR id < $3)
       ORDER BY id DESC LIMIT $4`,
      [p.workflow, p.state, p.beforeId, p.limit],
    );
    return rows.map(mapWorkflowRun);
  },

  async workflowRunJobsEnded(tx, p) {
    const row = await tx.row(
      `UPDATE workflow_runs SET unfinished = unfinished - $2, dead = dead + $3, cancelled = cancelled + $4,
         state = ${ENDED_STATE}, ended_at = CASE WHEN unfinished - $2 > 0 THEN ended_at ELSE $5::bigint END
       WHERE id = $1 RETURNING *`,
      [p.id, p.jobs, p.dead, p.cancelled, p.now],
    );
    return row === undefined ? undefined : mapWorkflowRun(row);
  },

  async workflowRunJobsReopened(tx, p) {
    const row = await tx.row(
      `UPDATE workflow_runs SET unfinished = unfinished + $2, dead = dead - $3, cancelled = cancelled - $4, state = 'running', ended_at = NULL
       WHERE id = $1 RETURNING *`,
      [p.id, p.jobs, p.dead, p.cancelled],
    );
    return row === undefined ? undefined : mapWorkflowRun(row);
  },

  async workflowRunCounts(tx, ids) {
    if (ids.length === 0) return [];
    const rows = await tx.rows(
      `SELECT workflow_run_id, state, count(*)::int AS count FROM jobs WHERE workflow_run_id = ANY($1::text[]) GROUP BY workflow_run_id, state`,
      [ids],
    );
    return rows.map((row) => ({ runId: text(row, 'workflow_run_id'), state: jobState(row), count: int(row, 'count') }));
  },

  async workflowRunJobs(tx, id) {
    return (await tx.rows(`SELECT ${JOB_COLUMNS} FROM jobs WHERE workflow_run_id = $1 ORDER BY id`, [id])).map(mapJob);
  },

  async workflowRunDeleteEmpty(tx, limit) {
    return tx.run(
      `DELETE FROM workflow_runs WHERE id IN (
         SELECT r.id FROM workflow_runs r WHERE r.state <> 'running'
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.workflow_run_id = r.id)
         LIMIT $1)`,
      [limit],
    );
  },
};
