/**
 * SQL of dependencies between jobs (../statements/dependencies.ts) in SQLite. No statement locks
 * anything: BEGIN IMMEDIATE holds the write lock for the whole transaction, so nothing ends
 * between a read and the write that follows it. Batches travel as one JSON parameter
 * (json_each), as completeMany's do.
 */
import type { DependencyCondition, Job, JobDependency, JobState } from '../../../shared/protocol/types';
import { DEPENDENCY_CONDITIONS } from '../../../shared/protocol/types';
import type { DependencyEdge, DependencySql, JobCount, StoredDependency } from '../statements/dependencies';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import { jobState, mapDependency, mapJob, mapStoredDependency, oneOfColumn } from '../mappers';
import { ArrayRows, text, toRow } from './row';

/** The columns of a dependency's other job, as `o.`, and of its edge, as `d.`. */
const OTHER = `d.job_id, d.depends_on_id, d.on_condition, d.resolved, o.id, o.state, o.step, o.queue, o.kind, o.result`;

export class DependencyStatements implements DependencySql {
  private readonly addDependentsStmt;
  private readonly insertEdgesStmt;
  private readonly resolveStmt;
  private readonly metStmt;
  private readonly cancelBlockedStmt;
  private readonly cancelHeldStmt;
  private readonly dependenciesOfStmt;
  private readonly dependentsOfStmt;
  private readonly reopenStmt;
  private readonly unfinishedStmt;

  constructor(
    db: Db,
    private readonly counts: PendingCounts,
    private readonly delayed: DelayedCounts,
  ) {
    this.addDependentsStmt = db.prepare(`
      UPDATE jobs SET dependents = dependents + item.value ->> 1, updated_at = @now
      FROM json_each(@counts) AS item WHERE jobs.id = item.value ->> 0
      RETURNING id, state`);
    this.insertEdgesStmt = db.prepare(`
      INSERT INTO job_dependencies (depends_on_id, job_id, on_condition, resolved)
      SELECT e.value ->> 1, e.value ->> 0, e.value ->> 2, e.value ->> 3 FROM json_each(@edges) AS e`);
    this.resolveStmt = db.prepare(`
      UPDATE job_dependencies SET resolved = 1
      WHERE depends_on_id IN (SELECT value FROM json_each(@ids)) AND resolved = 0 RETURNING depends_on_id, job_id, on_condition`);
    // A job whose last dependency this was is queued in the same statement; its run time stays
    // (a delayed job still waits for it).
    this.metStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET waiting_for = waiting_for - (item.value ->> 1),
        state = CASE WHEN waiting_for - (item.value ->> 1) = 0 AND state = 'blocked' THEN 'queued' ELSE state END, updated_at = @now
      FROM json_each(@counts) AS item WHERE jobs.id = item.value ->> 0 AND jobs.state IN ('blocked', 'held')
      RETURNING *`), 'job');
    // One statement per state left, so that the counters know where each job came from
    // (PostgreSQL's counting triggers see the old rows; SQLite's counters need telling).
    const cancel = (from: 'blocked' | 'held') =>
      new ArrayRows(db.prepare(`
        UPDATE jobs SET state = 'cancelled', last_error = @reason, finished_at = @now, updated_at = @now
        WHERE id IN (SELECT value FROM json_each(@ids)) AND state = '${from}' RETURNING *`), 'job');
    this.cancelBlockedStmt = cancel('blocked');
    this.cancelHeldStmt = cancel('held');
    this.dependenciesOfStmt = db.prepare(`
      SELECT ${OTHER} FROM json_each(@ids) AS j
      JOIN job_dependencies d INDEXED BY job_dependencies_job ON d.job_id = j.value
      JOIN jobs o ON o.id = d.depends_on_id ORDER BY d.job_id, o.id`);
    this.dependentsOfStmt = db.prepare(`
      SELECT ${OTHER} FROM job_dependencies d JOIN jobs o ON o.id = d.job_id
      WHERE d.depends_on_id = @id ORDER BY d.job_id LIMIT @limit`);
    this.reopenStmt = db.prepare(`
      UPDATE job_dependencies SET resolved = CASE WHEN depends_on_id IN (SELECT value FROM json_each(@waitingFor)) THEN 0 ELSE 1 END
      WHERE job_id = @jobId`);
    this.unfinishedStmt = db.prepare(`
      SELECT 1 FROM job_dependencies d JOIN jobs c ON c.id = d.job_id
      WHERE d.depends_on_id = @id AND c.state NOT IN ('completed', 'dead', 'cancelled') LIMIT 1`).pluck();
  }

  jobAddDependents(p: { counts: readonly JobCount[]; now: number }): { id: string; state: JobState }[] {
    const rows = this.addDependentsStmt.all({ counts: JSON.stringify(p.counts.map((c) => [c.id, c.n])), now: p.now });
    return rows.map((raw) => {
      const row = toRow(raw, 'job');
      return { id: text(row, 'id'), state: jobState(row) };
    });
  }

  dependencyInsertMany(edges: readonly DependencyEdge[]): void {
    if (edges.length === 0) return;
    this.insertEdgesStmt.run({ edges: JSON.stringify(edges.map((e) => [e.jobId, e.dependsOnId, e.on, e.resolved ? 1 : 0])) });
  }

  dependencyResolve(ids: readonly string[]): { dependsOnId: string; jobId: string; on: DependencyCondition }[] {
    return this.resolveStmt.all({ ids: JSON.stringify(ids) }).map((raw) => {
      const row = toRow(raw, 'dependency');
      return { dependsOnId: text(row, 'depends_on_id'), jobId: text(row, 'job_id'), on: oneOfColumn(row, 'on_condition', DEPENDENCY_CONDITIONS) };
    });
  }

  jobDependenciesMet(p: { counts: readonly JobCount[]; now: number }): Job[] {
    const jobs = this.metStmt.all({ counts: JSON.stringify(p.counts.map((c) => [c.id, c.n])), now: p.now }).map(mapJob);
    for (const job of jobs) {
      if (job.state !== 'queued') continue;
      this.counts.move(job.queue, 'blocked', 'queued');
      this.delayed.forget(job.queue);
    }
    return jobs;
  }

  jobCancelBlocked(p: { ids: readonly string[]; reason: string; now: number }): Job[] {
    const params = { ids: JSON.stringify(p.ids), reason: p.reason, now: p.now };
    const blocked = this.cancelBlockedStmt.all(params).map(mapJob);
    for (const job of blocked) this.counts.move(job.queue, 'blocked', 'cancelled');
    const held = this.cancelHeldStmt.all(params).map(mapJob);
    for (const job of held) this.counts.move(job.queue, 'held', 'cancelled');
    return [...blocked, ...held];
  }

  dependenciesOf(jobIds: readonly string[]): StoredDependency[] {
    return this.dependenciesOfStmt.all({ ids: JSON.stringify(jobIds) }).map((raw) => mapStoredDependency(toRow(raw, 'dependency')));
  }

  /** Unlike PostgreSQL, SQLite locks nothing: BEGIN IMMEDIATE holds the write lock. */
  dependenciesForRetry(jobId: string): StoredDependency[] {
    return this.dependenciesOf([jobId]);
  }

  dependentsOf(p: { id: string; limit: number }): JobDependency[] {
    return this.dependentsOfStmt.all(p).map((raw) => mapDependency(toRow(raw, 'dependent')));
  }

  dependencyReopen(p: { jobId: string; waitingFor: readonly string[] }): void {
    this.reopenStmt.run({ jobId: p.jobId, waitingFor: JSON.stringify(p.waitingFor) });
  }

  dependentsUnfinished(id: string): boolean {
    return this.unfinishedStmt.get({ id }) !== undefined;
  }
}
