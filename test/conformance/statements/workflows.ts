/**
 * Statement-level conformance of workflows and workflow runs: the stored workflows (put,
 * rewrite, list, delete with their ownership record), a run's row and the counts its state is
 * decided from (ended, reopened), runs listed newest first with their filters, counts per job
 * state read from the jobs, a run's jobs in creation order, and the deletion of ended runs that
 * have no job left — called raw on every store alike.
 */
import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import { QUEUE_DEFAULTS } from '../../../daemon/engine/defaults';
import { sql } from '../../../daemon/storage/statements';
import type { JobInsert } from '../../../daemon/storage/statements/jobs';
import { assertCountersAgree, jobRow, statementStore, type StatementStoreFactory } from './harness';

const RUN_A = '00000000-0000-7000-8000-0000000f0001';
const RUN_B = '00000000-0000-7000-8000-0000000f0002';
const RUN_C = '00000000-0000-7000-8000-0000000f0003';

export function defineWorkflowStatements(factory: StatementStoreFactory): void {
  describe('statements: workflows and workflow runs', () => {
    const store = statementStore(factory);
    let now = 0;
    before(() => {
      now = store().clock.ms;
    });
    afterEach(() => assertCountersAgree(store()));

    const row = (id: string, queue: string, fields: Partial<JobInsert> = {}): JobInsert => jobRow(id, queue, now, fields);

    it('puts, rewrites, lists and deletes workflows; a delete takes the ownership record with it', async () => {
      const s = store();
      const got = await s.run(function* () {
        yield* sql('workflowPut', { name: 'st-wf-b', body: '{"steps":[]}', now });
        yield* sql('workflowPut', { name: 'st-wf-a', body: '{"v":1}', now });
        yield* sql('workflowPut', { name: 'st-wf-a', body: '{"v":2}', now: now + 5 });
        yield* sql('ownerPut', { type: 'workflow', name: 'st-wf-a', project: 'st-project', applied: '{"v":2}', now });
        const listed = (yield* sql('workflowList')).map((w) => w.name);
        const a = yield* sql('workflowGet', 'st-wf-a');
        const deleted = yield* sql('workflowDelete', 'st-wf-a');
        const again = yield* sql('workflowDelete', 'st-wf-a');
        const owners = (yield* sql('ownerList')).filter((o) => o.name === 'st-wf-a');
        return { listed, a, deleted, again, owners, gone: yield* sql('workflowGet', 'st-wf-a') };
      });
      assert.deepEqual(got.listed, ['st-wf-a', 'st-wf-b']);
      assert.deepEqual(got.a, { name: 'st-wf-a', body: '{"v":2}', createdAt: now, updatedAt: now + 5 });
      assert.equal(got.deleted, true);
      assert.equal(got.again, false);
      assert.deepEqual(got.owners, []);
      assert.equal(got.gone, undefined);
    });

    it("keeps a run's counts as its jobs end and reopen, and ends it by the rule: cancelled, else failed, else succeeded", async () => {
      const s = store();
      const got = await s.run(function* () {
        const insert = (id: string, workflow: string, total: number): ReturnType<typeof sql<'workflowRunInsert'>> =>
          sql('workflowRunInsert', { id, workflow, params: '{"v":"1"}', definition: '{"steps":[]}', source: 'user', total, unfinished: total, createdAt: now });
        yield* insert(RUN_A, 'st-flow', 3);
        yield* insert(RUN_B, 'st-flow', 1);
        yield* insert(RUN_C, 'st-other', 2);
        const inserted = yield* sql('workflowRunGet', RUN_A);
        const locked = yield* sql('workflowRunGetForUpdate', RUN_A);
        const first = yield* sql('workflowRunJobsEnded', { id: RUN_A, jobs: 2, dead: 1, cancelled: 0, now: now + 1 });
        const failed = yield* sql('workflowRunJobsEnded', { id: RUN_A, jobs: 1, dead: 0, cancelled: 0, now: now + 2 });
        const reopened = yield* sql('workflowRunJobsReopened', { id: RUN_A, jobs: 1, dead: 1, cancelled: 0, now: now + 3 });
        const succeeded = yield* sql('workflowRunJobsEnded', { id: RUN_A, jobs: 1, dead: 0, cancelled: 0, now: now + 4 });
        const cancelled = yield* sql('workflowRunJobsEnded', { id: RUN_B, jobs: 1, dead: 1, cancelled: 1, now: now + 5 });
        const missing = yield* sql('workflowRunJobsEnded', { id: '00000000-0000-7000-8000-0000000f00ff', jobs: 1, dead: 0, cancelled: 0, now });
        return { inserted, locked, first, failed, reopened, succeeded, cancelled, missing, none: yield* sql('workflowRunGet', '00000000-0000-7000-8000-0000000f00ff') };
      });
      assert.deepEqual(got.inserted, {
        id: RUN_A,
        workflow: 'st-flow',
        params: '{"v":"1"}',
        definition: '{"steps":[]}',
        state: 'running',
        source: 'user',
        total: 3,
        unfinished: 3,
        dead: 0,
        cancelled: 0,
        createdAt: now,
        endedAt: null,
      });
      assert.deepEqual(got.locked, got.inserted);
      assert.deepEqual([got.first?.state, got.first?.unfinished, got.first?.dead, got.first?.endedAt], ['running', 1, 1, null]);
      assert.deepEqual([got.failed?.state, got.failed?.unfinished, got.failed?.endedAt], ['failed', 0, now + 2]);
      assert.deepEqual([got.reopened?.state, got.reopened?.unfinished, got.reopened?.dead, got.reopened?.endedAt], ['running', 1, 0, null]);
      assert.deepEqual([got.succeeded?.state, got.succeeded?.endedAt], ['succeeded', now + 4]);
      assert.deepEqual([got.cancelled?.state, got.cancelled?.cancelled, got.cancelled?.dead], ['cancelled', 1, 1]);
      assert.equal(got.missing, undefined);
      assert.equal(got.none, undefined);
    });

    it('lists runs newest first by workflow and state, a page below a cursor', async () => {
      const s = store();
      const got = await s.read(function* () {
        const ids = (p: Parameters<typeof sql<'workflowRunList'>>[1]) => sql('workflowRunList', p);
        return {
          all: (yield* ids({ workflow: null, state: null, beforeId: null, limit: 10 })).map((r) => r.id),
          flow: (yield* ids({ workflow: 'st-flow', state: null, beforeId: null, limit: 10 })).map((r) => r.id),
          running: (yield* ids({ workflow: null, state: 'running', beforeId: null, limit: 10 })).map((r) => r.id),
          page: (yield* ids({ workflow: null, state: null, beforeId: RUN_C, limit: 1 })).map((r) => r.id),
        };
      });
      assert.deepEqual(got.all.filter((id) => [RUN_A, RUN_B, RUN_C].includes(id)), [RUN_C, RUN_B, RUN_A]);
      assert.deepEqual(got.flow, [RUN_B, RUN_A]);
      assert.deepEqual(got.running.filter((id) => [RUN_A, RUN_B, RUN_C].includes(id)), [RUN_C]);
      assert.deepEqual(got.page, [RUN_B]);
    });

    it("reads a run's jobs in creation order and its counts per state, and deletes ended runs once their jobs are gone", async () => {
      const s = store();
      const queue = 'st-wf-jobs';
      const got = await s.run(function* () {
        yield* sql('queueCreate', { name: queue, defaults: QUEUE_DEFAULTS, now });
        yield* sql('jobInsertMany', [
          row('00000000-0000-7000-8000-0000000f1002', queue, { workflowRunId: RUN_C, step: 'test' }),
          row('00000000-0000-7000-8000-0000000f1001', queue, { workflowRunId: RUN_C, step: 'build' }),
          row('00000000-0000-7000-8000-0000000f1003', queue, { workflowRunId: RUN_A, step: 'build', state: 'blocked', dependsOn: 1, waitingFor: 1 }),
          row('00000000-0000-7000-8000-0000000f1004', queue),
        ]);
        const jobs = (yield* sql('workflowRunJobs', RUN_C)).map((j) => [j.id, j.step, j.workflowRunId]);
        const counts = (yield* sql('workflowRunCounts', [RUN_A, RUN_C])).sort((a, b) => (a.runId + a.state < b.runId + b.state ? -1 : 1));
        // RUN_A has a job left; RUN_B (ended) has none; RUN_C is running.
        const deleted = yield* sql('workflowRunDeleteEmpty', 100);
        return { jobs, counts, deleted, a: yield* sql('workflowRunGet', RUN_A), b: yield* sql('workflowRunGet', RUN_B), c: yield* sql('workflowRunGet', RUN_C), none: yield* sql('workflowRunCounts', []) };
      });
      assert.deepEqual(got.jobs, [
        ['00000000-0000-7000-8000-0000000f1001', 'build', RUN_C],
        ['00000000-0000-7000-8000-0000000f1002', 'test', RUN_C],
      ]);
      assert.deepEqual(got.counts, [
        { runId: RUN_A, state: 'blocked', count: 1 },
        { runId: RUN_C, state: 'queued', count: 2 },
      ]);
      assert.equal(got.deleted, 1);
      assert.ok(got.a !== undefined && got.c !== undefined);
      assert.equal(got.b, undefined);
      assert.deepEqual(got.none, []);
    });
  });
}
