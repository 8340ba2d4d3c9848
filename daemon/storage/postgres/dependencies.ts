/**
 * SQL of dependencies between jobs (../statements/dependencies.ts) in PostgreSQL. Where several
 * daemons can touch the same rows, the rows are locked in id order (a CTE with ORDER BY … FOR
 * UPDATE ahead of the UPDATE), so that two transactions releasing overlapping dependents wait
 * for each other instead of deadlocking; READ COMMITTED then re-reads `waiting_for` after the
 * wait, so two dependencies ending at once on two daemons lower it twice and queue the job once.
 * The counters follow by trigger.
 */
import type { AsyncPart } from '../statements';
import type { DependencySql } from '../statements/dependencies';
import { jobState, mapDependency, mapJob, mapStoredDependency, oneOfColumn } from '../mappers';
import { DEPENDENCY_CONDITIONS } from '../../../shared/protocol/types';
import { text } from '../rows';
import type { PgTx } from './db';
import { JOBS_DOT_COLUMNS } from './jobs';

/** The columns of a dependency's other job, as `o.`, and of its edge, as `d.`. */
const OTHER = `d.job_id, d.depends_on_id, d.on_condition, d.resolved, o.id, o.state, o.step, o.queue, o.kind, o.result`;

export const dependencyStatements: AsyncPart<PgTx, DependencySql> = {
  async jobAddDependents(tx, p) {
    if (p.counts.length === 0) return [];
    const rows = await tx.rows(
      `WITH item AS (SELECT * FROM unnest($1::text[], $2::int[]) AS t(id, n)),
         locked AS (SELECT jobs.id FROM jobs JOIN item ON item.id = jobs.id ORDER BY jobs.id FOR UPDATE OF jobs)
       UPDATE jobs SET dependents = dependents + item.n, updated_at = $3
       FROM item, locked WHERE jobs.id = item.id AND locked.id = item.id
       RETURNING jobs.id, jobs.state`,
      [p.counts.map((c) => c.id), p.counts.map((c) => c.n), p.now],
    );
    return rows.map((row) => ({ id: text(row, 'id'), state: jobState(row) }));
  },

  async dependencyInsertMany(tx, edges) {
    if (edges.length === 0) return;
    await tx.run(
      `INSERT INTO job_dependencies (depends_on_id, job_id, on_condition, resolved)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[])`,
      [edges.map((e) => e.dependsOnId), edges.map((e) => e.jobId), edges.map((e) => e.on), edges.map((e) => (e.resolved ? 1 : 0))],
    );
  },

  async dependencyResolve(tx, ids) {
    if (ids.length === 0) return [];
    const rows = await tx.rows(
      `UPDATE job_dependencies SET resolved = 1 WHERE depends_on_id = ANY($1::text[]) AND resolved = 0 RETURNING depends_on_id, job_id, on_condition`,
      [ids],
    );
    return rows.map((row) => ({ dependsOnId: text(row, 'depends_on_id'), jobId: text(row, 'job_id'), on: oneOfColumn(row, 'on_condition', DEPENDENCY_CONDITIONS) }));
  },

  async jobDependenciesMet(tx, p) {
    if (p.counts.length === 0) return [];
    const rows = await tx.rows(
      `WITH item AS (SELECT * FROM unnest($1::text[], $2::int[]) AS t(id, n)),
         locked AS (SELECT jobs.id FROM jobs JOIN item ON item.id = jobs.id ORDER BY jobs.id FOR UPDATE OF jobs)
       UPDATE jobs SET waiting_for = jobs.waiting_for - item.n,
         state = CASE WHEN jobs.waiting_for - item.n = 0 AND jobs.state = 'blocked' THEN 'queued' ELSE jobs.state END, updated_at = $3
       FROM item, locked WHERE jobs.id = item.id AND locked.id = item.id AND jobs.state IN ('blocked', 'held')
       RETURNING ${JOBS_DOT_COLUMNS}`,
      [p.counts.map((c) => c.id), p.counts.map((c) => c.n), p.now],
    );
    return rows.map(mapJob);
  },

  async jobCancelBlocked(tx, p) {
    if (p.ids.length === 0) return [];
    const rows = await tx.rows(
      `WITH locked AS (SELECT id FROM jobs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE)
       UPDATE jobs SET state = 'cancelled', last_error = $2, finished_at = $3, updated_at = $3
       FROM locked WHERE jobs.id = locked.id AND jobs.state IN ('blocked', 'held') RETURNING ${JOBS_DOT_COLUMNS}`,
      [p.ids, p.reason, p.now],
    );
    return rows.map(mapJob);
  },

  async dependenciesOf(tx, jobIds) {
    const rows = await tx.rows(
      `SELECT ${OTHER} FROM job_dependencies d JOIN jobs o ON o.id = d.depends_on_id WHERE d.job_id = ANY($1::text[]) ORDER BY d.job_id, o.id`,
      [jobIds],
    );
    return rows.map(mapStoredDependency);
  },

  async dependenciesForRetry(tx, jobId) {
    const rows = await tx.rows(
      `SELECT ${OTHER} FROM job_dependencies d JOIN jobs o ON o.id = d.depends_on_id WHERE d.job_id = $1 ORDER BY o.id FOR SHARE OF o`,
      [jobId],
    );
    return rows.map(mapStoredDependency);
  },

  async dependentsOf(tx, p) {
    const rows = await tx.rows(`SELECT ${OTHER} FROM job_dependencies d JOIN jobs o ON o.id = d.job_id WHERE d.depends_on_id = $1 ORDER BY d.job_id LIMIT $2`, [
      p.id,
      p.limit,
    ]);
    return rows.map(mapDependency);
  },

  async dependencyReopen(tx, p) {
    await tx.run(`UPDATE job_dependencies SET resolved = CASE WHEN depends_on_id = ANY($2::text[]) THEN 0 ELSE 1 END WHERE job_id = $1`, [p.jobId, p.waitingFor]);
  },

  async dependentsUnfinished(tx, id) {
    const row = await tx.row(
      `SELECT 1 AS one FROM job_dependencies d JOIN jobs c ON c.id = d.job_id
       WHERE d.depends_on_id = $1 AND c.state NOT IN ('completed', 'dead', 'cancelled') LIMIT 1`,
      [id],
    );
    return row !== undefined;
  },
};
