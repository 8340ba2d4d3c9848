/**
 * Reading and managing single jobs, written once for every store: a job with its history,
 * listing, and a user's actions (cancel, retry, update, run now, pause, resume, hold, release, delete) with the pieces of their bulk
 * forms (the ids a filter names, and each id's action in a savepoint).
 *
 * Each action reads the job with its row lock (jobGetForUpdate), lets the job rules decide,
 * then writes with the states it may act on as the statement's guard: a worker's complete
 * racing a cancel on another daemon waits for the lock and then finds the job as this
 * transaction left it.
 */
import { SpoolError, jobNotFound } from '../../../shared/protocol/errors';
import { tooHeavy } from '../errors';
import { editedPayload } from '../../../shared/domain/rules/payloads';
import { jsonText } from '../../../shared/domain/validate';
import type { BulkResult, JobWithRuns } from '../../../shared/protocol';
import type { Job } from '../../../shared/protocol/types';
import { savepoint, sql, type Op } from '../../storage/statements';
import type { BulkInput, FilterInput, ListInput, UpdateInput } from '../validate/jobs';
import { allows, type JobAction } from '../../../shared/domain/states';
import type { OpContext } from './context';
import { checkNoUnfinishedDependents, dependenciesAround, retryWaitsFor, settleDependents } from './dependencies';
import { runJobDeleted, runJobReopened, runJobsEnded } from './workflowRuns';
import * as history from './historySteps';
import { groupedFor } from './groups';
import { editedFields, noteChange } from './jobHistory';

/** A job and its runs. Rejects with JobNotFound. */
export function* getJob(id: string): Op<JobWithRuns> {
  const job = yield* sql('jobGet', id);
  if (!job) throw jobNotFound(id);
  return { job, runs: yield* sql('runsOfJob', id), ...(yield* dependenciesAround(job)) };
}

/** Up to `input.limit` jobs in order, after the cursor. */
export function* listJobs(c: OpContext, input: ListInput): Op<Job[]> {
  return yield* sql('jobList', { ...input, now: c.now() });
}

/** The job, its row locked; rejects with JobNotFound. */
function* existing(id: string): Op<Job> {
  const job = yield* sql('jobGetForUpdate', id);
  if (!job) throw jobNotFound(id);
  return job;
}

/** The job a guarded write gave back; none means the job changed under a lock that should have held it. */
function changed(id: string, what: string, job: Job | undefined): Job {
  if (!job) throw new Error(`Job ${id} changed while being ${what}`);
  return job;
}

/**
 * blocked/queued/retrying → cancelled, and the jobs depending on it as their conditions say;
 * running → cancel requested (the worker stops it); finished → error. A bulk cancel passes
 * `cascaded`, the jobs its earlier cancels cancelled as dependents: one of those it comes to
 * is counted as cancelled, not refused as finished.
 */
export function* cancel(c: OpContext, id: string, cascaded?: Set<string>): Op<Job> {
  const job = yield* existing(id);
  if (job.state === 'cancelled' && cascaded?.has(id)) return job;
  const now = c.now();
  const updated = changed(
    id,
    'cancelled',
    c.policy.rules.cancel(job) === 'cancel' ? yield* sql('jobCancelWaiting', { id, from: job.state, now }) : yield* sql('jobRequestCancel', { id, now }),
  );
  c.changes.job(updated);
  if (updated.state === 'cancelled' && job.state !== 'cancelled') {
    history.endedWaiting(c, updated, 'cancelled', now);
    yield* noteChange(c, updated, 'cancel', cascaded?.has(id) === true ? 'with a job it depends on' : null);
  } else if (updated.state === 'running' && !job.cancelRequested) {
    yield* noteChange(c, updated, 'cancel', 'cancel requested; its worker stops it');
  }
  if (updated.state === 'cancelled' && updated.workflowRunId !== null) yield* runJobsEnded(c, [updated]);
  if (updated.state === 'cancelled' && updated.dependents > 0) yield* settleDependents(c, [updated], cascaded);
  return updated;
}

/**
 * dead/cancelled/completed → queued with a fresh attempt budget; the run history stays, and so
 * does the checkpoint, except that a completed job starts over from nothing.
 */
export function* retry(c: OpContext, id: string): Op<Job> {
  const job = yield* existing(id);
  c.policy.rules.checkRetry(job);
  const waitingFor = yield* retryWaitsFor(job);
  // The job row is about to stop describing its completed attempt: the history gets its row.
  if (job.state === 'completed') yield* sql('runKeepCompleted', id);
  const updated = changed(id, 'retried', yield* sql('jobRetry', { id, from: job.state, now: c.now(), waitingFor: waitingFor.length }));
  c.changes.job(updated);
  yield* noteChange(c, updated, 'retry by user', `was ${job.state}`);
  yield* runJobReopened(c, job);
  return updated;
}

/**
 * A waiting or held job's priority, run time, payload (or a shell or HTTP payload's fields,
 * merged into the stored one and checked as at enqueue), attempts, timeout, tags, weight or group.
 */
export function* update(c: OpContext, input: UpdateInput): Op<Job> {
  const job = yield* existing(input.id);
  c.policy.rules.checkUpdate(job, input);
  const edited = Object.keys(input.payloadEdits).length > 0 ? jsonText(editedPayload(job.kind, job.payload, input.payloadEdits), 'payload') : null;
  if (input.weight !== null) {
    // Made heavier than its queue's concurrency, it could never start: refused as at enqueue.
    const queue = yield* sql('queueGet', job.queue);
    if (queue?.concurrency != null && input.weight > queue.concurrency) throw tooHeavy(job.queue, input.weight, queue.concurrency);
  }
  const now = c.now();
  const runAt = input.runAt ?? (input.delayMs !== undefined ? now + input.delayMs : null);
  const groupKey = input.group === undefined ? null : yield* newGroupKey(c, job, input.group);
  const updated = changed(
    input.id,
    'updated',
    yield* sql('jobUpdate', {
      id: input.id,
      priority: input.priority,
      runAt,
      payload: edited ?? input.payload,
      maxAttempts: input.maxAttempts,
      tags: input.tags,
      weight: input.weight,
      timeoutMs: input.timeoutMs,
      now,
      groupKey,
    }),
  );
  c.changes.job(updated);
  yield* noteChange(c, updated, 'edit', editedFields(input));
  return updated;
}

/**
 * The group key a job edited to `group` stores: a group makes its queue grouped (as at enqueue);
 * no group is '' in a grouped queue (the group of the jobs without one) and stays as it is in a
 * queue without groups (null: left alone).
 */
function* newGroupKey(c: OpContext, job: Job, group: string | null): Op<string | null> {
  const queue = yield* sql('queueGet', job.queue);
  if (queue === undefined) return group;
  const grouped = yield* groupedFor(c, { group }, queue);
  return group ?? (grouped.grouped ? '' : null);
}

/** A delayed queued job, or a retrying one waiting out its backoff, becomes due now; its state stays. */
export function* runNow(c: OpContext, id: string): Op<Job> {
  const job = yield* existing(id);
  c.policy.rules.checkRunNow(job);
  const now = c.now();
  if (job.runAt <= now) return job;
  const updated = changed(id, 'run now', yield* sql('jobUpdate', { id, priority: null, runAt: now, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now }));
  c.changes.job(updated);
  yield* noteChange(c, updated, 'run now', null);
  return updated;
}

/**
 * A running shell job of a daemon's executors is marked paused; the daemon running it stops its
 * processes when it hears of it (the change event, or its next heartbeat on another daemon).
 */
export function* pause(c: OpContext, id: string): Op<Job> {
  const job = yield* existing(id);
  c.policy.rules.checkPause(job);
  const updated = changed(id, 'paused', yield* sql('jobPause', { id, now: c.now() }));
  c.changes.job(updated);
  yield* noteChange(c, updated, 'pause', 'its processes stopped');
  return updated;
}

/** A paused job runs on: its lease moves on by the time it was paused. */
export function* resume(c: OpContext, id: string): Op<Job> {
  const job = yield* existing(id);
  c.policy.rules.checkResume(job);
  const updated = changed(id, 'resumed', yield* sql('jobResume', { id, now: c.now() }));
  c.changes.job(updated);
  yield* noteChange(c, updated, 'resume', 'its processes continued');
  return updated;
}

/** blocked/queued/retrying → held: never claimed until released. */
export function* hold(c: OpContext, id: string): Op<Job> {
  const job = yield* existing(id);
  c.policy.rules.checkHold(job);
  if (job.state !== 'blocked' && job.state !== 'queued' && job.state !== 'retrying') throw new Error(`Job ${id} cannot be held from ${job.state}`);
  const updated = changed(id, 'held', yield* sql('jobSetHeld', { id, from: job.state, to: 'held', now: c.now() }));
  c.changes.job(updated);
  yield* noteChange(c, updated, 'hold', `was ${job.state}`);
  return updated;
}

/**
 * held → blocked while one of its dependencies has not ended, retrying when it has made
 * attempts (only a failed or given-back attempt leaves a waiting job with attempts: a user's
 * retry starts over from none), else queued. Its run time stays.
 */
export function* unhold(c: OpContext, id: string): Op<Job> {
  const job = yield* existing(id);
  c.policy.rules.checkUnhold(job);
  const to = job.waitingFor > 0 ? 'blocked' : job.attempts > 0 ? 'retrying' : 'queued';
  const updated = changed(id, 'released', yield* sql('jobSetHeld', { id, from: 'held', to, now: c.now() }));
  c.changes.job(updated);
  yield* noteChange(c, updated, 'release', null);
  return updated;
}

/**
 * Deletes a job that is not running, with its runs and output; how many jobs were deleted. A job
 * that unfinished jobs depend on is refused, unless `cascade`: then the jobs that depend on it
 * (and on them, and so on) go too, or none does if one of them is running.
 */
export function* deleteJob(c: OpContext, id: string, cascade = false): Op<number> {
  const job = yield* existing(id);
  c.policy.rules.checkDelete(job);
  if (!cascade) yield* checkNoUnfinishedDependents(job);
  const doomed = [job];
  if (cascade) {
    const seen = new Set([id]);
    for (let i = 0; i < doomed.length; i += 1) {
      const parent = doomed[i];
      if (parent === undefined || parent.dependents === 0) continue;
      for (const d of yield* sql('dependentsOf', { id: parent.id, limit: Number.MAX_SAFE_INTEGER })) {
        if (seen.has(d.id)) continue;
        seen.add(d.id);
        const dependent = yield* existing(d.id);
        c.policy.rules.checkDelete(dependent);
        doomed.push(dependent);
      }
    }
  }
  for (const gone of doomed) {
    if (!(yield* sql('jobDelete', gone.id))) throw new Error(`Job ${gone.id} changed while being deleted`);
    c.changes.job(gone, true);
    yield* runJobDeleted(c, gone);
  }
  return doomed.length;
}

/** The ids a bulk action applies to: the given ids, or every match of the filter, oldest first. */
export function* bulkIds(c: OpContext, input: BulkInput): Op<string[]> {
  if ('ids' in input) return input.ids;
  return (yield* filterMatches(c, input.filter)).map((job) => job.id);
}

/** Every job a filter matches, oldest first, read a page of batchSize at a time. */
function* filterMatches(c: OpContext, filter: FilterInput): Op<Job[]> {
  const jobs: Job[] = [];
  let after: { id: string; runAt: number } | undefined;
  for (;;) {
    const page = yield* sql('jobList', { ...filter, order: 'oldest', limit: c.policy.batchSize, after, now: c.now() });
    jobs.push(...page);
    const last = page[page.length - 1];
    if (page.length < c.policy.batchSize || !last) return jobs;
    after = { id: last.id, runAt: last.runAt };
  }
}

/**
 * What a bulk action would do, done nothing: how many of the jobs it names are in a state the
 * action applies in (the transitions table's), and in how many queues they are. A job another
 * rule refuses (a delete of one that unfinished jobs depend on) is counted, and refused when the
 * action is taken.
 */
export function* bulkPreview(c: OpContext, input: BulkInput, action: JobAction): Op<BulkResult> {
  const jobs: Job[] = [];
  if ('ids' in input) {
    for (const id of input.ids) {
      const job = yield* sql('jobGet', id);
      if (job) jobs.push(job);
    }
  } else {
    jobs.push(...(yield* filterMatches(c, input.filter)));
  }
  const applies = jobs.filter((job) => allows(action, job.state));
  return { count: applies.length, errors: [], queues: new Set(applies.map((job) => job.queue)).size };
}

/** What one transaction of a bulk action did: its count and refusals, and what each action returned. */
export interface Applied<T> extends BulkResult {
  values: T[];
}

/**
 * Applies `action` to each id inside the caller's transaction, each in a savepoint: a refused
 * one (SpoolError) undoes only itself and is collected, not thrown; any other error ends the
 * transaction.
 */
export function* applyEach<T>(ids: readonly string[], action: (id: string) => Op<T>): Op<Applied<T>> {
  const applied: Applied<T> = { count: 0, errors: [], values: [] };
  for (const id of ids) {
    const settled = yield* savepoint(action(id));
    if (settled.ok) {
      applied.count += 1;
      applied.values.push(settled.value);
    } else if (settled.error instanceof SpoolError) {
      applied.errors.push({ id, code: settled.error.code, message: settled.error.message });
    } else {
      throw settled.error;
    }
  }
  return applied;
}
