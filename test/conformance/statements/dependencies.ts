/**
 * Statement-level conformance of dependencies between jobs (daemon/storage/statements/
 * dependencies.ts): the edges, the counts on the job rows and the blocked jobs' two ways out,
 * each statement called raw with what it returns and what a later read sees checked on every
 * store alike.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { PLAIN_JOB_INSERT, type JobInsert } from '../../../daemon/storage/statements/jobs';
import { assertCountersAgree, enqueueInput, statementStore, type StatementStoreFactory } from './harness';

export function defineDependencyStatements(factory: StatementStoreFactory): void {
  describe('statements: dependencies between jobs', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('counts the dependencies of a held job down without queueing it, and cancels it as a blocked one', async () => {
      const s = store();
      const now = s.clock.ms;
      const row = (id: string): JobInsert => ({
        id, queue: 'st-deps-held', kind: 'work', payload: '{}', priority: 0, weight: 1, runAt: now, maxAttempts: 3, backoffStrategy: 'fixed',
        backoffBaseMs: 1000, backoffCapMs: 1000, backoffJitter: 0, timeoutMs: 30_000, idempotencyKey: null, tags: '[]', context: null,
        ...PLAIN_JOB_INSERT, state: 'blocked', dependsOn: 2, waitingFor: 2, step: null, workflowRunId: null, now,
      });
      await s.enqueue(enqueueInput('st-deps-held')); // makes the queue
      const heldId = '01900000-0000-7000-8000-0000000000d1';
      const otherId = '01900000-0000-7000-8000-0000000000d2';
      const result = await s.run(function* () {
        yield* sql('jobInsertMany', [row(heldId), row(otherId)]);
        yield* sql('jobSetHeld', { id: heldId, from: 'blocked', to: 'held', now: now + 1 });
        yield* sql('jobSetHeld', { id: otherId, from: 'blocked', to: 'held', now: now + 1 });
        const one = yield* sql('jobDependenciesMet', { counts: [{ id: heldId, n: 1 }], now: now + 2 });
        const last = yield* sql('jobDependenciesMet', { counts: [{ id: heldId, n: 1 }], now: now + 3 });
        const cancelled = yield* sql('jobCancelBlocked', { ids: [otherId], reason: 'dependency failed', now: now + 4 });
        return { one, last, cancelled };
      });
      assert.deepEqual(result.one.map((j) => [j.state, j.waitingFor]), [['held', 1]]);
      assert.deepEqual(result.last.map((j) => [j.state, j.waitingFor]), [['held', 0]], 'its last dependency met: still held, until a user releases it');
      assert.deepEqual(result.cancelled.map((j) => [j.id, j.state, j.lastError]), [[otherId, 'cancelled', 'dependency failed']]);
    });

    it('adds dependents, inserts and resolves edges, lowers waiting counts to queued, cancels blocked jobs and reopens edges', async () => {
      const s = store();
      const now = s.clock.ms;
      const a = (await s.enqueue(enqueueInput('st-deps'))).job;
      const b = (await s.enqueue(enqueueInput('st-deps'))).job;
      const row = (id: string, waitingFor: number): JobInsert => ({
        id, queue: 'st-deps', kind: 'work', payload: '{}', priority: 0, weight: 1, runAt: now, maxAttempts: 3, backoffStrategy: 'fixed',
        backoffBaseMs: 1000, backoffCapMs: 1000, backoffJitter: 0, timeoutMs: 30_000, idempotencyKey: null, tags: '[]', context: null,
        ...PLAIN_JOB_INSERT, state: 'blocked', dependsOn: 2, waitingFor, step: 'test', workflowRunId: null, now,
      });
      const childId = '01900000-0000-7000-8000-0000000000c1';
      const otherId = '01900000-0000-7000-8000-0000000000c2';
      const missing = '01900000-0000-7000-8000-00000000dead';

      const made = await s.run(function* () {
        const states = yield* sql('jobAddDependents', { counts: [{ id: a.id, n: 2 }, { id: b.id, n: 1 }, { id: missing, n: 1 }], now: now + 1 });
        const child = yield* sql('jobInsert', row(childId, 2));
        const other = yield* sql('jobInsert', row(otherId, 1));
        yield* sql('dependencyInsertMany', [
          { jobId: childId, dependsOnId: a.id, on: 'succeeded', resolved: false },
          { jobId: childId, dependsOnId: b.id, on: 'failed', resolved: false },
          { jobId: otherId, dependsOnId: a.id, on: 'finished', resolved: false },
          { jobId: otherId, dependsOnId: b.id, on: 'finished', resolved: true },
        ]);
        yield* sql('dependencyInsertMany', []);
        return { states, child, other, parent: yield* sql('jobGet', a.id) };
      });
      assert.deepEqual(
        made.states.sort((x, y) => (x.id < y.id ? -1 : 1)),
        [
          { id: a.id, state: 'queued' },
          { id: b.id, state: 'queued' },
        ],
        'a job that does not exist is missing from the answer',
      );
      assert.equal(made.parent?.dependents, 2);
      assert.equal(made.child?.state, 'blocked');
      assert.equal(made.child?.step, 'test');

      const seen = await s.read(function* () {
        return {
          of: yield* sql('dependenciesOf', [childId, otherId]),
          dependents: yield* sql('dependentsOf', { id: a.id, limit: 10 }),
          firstDependent: yield* sql('dependentsOf', { id: a.id, limit: 1 }),
          unfinished: yield* sql('dependentsUnfinished', a.id),
          none: yield* sql('dependentsUnfinished', childId),
        };
      });
      assert.deepEqual(
        seen.of.map((d) => [d.jobId, d.id, d.on, d.resolved, d.state]),
        [
          [childId, a.id, 'succeeded', false, 'queued'],
          [childId, b.id, 'failed', false, 'queued'],
          [otherId, a.id, 'finished', false, 'queued'],
          [otherId, b.id, 'finished', true, 'queued'],
        ],
      );
      assert.deepEqual(
        seen.dependents.map((d) => [d.id, d.on, d.state, d.step]),
        [
          [childId, 'succeeded', 'blocked', 'test'],
          [otherId, 'finished', 'blocked', 'test'],
        ],
      );
      assert.equal(seen.firstDependent.length, 1);
      assert.equal(seen.unfinished, true);
      assert.equal(seen.none, false);

      const ended = await s.run(function* () {
        const resolved = yield* sql('dependencyResolve', [a.id]);
        const again = yield* sql('dependencyResolve', [a.id]);
        const none = yield* sql('dependencyResolve', []);
        const met = yield* sql('jobDependenciesMet', { counts: [{ id: childId, n: 1 }, { id: otherId, n: 1 }], now: now + 2 });
        const byB = yield* sql('dependencyResolve', [b.id]);
        const cancelled = yield* sql('jobCancelBlocked', { ids: [childId, otherId], reason: 'dependency failed', now: now + 3 });
        const metAfter = yield* sql('jobDependenciesMet', { counts: [{ id: childId, n: 1 }], now: now + 4 });
        return { resolved, again, none, met, byB, cancelled, metAfter };
      });
      assert.deepEqual(
        ended.resolved.sort((x, y) => (x.jobId < y.jobId ? -1 : 1)),
        [
          { dependsOnId: a.id, jobId: childId, on: 'succeeded' },
          { dependsOnId: a.id, jobId: otherId, on: 'finished' },
        ],
      );
      assert.deepEqual(ended.again, [], 'a resolved edge is not counted twice');
      assert.deepEqual(ended.none, []);
      const met = new Map(ended.met.map((job) => [job.id, job]));
      assert.equal(met.get(childId)?.state, 'blocked');
      assert.equal(met.get(childId)?.waitingFor, 1);
      assert.equal(met.get(otherId)?.state, 'queued', 'the last dependency met queues the job in the same statement');
      assert.equal(met.get(otherId)?.waitingFor, 0);
      assert.deepEqual(ended.byB, [{ dependsOnId: b.id, jobId: childId, on: 'failed' }], 'only unresolved edges come back');
      assert.deepEqual(
        ended.cancelled.map((job) => [job.id, job.state, job.lastError, job.finishedAt]),
        [[childId, 'cancelled', 'dependency failed', now + 3]],
        'only a blocked job is cancelled',
      );
      assert.deepEqual(ended.metAfter, [], 'a job no longer blocked is left alone');

      const reopened = await s.run(function* () {
        const forRetry = yield* sql('dependenciesForRetry', childId);
        yield* sql('dependencyReopen', { jobId: childId, waitingFor: [b.id] });
        return { forRetry, after: yield* sql('dependenciesOf', [childId]), unfinished: yield* sql('dependentsUnfinished', a.id) };
      });
      assert.deepEqual(
        reopened.forRetry.map((d) => [d.id, d.resolved]),
        [
          [a.id, true],
          [b.id, true],
        ],
      );
      assert.deepEqual(
        reopened.after.map((d) => [d.id, d.resolved]),
        [
          [a.id, true],
          [b.id, false],
        ],
      );
      assert.equal(reopened.unfinished, true, 'the queued job still depends on it');
    });
  });
}
