/**
 * Statement-level conformance of single jobs, attempt endings, output and the run history: each
 * statement of daemon/storage/statements/{jobs,attempts,output,runs}.ts called raw, with what it
 * returns and what a later read sees checked on every store alike, the refusals included (a
 * worker without the lease changes nothing; a missing row gives undefined or false).
 */
import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { assertCountersAgree, concurrently, enqueueInput, runningJob, statementStore, type StatementStoreFactory } from './harness';

export function defineJobStatements(factory: StatementStoreFactory): void {
  describe('statements: jobs, attempts, output, runs', () => {
    const store = statementStore(factory);
    let now = 0;
    before(() => {
      now = store().clock.ms;
    });
    // Whatever a test's statements did to jobs, the counters followed.
    afterEach(() => assertCountersAgree(store()));

    it('reads a job, and lets only the worker holding the lease heartbeat, report progress or checkpoint', async () => {
      const s = store();
      const job = await runningJob(s, 'st-jobs-worker', 'w1');
      const lease = job.leaseExpiresAt ?? assert.fail('a claimed job has a lease');

      const reads = await s.run(function* () {
        return {
          get: yield* sql('jobGet', job.id),
          forUpdate: yield* sql('jobGetForUpdate', job.id),
          missing: yield* sql('jobGet', 'no-such-job'),
          missingForUpdate: yield* sql('jobGetForUpdate', 'no-such-job'),
        };
      });
      assert.deepEqual(reads.get, job, 'jobGet gives the job as the claim left it');
      // SQLite reads without a row lock (BEGIN IMMEDIATE holds the file's write lock); the row is the same.
      assert.deepEqual(reads.forUpdate, job);
      assert.equal(reads.missing, undefined);
      assert.equal(reads.missingForUpdate, undefined);

      const worker = await s.run(function* () {
        return {
          longer: yield* sql('jobHeartbeat', { id: job.id, workerId: 'w1', lease: lease + 1000, now: now + 1 }),
          // A shorter lease keeps the stored one: a late heartbeat never shortens a lease.
          shorter: yield* sql('jobHeartbeat', { id: job.id, workerId: 'w1', lease: lease - 1000, now: now + 2 }),
          otherHeartbeat: yield* sql('jobHeartbeat', { id: job.id, workerId: 'w2', lease: lease + 5000, now: now + 3 }),
          progress: yield* sql('jobSetProgress', { id: job.id, workerId: 'w1', percent: 40, message: 'forty', now: now + 4 }),
          otherProgress: yield* sql('jobSetProgress', { id: job.id, workerId: 'w2', percent: 90, message: null, now: now + 5 }),
          checkpoint: yield* sql('jobSetCheckpoint', { id: job.id, workerId: 'w1', checkpoint: '{"step":2}', now: now + 6 }),
          otherCheckpoint: yield* sql('jobSetCheckpoint', { id: job.id, workerId: 'w2', checkpoint: '{"step":9}', now: now + 7 }),
          missingHeartbeat: yield* sql('jobHeartbeat', { id: 'no-such-job', workerId: 'w1', lease: lease + 1000, now: now + 8 }),
          missingCheckpoint: yield* sql('jobSetCheckpoint', { id: 'no-such-job', workerId: 'w1', checkpoint: '{}', now: now + 8 }),
        };
      });
      assert.deepEqual(worker.longer, { leaseExpiresAt: lease + 1000, cancelRequested: false, paused: false });
      assert.deepEqual(worker.shorter, { leaseExpiresAt: lease + 1000, cancelRequested: false, paused: false });
      assert.equal(worker.otherHeartbeat, undefined);
      assert.equal(worker.progress?.progress, 40);
      assert.equal(worker.progress?.progressMessage, 'forty');
      assert.equal(worker.progress?.updatedAt, now + 4);
      assert.equal(worker.otherProgress, undefined);
      assert.equal(worker.checkpoint, true);
      assert.equal(worker.otherCheckpoint, false);
      assert.equal(worker.missingHeartbeat, undefined);
      assert.equal(worker.missingCheckpoint, false);

      const after = await s.read(function* () {
        return yield* sql('jobGet', job.id);
      });
      assert.equal(after?.leaseExpiresAt, lease + 1000);
      assert.equal(after?.progress, 40, 'the other worker changed nothing');
      assert.deepEqual(after?.checkpoint, { step: 2 });
      assert.equal(after?.updatedAt, now + 6, 'the refused calls did not touch the row');

      const cancel = await s.run(function* () {
        const requested = yield* sql('jobRequestCancel', { id: job.id, now: now + 10 });
        const heartbeat = yield* sql('jobHeartbeat', { id: job.id, workerId: 'w1', lease: lease + 2000, now: now + 11 });
        const missing = yield* sql('jobRequestCancel', { id: 'no-such-job', now: now + 10 });
        return { requested, heartbeat, missing };
      });
      assert.equal(cancel.requested?.cancelRequested, true);
      assert.equal(cancel.requested?.state, 'running');
      assert.deepEqual(cancel.heartbeat, { leaseExpiresAt: lease + 2000, cancelRequested: true, paused: false }, 'the worker hears of the cancel at its heartbeat');
      assert.equal(cancel.missing, undefined);
    });

    it('pauses a running job once, freezes its lease from the reaper, and resumes it with the lease moved on by the paused time', async () => {
      const s = store();
      const job = await runningJob(s, 'st-jobs-pause', 'w1');
      const lease = job.leaseExpiresAt ?? assert.fail('a claimed job has a lease');
      const paused = await s.run(function* () {
        return {
          paused: yield* sql('jobPause', { id: job.id, now: now + 10 }),
          again: yield* sql('jobPause', { id: job.id, now: now + 11 }),
          missing: yield* sql('jobPause', { id: 'no-such-job', now: now + 11 }),
          heartbeat: yield* sql('jobHeartbeat', { id: job.id, workerId: 'w1', lease, now: now + 12 }),
          reaped: yield* sql('jobExpiredLeases', { now: lease + 60_000, limit: 100 }),
        };
      });
      assert.deepEqual([paused.paused?.state, paused.paused?.pausedAt, paused.paused?.updatedAt], ['running', now + 10, now + 10]);
      assert.equal(paused.again, undefined, 'a paused job is not paused again');
      assert.equal(paused.missing, undefined);
      assert.equal(paused.heartbeat?.paused, true);
      assert.ok(!paused.reaped.some((j) => j.id === job.id), 'a paused job is not among the expired leases');

      const resumed = await s.run(function* () {
        return {
          resumed: yield* sql('jobResume', { id: job.id, now: now + 5010 }),
          again: yield* sql('jobResume', { id: job.id, now: now + 5011 }),
          reaped: yield* sql('jobExpiredLeases', { now: lease + 5000, limit: 100 }),
        };
      });
      assert.equal(resumed.resumed?.pausedAt, null);
      assert.equal(resumed.resumed?.leaseExpiresAt, lease + 5000, 'the lease moved on by the 5 s it was paused');
      assert.equal(resumed.again, undefined, 'a job that is not paused is not resumed');
      assert.ok(resumed.reaped.some((j) => j.id === job.id), 'once resumed, its lease runs out as any other');
    });

    it("completes, keeps the completed attempt's history, retries, updates, cancels and deletes a job", async () => {
      const s = store();
      const job = await runningJob(s, 'st-jobs-life', 'w1');
      const running = await runningJob(s, 'st-jobs-life', 'w1');

      const done = await s.run(function* () {
        return {
          other: yield* sql('jobComplete', { id: job.id, workerId: 'w2', result: '{"no":1}', now: now + 1 }),
          mine: yield* sql('jobComplete', { id: job.id, workerId: 'w1', result: '{"ok":1}', now: now + 2 }),
          again: yield* sql('jobComplete', { id: job.id, workerId: 'w1', result: null, now: now + 3 }),
          missing: yield* sql('jobComplete', { id: 'no-such-job', workerId: 'w1', result: null, now: now + 3 }),
          deleteRunning: yield* sql('jobDelete', running.id),
          retryRunning: yield* sql('jobRetry', { id: running.id, from: 'running', now: now + 3, waitingFor: 0 }),
        };
      });
      assert.equal(done.other, undefined);
      assert.equal(done.mine?.state, 'completed');
      assert.deepEqual(done.mine?.result, { ok: 1 });
      assert.equal(done.mine?.workerId, 'w1', 'the job still says who ran it');
      assert.equal(done.mine?.leaseExpiresAt, null);
      assert.equal(done.mine?.finishedAt, now + 2);
      assert.equal(done.again, undefined, 'a completed job is no longer held');
      assert.equal(done.missing, undefined);
      assert.equal(done.deleteRunning, false, 'a running job is never deleted');
      assert.equal(done.retryRunning, undefined, 'a running job has not finished');

      const history = await s.read(function* () {
        return { job: yield* sql('jobGet', job.id), runs: yield* sql('runsOfJob', job.id), none: yield* sql('runsOfJob', 'no-such-job') };
      });
      assert.deepEqual(history.job, done.mine, 'jobComplete gives the job as stored');
      assert.equal(history.runs.length, 1, 'the completed attempt is in the history, from the job row');
      assert.equal(history.runs[0]?.outcome, 'completed');
      assert.equal(history.runs[0]?.workerId, 'w1');
      assert.equal(history.runs[0]?.finishedAt, now + 2);
      assert.deepEqual(history.none, []);

      const retried = await s.run(function* () {
        yield* sql('runKeepCompleted', job.id);
        // Not completed: nothing to keep.
        yield* sql('runKeepCompleted', running.id);
        const retry = yield* sql('jobRetry', { id: job.id, from: 'completed', now: now + 5, waitingFor: 0 });
        const twice = yield* sql('jobRetry', { id: job.id, from: 'queued', now: now + 5, waitingFor: 0 });
        return { retry, twice, runs: yield* sql('runsOfJob', job.id), runningRuns: yield* sql('runsOfJob', running.id) };
      });
      assert.equal(retried.retry?.state, 'queued');
      assert.equal(retried.retry?.attempts, 0);
      assert.equal(retried.retry?.runAt, now + 5);
      assert.equal(retried.retry?.workerId, null);
      assert.equal(retried.retry?.result, null);
      assert.equal(retried.twice, undefined, 'a queued job has not finished');
      assert.equal(retried.runs.length, 1, 'the kept row is the completed attempt, once');
      assert.equal(retried.runs[0]?.outcome, 'completed');
      assert.equal(retried.runs[0]?.workerId, 'w1');
      assert.deepEqual(
        retried.runningRuns.map((r) => r.outcome),
        ['running'],
        'a running attempt shows from its job row',
      );

      const changed = await s.run(function* () {
        const update = yield* sql('jobUpdate', { id: job.id, priority: 7, runAt: null, payload: '{"a":1}', maxAttempts: 9, tags: '["x","y"]', weight: 3, timeoutMs: null, now: now + 6 });
        const keep = yield* sql('jobUpdate', { id: job.id, priority: null, runAt: now + 60_000, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now: now + 7 });
        const cancelled = yield* sql('jobCancelWaiting', { id: job.id, from: 'queued', now: now + 8 });
        return {
          update,
          keep,
          cancelled,
          cancelAgain: yield* sql('jobCancelWaiting', { id: job.id, from: 'cancelled', now: now + 9 }),
          updateCancelled: yield* sql('jobUpdate', { id: job.id, priority: 1, runAt: null, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now: now + 9 }),
          cancelRunning: yield* sql('jobCancelWaiting', { id: running.id, from: 'running', now: now + 9 }),
          missingUpdate: yield* sql('jobUpdate', { id: 'no-such-job', priority: 1, runAt: null, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now: now + 9 }),
        };
      });
      assert.equal(changed.update?.priority, 7);
      assert.deepEqual(changed.update?.payload, { a: 1 });
      assert.equal(changed.update?.maxAttempts, 9);
      assert.deepEqual(changed.update?.tags, ['x', 'y']);
      assert.equal(changed.update?.weight, 3);
      assert.equal(changed.update?.runAt, now + 5, 'a null run time keeps the stored one');
      assert.equal(changed.keep?.priority, 7, 'null keeps every other value');
      assert.equal(changed.keep?.weight, 3);
      assert.deepEqual(changed.keep?.tags, ['x', 'y']);
      assert.equal(changed.keep?.runAt, now + 60_000);
      assert.equal(changed.cancelled?.state, 'cancelled');
      assert.equal(changed.cancelled?.finishedAt, now + 8);
      assert.equal(changed.cancelAgain, undefined);
      assert.equal(changed.updateCancelled, undefined, 'only a waiting job is changed');
      assert.equal(changed.cancelRunning, undefined, 'a running job is not waiting');
      assert.equal(changed.missingUpdate, undefined);

      // Read-modify-writes under jobGetForUpdate do not lose one another's writes.
      const { job: waiting } = await s.enqueue(enqueueInput('st-jobs-life', { maxAttempts: 1 }));
      const increments = await concurrently(s, 4, function* () {
        const locked = (yield* sql('jobGetForUpdate', waiting.id)) ?? assert.fail('the job is there');
        yield* sql('jobUpdate', { id: waiting.id, priority: null, runAt: null, payload: null, maxAttempts: locked.maxAttempts + 1, tags: null, weight: null, timeoutMs: null, now: now + 10 });
      });
      const incremented = await s.read(function* () {
        return yield* sql('jobGet', waiting.id);
      });
      assert.equal(incremented?.maxAttempts, 1 + increments);

      const deleted = await s.run(function* () {
        return { first: yield* sql('jobDelete', job.id), second: yield* sql('jobDelete', job.id), gone: yield* sql('jobGet', job.id), runs: yield* sql('runsOfJob', job.id) };
      });
      assert.deepEqual(deleted, { first: true, second: false, gone: undefined, runs: [] }, 'its history goes with it');
    });

    it("records a job's changes that leave no run, reads them back oldest first, and deletes them with the job", async () => {
      const s = store();
      const { job } = await s.enqueue(enqueueInput('st-job-events'));
      const { job: other } = await s.enqueue(enqueueInput('st-job-events'));
      const read = await s.run(function* () {
        yield* sql('jobEventAdd', { jobId: job.id, at: now + 2, state: 'held', cause: 'hold', who: 'alice', attempt: null, detail: 'was queued' });
        yield* sql('jobEventAdd', { jobId: job.id, at: now + 1, state: 'queued', cause: 'edit', who: 'token ci', attempt: 2, detail: 'priority' });
        yield* sql('jobEventAdd', { jobId: other.id, at: now + 3, state: 'queued', cause: 'run now', who: 'daemon', attempt: null, detail: null });
        return { mine: yield* sql('jobEventsOf', job.id), none: yield* sql('jobEventsOf', 'no-such-job') };
      });
      assert.deepEqual(
        read.mine,
        [
          { at: now + 2, state: 'held', cause: 'hold', who: 'alice', attempt: null, detail: 'was queued' },
          { at: now + 1, state: 'queued', cause: 'edit', who: 'token ci', attempt: 2, detail: 'priority' },
        ],
        'in the order they were recorded, whatever their times',
      );
      assert.deepEqual(read.none, []);
      const gone = await s.run(function* () {
        yield* sql('jobDelete', job.id);
        return { mine: yield* sql('jobEventsOf', job.id), other: yield* sql('jobEventsOf', other.id) };
      });
      assert.deepEqual(gone.mine, [], "a deleted job's events go with it");
      assert.equal(gone.other.length, 1, 'another job keeps its own');
    });

    it('holds a waiting job and releases it to the state given, only from the state it was read in; a held job can be updated and cancelled', async () => {
      const s = store();
      const { job } = await s.enqueue(enqueueInput('st-jobs-held'));
      const moves = await s.run(function* () {
        const held = yield* sql('jobSetHeld', { id: job.id, from: 'queued', to: 'held', now: now + 1 });
        return {
          held,
          wrongFrom: yield* sql('jobSetHeld', { id: job.id, from: 'queued', to: 'held', now: now + 2 }),
          updated: yield* sql('jobUpdate', { id: job.id, priority: 4, runAt: null, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: 45_000, now: now + 3 }),
          released: yield* sql('jobSetHeld', { id: job.id, from: 'held', to: 'retrying', now: now + 4 }),
          again: yield* sql('jobSetHeld', { id: job.id, from: 'retrying', to: 'held', now: now + 5 }),
          missing: yield* sql('jobSetHeld', { id: 'no-such-job', from: 'queued', to: 'held', now: now + 5 }),
        };
      });
      assert.deepEqual([moves.held?.state, moves.held?.updatedAt], ['held', now + 1]);
      assert.equal(moves.wrongFrom, undefined, 'a job not in `from` is left alone');
      assert.deepEqual([moves.updated?.state, moves.updated?.priority, moves.updated?.timeoutMs], ['held', 4, 45_000], 'a held job is updated, its timeout too');
      assert.equal(moves.released?.state, 'retrying');
      assert.equal(moves.again?.state, 'held');
      assert.equal(moves.missing, undefined);
      const cancelled = await s.run(function* () {
        return yield* sql('jobCancelWaiting', { id: job.id, from: 'held', now: now + 6 });
      });
      assert.equal(cancelled?.state, 'cancelled', 'a held job is cancelled as a waiting one');
    });

    it('completes a batch for the lease holder only, each completed job read back in part', async () => {
      const s = store();
      const queue = 'st-jobs-batch';
      const a = await runningJob(s, queue, 'batch-w1');
      const b = await runningJob(s, queue, 'batch-w2');
      const done = await s.run(function* () {
        const completed = yield* sql('jobCompleteBatch', {
          items: [
            { id: a.id, workerId: 'batch-w1', result: '{"n":1}' },
            { id: b.id, workerId: 'batch-w1', result: null },
            { id: 'no-such-job', workerId: 'batch-w1', result: null },
          ],
          now: now + 3,
        });
        return { completed, empty: yield* sql('jobCompleteBatch', { items: [], now: now + 3 }), a: yield* sql('jobGet', a.id), b: yield* sql('jobGet', b.id) };
      });
      assert.equal(done.completed.length, 1, 'only the item whose worker holds the lease');
      const stored = done.a ?? assert.fail('job a is there');
      assert.deepEqual(done.completed[0], {
        id: a.id,
        queue,
        kind: stored.kind,
        state: 'completed',
        attempts: stored.attempts,
        maxAttempts: stored.maxAttempts,
        progress: stored.progress,
        runAt: stored.runAt,
        cancelRequested: false,
        workflowRunId: null,
        pausedAt: null,
        createdAt: stored.createdAt,
        updatedAt: now + 3,
        startedAt: stored.startedAt,
        weight: stored.weight,
        dependents: 0,
      });
      assert.deepEqual([stored.state, stored.result, stored.finishedAt, stored.leaseExpiresAt], ['completed', { n: 1 }, now + 3, null]);
      assert.equal(done.b?.state, 'running', 'another worker holds b');
      assert.deepEqual(done.empty, []);
    });

    // Workers of this test's own: jobRunningIds and the others look across every queue.
    it('ends attempts for the lease holder only, completes many, interrupts, and finds expired leases and running jobs', async () => {
      const s = store();
      const queue = 'st-jobs-end';
      const a = await runningJob(s, queue, 'end-w1');
      const b = await runningJob(s, queue, 'end-w1');
      const c = await runningJob(s, queue, 'end-w1');
      const d = await runningJob(s, queue, 'end-w3', { timeoutMs: 1_000 });
      const e = await runningJob(s, queue, 'end-w3', { timeoutMs: 2_000 });

      const ended = await s.run(function* () {
        const end = { runAt: now + 5_000, lastError: 'boom', result: null, finishedAt: null, now: now + 1 };
        const locked = (yield* sql('jobGetForUpdate', a.id)) ?? assert.fail('job a is there');
        const other = yield* sql('jobEndAttempt', locked, { ...end, id: a.id, workerId: 'end-w2', state: 'retrying' });
        yield* sql('runRecord', { jobId: a.id, outcome: 'failed', error: 'boom', stack: 'at line 1', exitCode: 2, httpStatus: null, now: now + 1 });
        const mine = yield* sql('jobEndAttempt', locked, { ...end, id: a.id, workerId: 'end-w1', state: 'retrying' });
        // The attempt ended: recording it again finds no running job and writes nothing.
        yield* sql('runRecord', { jobId: a.id, outcome: 'lease_expired', error: 'late', stack: null, exitCode: null, httpStatus: null, now: now + 2 });
        return { other, mine, stored: yield* sql('jobGet', a.id), runs: yield* sql('runsOfJob', a.id) };
      });
      assert.equal(ended.other, undefined);
      assert.equal(ended.mine?.state, 'retrying');
      assert.equal(ended.mine?.workerId, 'end-w1', 'worker_id stays');
      assert.equal(ended.mine?.leaseExpiresAt, null);
      // SQLite builds the job it returns from the one passed in; PostgreSQL reads it back: the two must agree.
      assert.deepEqual(ended.mine, ended.stored, 'jobEndAttempt gives the job as stored');
      assert.deepEqual(
        ended.runs.map((r) => ({ outcome: r.outcome, error: r.error, stack: r.stack, exitCode: r.exitCode, workerId: r.workerId, finishedAt: r.finishedAt })),
        [{ outcome: 'failed', error: 'boom', stack: 'at line 1', exitCode: 2, workerId: 'end-w1', finishedAt: now + 1 }],
      );

      const many = await s.run(function* () {
        const completed = yield* sql('jobCompleteMany', {
          items: [
            { id: b.id, workerId: 'end-w1', result: '{"n":2}' },
            { id: c.id, workerId: 'end-w2', result: null },
            { id: 'no-such-job', workerId: 'end-w1', result: null },
          ],
          now: now + 3,
        });
        return { completed, empty: yield* sql('jobCompleteMany', { items: [], now: now + 3 }), b: yield* sql('jobGet', b.id) };
      });
      assert.deepEqual(
        many.completed.map((j) => j.id),
        [b.id],
        'only the item whose worker holds the lease',
      );
      assert.deepEqual(many.completed[0], many.b);
      assert.deepEqual(many.b?.result, { n: 2 });
      assert.deepEqual(many.empty, []);

      const running = await s.run(function* () {
        return {
          ids: yield* sql('jobRunningIds', ['end-w1', 'end-w3', 'nobody']),
          locked: yield* sql('jobRunningForUpdate', ['end-w1', 'end-w3']),
          none: yield* sql('jobRunningIds', ['nobody']),
          noneLocked: yield* sql('jobRunningForUpdate', []),
        };
      });
      assert.deepEqual(running.ids, [c.id, d.id, e.id].sort(), 'in id order');
      // PostgreSQL gives them in id order (the order it locks them in); SQLite in no particular order.
      assert.deepEqual(running.locked.map((j) => j.id).sort(), [c.id, d.id, e.id].sort());
      assert.deepEqual(running.none, []);
      assert.deepEqual(running.noneLocked, []);

      const interrupted = await s.run(function* () {
        return {
          c: yield* sql('jobInterrupt', { id: c.id, now: now + 4, runAt: now + 4, reason: 'the daemon stopped' }),
          again: yield* sql('jobInterrupt', { id: c.id, now: now + 4, runAt: now + 4, reason: 'again' }),
          missing: yield* sql('jobInterrupt', { id: 'no-such-job', now: now + 4, runAt: now + 4, reason: 'none' }),
        };
      });
      assert.equal(interrupted.c?.state, 'retrying');
      assert.equal(interrupted.c?.attempts, c.attempts - 1, 'the attempt is given back');
      assert.equal(interrupted.c?.runAt, now + 4);
      assert.equal(interrupted.c?.lastError, 'the daemon stopped');
      assert.equal(interrupted.c?.leaseExpiresAt, null);
      assert.equal(interrupted.again, undefined);
      assert.equal(interrupted.missing, undefined);

      const dLease = d.leaseExpiresAt ?? assert.fail('d has a lease');
      const eLease = e.leaseExpiresAt ?? assert.fail('e has a lease');
      assert.ok(dLease < eLease);
      const expired = await s.run(function* () {
        const mine = (jobs: { id: string; queue: string }[]): string[] => jobs.filter((j) => j.queue === queue).map((j) => j.id);
        return {
          before: mine(yield* sql('jobExpiredLeases', { now: dLease - 1, limit: 10 })),
          atD: mine(yield* sql('jobExpiredLeases', { now: dLease, limit: 10 })),
          both: mine(yield* sql('jobExpiredLeases', { now: eLease, limit: 10 })),
          first: mine(yield* sql('jobExpiredLeases', { now: eLease, limit: 1 })),
        };
      });
      assert.deepEqual(expired, { before: [], atD: [d.id], both: [d.id, e.id], first: [d.id] }, 'soonest expired first, up to the limit');

      // The reaper's endings: one attempt left over (dead), one whose cancel was asked (cancelled).
      const reaped = await s.run(function* () {
        const [dRow, eRow] = yield* sql('jobRunningForUpdate', ['end-w3']);
        const byId = new Map([dRow, eRow].map((j) => [j?.id, j]));
        const endings = [];
        for (const [job, state] of [[byId.get(d.id), 'dead'], [byId.get(e.id), 'cancelled']] as const) {
          if (job === undefined) return assert.fail('both jobs run under end-w3');
          yield* sql('runRecord', { jobId: job.id, outcome: 'lease_expired', error: 'lease expired', stack: null, exitCode: null, httpStatus: 504, now: eLease });
          endings.push(yield* sql('jobEndAttempt', job, { id: job.id, workerId: 'end-w3', state, runAt: job.runAt, lastError: 'lease expired', result: null, finishedAt: eLease, now: eLease }));
        }
        return { endings, stored: [yield* sql('jobGet', d.id), yield* sql('jobGet', e.id)], runs: yield* sql('runsOfJob', e.id), counts: yield* sql('queueCounts', queue) };
      });
      assert.deepEqual(
        reaped.endings.map((j) => [j?.state, j?.finishedAt]),
        [
          ['dead', eLease],
          ['cancelled', eLease],
        ],
      );
      assert.deepEqual(reaped.endings, reaped.stored);
      assert.deepEqual(
        reaped.runs.map((r) => [r.outcome, r.httpStatus, r.finishedAt]),
        [['lease_expired', 504, eLease]],
      );
      assert.deepEqual(reaped.counts, { blocked: 0, queued: 0, running: 0, retrying: 2, held: 0, completed: 1, dead: 1, cancelled: 1 }, 'counted inside the transaction that moved them');
    });

    it('appends output under the cap with one marker, and pages and tails it', async () => {
      const s = store();
      const job = await runningJob(s, 'st-jobs-output', 'w1');
      const append = (lines: string[], at: number, stream: 'stdout' | 'stderr' = 'stdout') =>
        s.run(function* () {
          return yield* sql('outputAppend', { jobId: job.id, attempt: 1, stream, lines, now: at, cap: 4 });
        });
      const line = (seq: number, text: string, at: number, stream: 'stdout' | 'stderr' | 'marker' = 'stdout') => ({ seq, attempt: 1, run: 1, stream, text, at });

      assert.deepEqual(await append(['a', 'b', 'c'], now + 1), [line(1, 'a', now + 1), line(2, 'b', now + 1), line(3, 'c', now + 1)]);
      // Five lines past a cap of four: the oldest goes and the marker takes its seq.
      assert.deepEqual(await append(['d', 'e'], now + 2, 'stderr'), [line(1, '[1 older lines dropped]', now + 2, 'marker'), line(4, 'd', now + 2, 'stderr'), line(5, 'e', now + 2, 'stderr')]);
      // Again: the marker is rewritten with the seq of the newest line dropped and the total.
      assert.deepEqual(await append(['f'], now + 3), [line(2, '[2 older lines dropped]', now + 3, 'marker'), line(6, 'f', now + 3)]);
      // More lines at once than the cap: those already dropped are not reported.
      assert.deepEqual(await append(['g', 'h', 'i', 'j', 'k'], now + 4), [
        line(7, '[7 older lines dropped]', now + 4, 'marker'),
        line(8, 'h', now + 4),
        line(9, 'i', now + 4),
        line(10, 'j', now + 4),
        line(11, 'k', now + 4),
      ]);

      const read = await s.read(function* () {
        return {
          page: yield* sql('outputPage', { jobId: job.id, after: 0, limit: 100 }),
          later: yield* sql('outputPage', { jobId: job.id, after: 8, limit: 2 }),
          tail: yield* sql('outputTail', { jobId: job.id, last: 2 }),
          lastAt: yield* sql('outputLastAt', job.id),
          noneLastAt: yield* sql('outputLastAt', 'no-such-job'),
          nonePage: yield* sql('outputPage', { jobId: 'no-such-job', after: 0, limit: 10 }),
          noneTail: yield* sql('outputTail', { jobId: 'no-such-job', last: 10 }),
        };
      });
      assert.deepEqual(
        read.page.map((l) => [l.seq, l.stream, l.text]),
        [
          [7, 'marker', '[7 older lines dropped]'],
          [8, 'stdout', 'h'],
          [9, 'stdout', 'i'],
          [10, 'stdout', 'j'],
          [11, 'stdout', 'k'],
        ],
      );
      assert.deepEqual(read.page[1], line(8, 'h', now + 4));
      assert.deepEqual(read.later.map((l) => l.seq), [9, 10]);
      assert.deepEqual(read.tail.map((l) => l.seq), [10, 11], 'the newest lines, oldest first');
      assert.equal(read.lastAt, now + 4);
      assert.equal(read.noneLastAt, undefined);
      assert.deepEqual(read.nonePage, []);
      assert.deepEqual(read.noneTail, []);

      const gone = await s.run(function* () {
        return yield* sql('outputAppend', { jobId: 'no-such-job', attempt: 1, stream: 'stdout', lines: ['x'], now: now + 5, cap: 4 });
      });
      assert.deepEqual(gone, [], 'a job that is gone gets no lines');
    });
  });
}
