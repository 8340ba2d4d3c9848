/**
 * SQL over the jobs table for single-job reads and transitions. Claiming has its own module
 * (claim.ts) and listing too (list.ts). Every statement is prepared once, when the store opens.
 *
 * Every statement that adds, removes or moves a job reports it to the counters (counts.ts).
 *
 * Transitions that belong to a worker carry `state = 'running' AND worker_id = @workerId` in
 * their WHERE clause, so a worker that lost its lease changes nothing even if the engine's own
 * check were ever skipped.
 */
import type { Statement } from 'better-sqlite3';
import type { Job, JobState } from '../../../shared/protocol/types';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import { COMPLETED_JOB_COLUMNS, jobState, mapCompletedJob, mapJob, newJob } from '../mappers';
import { ArrayRows, int, scalarIntOrNull, scalarText, text, toRow, type Row } from './row';
import type { JobCheckpoint, JobHeartbeat, JobHeartbeatResult, JobHoldMove, JobInsert, JobProgress, JobSql, JobMove, JobUpdate } from '../statements/jobs';
import type { AttemptSql, CompletedJob, JobAttemptEnd, JobComplete, JobCompleteItem, JobInterrupt } from '../statements/attempts';
import { BUCKET_MS } from '../statements/runs';

export type { JobInsert } from '../statements/jobs';

/** Rows per statement in jobInsertMany. */
const INSERT_CHUNK = 16;

/** An INSERT of `rows` new jobs; its parameters are each row's values in JobStatements.jobInsert's order. */
function insertSql(rows: number): string {
  const row = `(${Array.from({ length: 30 }, () => '?').join(', ')})`;
  return `
    INSERT INTO jobs (id, queue, kind, payload, priority, weight, state, run_at, max_attempts,
      backoff_strategy, backoff_base_ms, backoff_cap_ms, backoff_jitter, timeout_ms,
      idempotency_key, tags, context, created_at, updated_at,
      last_error, finished_at, depends_on, waiting_for, step, workflow_run_id, uniqueness, retry_rule, expire_at, deadline_at, group_key)
    VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
}

/** One row's parameters, in the column order of insertSql. */
function insertValues(v: JobInsert): unknown[] {
  return [
    v.id, v.queue, v.kind, v.payload, v.priority, v.weight, v.state, v.runAt, v.maxAttempts,
    v.backoffStrategy, v.backoffBaseMs, v.backoffCapMs, v.backoffJitter, v.timeoutMs,
    v.idempotencyKey, v.tags, v.context, v.now, v.now,
    v.lastError, v.state === 'cancelled' ? v.now : null, v.dependsOn, v.waitingFor, v.step, v.workflowRunId, v.uniqueness ?? null, v.retryRule, v.expireAt, v.deadlineAt,
    v.groupKey,
  ];
}

function mapOptional(row: Row | undefined): Job | undefined {
  return row === undefined ? undefined : mapJob(row);
}

export class JobStatements implements JobSql, AttemptSql {
  private readonly insertStmt;
  /** Multi-row INSERTs for jobInsertMany, prepared the first time each row count is needed. */
  private readonly insertChunkStmts = new Map<number, Statement>();
  private readonly insertRows: (rows: number) => Statement;
  private readonly byIdStmt;
  private readonly byKeyStmt;
  private readonly heartbeatStmt;
  private readonly progressStmt;
  private readonly checkpointStmt;
  private readonly endAttemptStmt;
  private readonly completeStmt;
  private readonly completeManyStmt;
  private readonly completeBatchStmt;
  private readonly requestCancelStmt;
  private readonly pauseStmt;
  private readonly resumeStmt;
  private readonly cancelWaitingStmt;
  private readonly retryStmt;
  private readonly deleteStmt;
  private readonly updateStmt;
  private readonly setHeldStmt;
  private readonly recoverStmt;
  private readonly expiredStmt;
  private readonly runningOfWorkersStmt;
  private readonly runningIdsOfWorkersStmt;
  private readonly expiredWaitingStmt;
  private readonly expireStmt;
  private readonly nextExpiryStmt;

  constructor(
    db: Db,
    private readonly counts: PendingCounts,
    private readonly delayed: DelayedCounts,
  ) {
    this.insertStmt = db.prepare(insertSql(1));
    this.insertRows = (rows) => {
      let stmt = this.insertChunkStmts.get(rows);
      if (stmt === undefined) this.insertChunkStmts.set(rows, (stmt = db.prepare(insertSql(rows))));
      return stmt;
    };
    this.byIdStmt = new ArrayRows(db.prepare('SELECT * FROM jobs WHERE id = @id'), 'job');
    this.byKeyStmt = new ArrayRows(db.prepare('SELECT * FROM jobs WHERE idempotency_key = @key'), 'job');
    this.heartbeatStmt = db.prepare(`
      UPDATE jobs SET lease_expires_at = max(lease_expires_at, @lease), updated_at = @now
      WHERE id = @id AND state = 'running' AND worker_id = @workerId
      RETURNING lease_expires_at, cancel_requested, paused_at`);
    this.progressStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET progress = @percent, progress_message = @message, updated_at = @now
      WHERE id = @id AND state = 'running' AND worker_id = @workerId
      RETURNING *`), 'job');
    this.checkpointStmt = db.prepare(`
      UPDATE jobs SET checkpoint = @checkpoint, updated_at = @now
      WHERE id = @id AND state = 'running' AND worker_id = @workerId`);
    // The lease is cleared; worker_id stays so a finished job still says who ran it last.
    this.endAttemptStmt = db.prepare(`
      UPDATE jobs SET state = @state, run_at = @runAt, last_error = @lastError,
        result = coalesce(@result, result), lease_expires_at = NULL, finished_at = @finishedAt,
        cancel_requested = 0, updated_at = @now
      WHERE id = @id AND state = 'running' AND worker_id = @workerId`);
    // A complete needs nothing from the job before it: one UPDATE … RETURNING checks the lease,
    // ends the attempt and gives back the job. worker_id and started_at stay: the job row is
    // the record of its completed attempt (RunStatements).
    this.completeStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = 'completed', last_error = NULL, result = coalesce(@result, result),
        lease_expires_at = NULL, finished_at = @now, cancel_requested = 0, updated_at = @now
      WHERE id = @id AND state = 'running' AND worker_id = @workerId
      RETURNING *`), 'job');
    // The same for many jobs in one statement: each item is [id, workerId, result]; the jobs are
    // found by primary key, one per item (the ids must be distinct, see completeMany).
    this.completeManyStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = 'completed', last_error = NULL, result = coalesce(item.value ->> 2, jobs.result),
        lease_expires_at = NULL, finished_at = @now, cancel_requested = 0, updated_at = @now
      FROM json_each(@items) AS item
      WHERE jobs.id = item.value ->> 0 AND jobs.state = 'running' AND jobs.worker_id = item.value ->> 1
      RETURNING *`), 'job');
    // The same, returning only what a CompletedJob holds: reading the whole row back costs
    // about as much again as the update.
    this.completeBatchStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = 'completed', last_error = NULL, result = coalesce(item.value ->> 2, jobs.result),
        lease_expires_at = NULL, finished_at = @now, cancel_requested = 0, updated_at = @now
      FROM json_each(@items) AS item
      WHERE jobs.id = item.value ->> 0 AND jobs.state = 'running' AND jobs.worker_id = item.value ->> 1
      RETURNING ${COMPLETED_JOB_COLUMNS.map((c) => `jobs.${c}`).join(', ')}`), 'completed job');
    this.requestCancelStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET cancel_requested = 1, updated_at = @now WHERE id = @id AND state = 'running' RETURNING *`), 'job');
    this.pauseStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET paused_at = @now, updated_at = @now WHERE id = @id AND state = 'running' AND paused_at IS NULL RETURNING *`), 'job');
    this.resumeStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET lease_expires_at = lease_expires_at + max(@now - paused_at, 0), paused_at = NULL, updated_at = @now
      WHERE id = @id AND state = 'running' AND paused_at IS NOT NULL RETURNING *`), 'job');
    this.cancelWaitingStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = 'cancelled', finished_at = @now, updated_at = @now
      WHERE id = @id AND state IN ('blocked', 'queued', 'retrying', 'held') RETURNING *`), 'job');
    // A user's retry: a fresh attempt budget; runs (the history) and the checkpoint stay,
    // except that a completed job starts over from nothing. The last attempt's worker and start
    // time go: a queued job has neither (the history keeps them).
    this.retryStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = CASE WHEN @waitingFor > 0 THEN 'blocked' ELSE 'queued' END, waiting_for = @waitingFor, attempts = 0, run_at = @now, worker_id = NULL, started_at = NULL, finished_at = NULL,
        last_error = NULL, result = NULL, progress = NULL, progress_message = NULL, cancel_requested = 0,
        checkpoint = CASE WHEN state = 'completed' THEN NULL ELSE checkpoint END, updated_at = @now
      WHERE id = @id AND state IN ('dead', 'cancelled', 'completed') RETURNING *`), 'job');
    this.deleteStmt = db.prepare(`DELETE FROM jobs WHERE id = @id AND state <> 'running' RETURNING queue, state`);
    this.updateStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET priority = coalesce(@priority, priority), run_at = coalesce(@runAt, run_at),
        priority_set = CASE WHEN @priority IS NULL THEN priority_set ELSE NULL END, group_key = coalesce(@groupKey, group_key),
        payload = coalesce(@payload, payload), max_attempts = coalesce(@maxAttempts, max_attempts),
        tags = coalesce(@tags, tags), weight = coalesce(@weight, weight), timeout_ms = coalesce(@timeoutMs, timeout_ms), updated_at = @now
      WHERE id = @id AND state IN ('blocked', 'queued', 'retrying', 'held') RETURNING *`), 'job');
    this.setHeldStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = @to, updated_at = @now WHERE id = @id AND state = @from RETURNING *`), 'job');
    // Start-up recovery gives the attempt back: the daemon stopping is not the job failing.
    // last_error says why it waits again (not an earlier attempt's failure).
    this.recoverStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = 'retrying', attempts = attempts - 1, run_at = @runAt, lease_expires_at = NULL,
        last_error = @reason, cancel_requested = 0, updated_at = @now
      WHERE id = @id AND state = 'running' RETURNING *`), 'job');
    this.expiredStmt = new ArrayRows(db.prepare(`
      SELECT * FROM jobs INDEXED BY jobs_lease WHERE state = 'running' AND lease_expires_at <= @now AND paused_at IS NULL ORDER BY lease_expires_at LIMIT +@limit`), 'job');
    this.runningOfWorkersStmt = new ArrayRows(db.prepare(`
      SELECT * FROM jobs INDEXED BY jobs_lease WHERE state = 'running' AND worker_id IN (SELECT value FROM json_each(@workerIds))`), 'job');
    this.runningIdsOfWorkersStmt = db.prepare(`
      SELECT id FROM jobs INDEXED BY jobs_lease WHERE state = 'running' AND worker_id IN (SELECT value FROM json_each(@workerIds)) ORDER BY id`).pluck();
    // jobs_expiry holds only jobs with an expiry, and the claim clears it: the walk is over
    // jobs that never started, most of them waiting.
    this.expiredWaitingStmt = new ArrayRows(db.prepare(`
      SELECT * FROM jobs INDEXED BY jobs_expiry WHERE expire_at IS NOT NULL AND expire_at <= @now
        AND state IN ('blocked', 'queued', 'retrying') ORDER BY expire_at LIMIT +@limit`), 'job');
    this.expireStmt = new ArrayRows(db.prepare(`
      UPDATE jobs SET state = 'dead', finished_at = @now, last_error = @reason, expire_at = NULL, updated_at = @now
      WHERE id = @id AND state IN ('blocked', 'queued', 'retrying') AND expire_at <= @now RETURNING *`), 'job');
    this.nextExpiryStmt = db.prepare(`
      SELECT min(expire_at) FROM jobs INDEXED BY jobs_expiry WHERE expire_at IS NOT NULL AND expire_at > @now
        AND state IN ('blocked', 'queued', 'retrying')`).pluck();
  }

  /**
   * Inserts a new job and returns it as stored. The job is built from the values rather than
   * read back with RETURNING *: on the enqueue path that read-back and its mapping cost more
   * than the insert itself. A unit test holds the two equal (enqueue result = getJob). Never
   * undefined: unlike PostgreSQL, no other transaction can insert the key between the
   * enqueue's read and this insert (BEGIN IMMEDIATE holds the write lock).
   */
  jobInsert(values: JobInsert): Job {
    // Positional parameters, in the column order of the INSERT: binding these 18 values by name
    // made pipelined enqueues 10-20 % slower (BENCHMARKS.md).
    const v = values;
    this.insertStmt.run(insertValues(v));
    this.counts.add(values.queue, values.state, 1);
    if (v.runAt > v.now) this.delayed.forget(v.queue);
    return newJob(values);
  }

  /**
   * Inserts new jobs, INSERT_CHUNK rows per statement, and returns them as stored (in order).
   * A statement of sixteen rows costs less per row than sixteen statements of one: measured on
   * batches of 1,000, about 9-10 µs of CPU per job against 12.5-13.5.
   */
  jobInsertMany(values: readonly JobInsert[]): Job[] {
    for (let start = 0; start < values.length; start += INSERT_CHUNK) {
      const chunk = values.slice(start, start + INSERT_CHUNK);
      const params: unknown[] = [];
      for (const v of chunk) params.push(...insertValues(v));
      this.insertRows(chunk.length).run(params);
    }
    for (const v of values) {
      this.counts.add(v.queue, v.state, 1);
      if (v.runAt > v.now) this.delayed.forget(v.queue);
    }
    return values.map(newJob);
  }

  jobGetByIdempotencyKey(key: string): Job | undefined {
    return mapOptional(this.byKeyStmt.get({ key }));
  }

  /** One indexed read per key: unlike PostgreSQL's, SQLite's statements cost no round trip, and this one is prepared once. */
  jobGetByIdempotencyKeys(keys: readonly string[]): Job[] {
    const jobs: Job[] = [];
    for (const key of keys) {
      const job = mapOptional(this.byKeyStmt.get({ key }));
      if (job) jobs.push(job);
    }
    return jobs;
  }

  // Statements of ../statements/jobs.ts (JobSql).

  jobGet(id: string): Job | undefined {
    return mapOptional(this.byIdStmt.get({ id }));
  }

  /** Unlike PostgreSQL, SQLite needs no row lock: BEGIN IMMEDIATE holds the write lock for the whole transaction. */
  jobGetForUpdate(id: string): Job | undefined {
    return mapOptional(this.byIdStmt.get({ id }));
  }

  jobHeartbeat(params: JobHeartbeat): JobHeartbeatResult | undefined {
    const raw = this.heartbeatStmt.get(params);
    if (raw === undefined) return undefined;
    const row = toRow(raw, 'heartbeat');
    return { leaseExpiresAt: int(row, 'lease_expires_at'), cancelRequested: int(row, 'cancel_requested') !== 0, paused: row.get('paused_at') !== null };
  }

  jobSetProgress(params: JobProgress): Job | undefined {
    return mapOptional(this.progressStmt.get(params));
  }

  jobSetCheckpoint(params: JobCheckpoint): boolean {
    return this.checkpointStmt.run(params).changes > 0;
  }

  /**
   * The job is returned as the UPDATE leaves it, built from `job` rather than read back with
   * RETURNING *, which on the complete path cost more than the update itself.
   */
  jobEndAttempt(job: Job, params: JobAttemptEnd): Job | undefined {
    if (this.endAttemptStmt.run(params).changes === 0) return undefined;
    this.counts.move(job.queue, 'running', params.state);
    this.counts.runningWeight(job.queue, 1 - job.weight);
    return {
      ...job,
      state: params.state,
      runAt: params.runAt,
      lastError: params.lastError,
      result: params.result === null ? job.result : JSON.parse(params.result),
      leaseExpiresAt: null,
      finishedAt: params.finishedAt,
      cancelRequested: false,
      updatedAt: params.now,
    };
  }

  /**
   * The job row stays the record of the completed attempt (see RunStatements). The finished
   * figure is counted in memory (PendingCounts, written at commit), so counting it here costs
   * no statement.
   */
  jobComplete(params: JobComplete): Job | undefined {
    const row = this.completeStmt.get(params);
    if (row === undefined) return undefined;
    const job = mapJob(row);
    this.counts.move(job.queue, 'running', 'completed');
    this.counts.runningWeight(job.queue, 1 - job.weight);
    this.counts.finished(Math.floor(params.now / BUCKET_MS), 'completed', 1);
    return job;
  }

  /**
   * One statement for the whole batch: its overhead is paid once (claiming 50 and completing
   * them went from ~20k to ~26k jobs/s on the store alone). The ids must be distinct: a job
   * named twice would be completed once and reported once.
   */
  jobCompleteMany(params: { items: readonly JobCompleteItem[]; now: number }): Job[] {
    return this.completed(this.completeManyStmt, params, mapJob);
  }

  jobCompleteBatch(params: { items: readonly JobCompleteItem[]; now: number }): CompletedJob[] {
    return this.completed(this.completeBatchStmt, params, mapCompletedJob);
  }

  /** Runs a complete of many jobs and counts the ones it completed, each read with `map`. */
  private completed<T extends { queue: string; weight: number }>(stmt: ArrayRows, params: { items: readonly JobCompleteItem[]; now: number }, map: (row: Row) => T): T[] {
    const rows = stmt.all({ items: JSON.stringify(params.items.map((i) => [i.id, i.workerId, i.result])), now: params.now });
    const done: T[] = [];
    for (const row of rows) {
      const job = map(row);
      this.counts.move(job.queue, 'running', 'completed');
      this.counts.runningWeight(job.queue, 1 - job.weight);
      done.push(job);
    }
    this.counts.finished(Math.floor(params.now / BUCKET_MS), 'completed', done.length);
    return done;
  }

  jobRequestCancel(p: { id: string; now: number }): Job | undefined {
    return mapOptional(this.requestCancelStmt.get(p));
  }

  jobPause(p: { id: string; now: number }): Job | undefined {
    return mapOptional(this.pauseStmt.get(p));
  }

  jobResume(p: { id: string; now: number }): Job | undefined {
    return mapOptional(this.resumeStmt.get(p));
  }

  jobCancelWaiting(p: JobMove): Job | undefined {
    const job = this.moved(p.from, mapOptional(this.cancelWaitingStmt.get({ id: p.id, now: p.now })));
    if (job) this.delayed.forget(job.queue);
    return job;
  }

  jobRetry(p: JobMove & { waitingFor: number }): Job | undefined {
    this.delayed.noteWrite(p.now);
    return this.moved(p.from, mapOptional(this.retryStmt.get({ id: p.id, now: p.now, waitingFor: p.waitingFor })));
  }

  /** The counters follow a job from `from`, the state it was read in, to the state it is in now. */
  private moved(from: JobState, after: Job | undefined): Job | undefined {
    if (after) this.counts.move(after.queue, from, after.state);
    return after;
  }

  jobDelete(id: string): boolean {
    const raw = this.deleteStmt.get({ id });
    if (raw === undefined) return false;
    const row = toRow(raw, 'deleted job');
    this.counts.add(text(row, 'queue'), jobState(row), -1);
    this.delayed.forget(text(row, 'queue'));
    return true;
  }

  jobUpdate(p: JobUpdate): Job | undefined {
    // The group's counters follow by trigger (jobs_group_regroup).
    const job = mapOptional(this.updateStmt.get({ ...p, groupKey: p.groupKey ?? null }));
    if (job) this.delayed.forget(job.queue);
    return job;
  }

  jobSetHeld(p: JobHoldMove): Job | undefined {
    const job = this.moved(p.from, mapOptional(this.setHeldStmt.get(p)));
    if (job) this.delayed.forget(job.queue);
    return job;
  }

  jobInterrupt(params: JobInterrupt): Job | undefined {
    // Its run time is now: delayed if the clock were to step back (see DelayedCounts.noteWrite).
    this.delayed.noteWrite(params.now);
    const job = mapOptional(this.recoverStmt.get(params));
    if (job) {
      this.counts.move(job.queue, 'running', 'retrying');
      this.counts.runningWeight(job.queue, 1 - job.weight);
    }
    return job;
  }

  /** Unlike PostgreSQL, SQLite locks nothing: BEGIN IMMEDIATE holds the write lock, so no other reaper runs meanwhile. */
  jobExpiredLeases(params: { now: number; limit: number }): Job[] {
    return this.expiredStmt.all(params).map(mapJob);
  }

  /** Unlike PostgreSQL, SQLite needs no row lock: BEGIN IMMEDIATE holds the write lock for the whole transaction. */
  jobRunningForUpdate(workerIds: readonly string[]): Job[] {
    return this.runningOfWorkersStmt.all({ workerIds: JSON.stringify(workerIds) }).map(mapJob);
  }

  // Statements of ../statements/expiry.ts (ExpirySql).

  /** Unlike PostgreSQL, SQLite locks nothing: BEGIN IMMEDIATE holds the write lock. */
  jobExpiredWaiting(p: { now: number; limit: number }): Job[] {
    return this.expiredWaitingStmt.all(p).map(mapJob);
  }

  jobExpire(p: JobMove & { reason: string }): Job | undefined {
    const job = this.moved(p.from, mapOptional(this.expireStmt.get({ id: p.id, now: p.now, reason: p.reason })));
    if (job) this.delayed.forget(job.queue);
    return job;
  }

  jobNextExpiry(now: number): number | null {
    return scalarIntOrNull(this.nextExpiryStmt.get({ now }), 'next expiry');
  }

  jobRunningIds(workerIds: readonly string[]): string[] {
    return this.runningIdsOfWorkersStmt.all({ workerIds: JSON.stringify(workerIds) }).map((id) => scalarText(id, 'job id'));
  }
}
