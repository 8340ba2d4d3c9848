/**
 * Statement-level conformance of priority ageing: queueSetAgeing, queueAgeJobs and
 * queueClearAgeing called raw on every store alike, with what the claim then takes first; and
 * jobUpdate moving a waiting job between groups; and groupPruneEmpty.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { assertCountersAgree, enqueueInput, statementStore, type StatementStoreFactory } from './harness';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export function defineAgeingStatements(factory: StatementStoreFactory): void {
  describe('statements: priority ageing', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('writes a queue\'s ageing, raises waiting jobs by whole steps of their wait (capped), writes only changes, and clears', async () => {
      const s = store();
      const start = s.clock.ms;
      const old = (await s.enqueue(enqueueInput('st-age', { priority: 1 }))).job;
      const capped = (await s.enqueue(enqueueInput('st-age', { priority: 998 }))).job;
      const fresh = (await s.enqueue(enqueueInput('st-age', { priority: 4, delayMs: 25 * MINUTE }))).job;
      const other = (await s.enqueue(enqueueInput('st-age-other', { priority: 1 }))).job;
      const now = start + 25 * MINUTE + 30_000;
      const result = await s.run(function* () {
        yield* sql('queueSetAgeing', { name: 'st-age', step: 2, everyMs: 10 * MINUTE, now });
        const settings = yield* sql('queueGet', 'st-age');
        const changed = yield* sql('queueAgeJobs', { name: 'st-age', step: 2, everyMs: 10 * MINUTE, maxPriority: 1000, now });
        const again = yield* sql('queueAgeJobs', { name: 'st-age', step: 2, everyMs: 10 * MINUTE, maxPriority: 1000, now });
        const jobs = { old: yield* sql('jobGet', old.id), capped: yield* sql('jobGet', capped.id), fresh: yield* sql('jobGet', fresh.id), other: yield* sql('jobGet', other.id) };
        return { settings, changed, again, jobs };
      });
      assert.equal(result.settings?.ageing, '2 per 10m');
      assert.equal(result.changed, 2, 'the two jobs that waited two steps; the one due 30 s ago and the other queue\'s are left');
      assert.equal(result.again, 0, 'nothing changes twice at the same moment');
      assert.deepEqual([result.jobs.old?.priority, result.jobs.old?.agedPriority], [1, 5]);
      assert.deepEqual([result.jobs.capped?.priority, result.jobs.capped?.agedPriority], [998, 1000]);
      assert.deepEqual([result.jobs.fresh?.priority, result.jobs.fresh?.agedPriority], [4, null]);
      assert.equal(result.jobs.other?.agedPriority, null);

      // Claims order by the raised priority: the old job (5) before the fresh one (4).
      s.clock.ms = now;
      const claimed = await s.claim({ workerId: 'st-age-w', queues: ['st-age'], max: 2, kinds: { exclude: [] } });
      assert.deepEqual(claimed.map((j) => j.id).sort(), [capped.id, old.id].sort());

      const cleared = await s.run(function* () {
        const n = yield* sql('queueClearAgeing', 'st-age');
        yield* sql('queueSetAgeing', { name: 'st-age', step: null, everyMs: null, now });
        return { n, settings: yield* sql('queueGet', 'st-age'), old: yield* sql('jobGet', old.id) };
      });
      assert.equal(cleared.n, 2, 'the raised jobs, running ones too');
      assert.equal(cleared.settings?.ageing, undefined, 'a queue without ageing reads as before');
      assert.deepEqual([cleared.old?.priority, cleared.old?.agedPriority], [1, null]);
    });
  });

  describe('statements: a waiting job\'s group changed by jobUpdate', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('moves the job between groups, its group counters following', async () => {
      const s = store();
      const now = s.clock.ms;
      const job = (await s.enqueue(enqueueInput('st-edit-group', { group: 'a' }))).job;
      await s.enqueue(enqueueInput('st-edit-group', { group: 'a' }));
      const result = await s.run(function* () {
        const moved = yield* sql('jobUpdate', { id: job.id, priority: null, runAt: null, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now, groupKey: 'b' });
        const list = yield* sql('groupList', { queue: 'st-edit-group', limit: 10 });
        const none = yield* sql('jobUpdate', { id: job.id, priority: null, runAt: null, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now, groupKey: '' });
        const kept = yield* sql('jobUpdate', { id: job.id, priority: 3, runAt: null, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now });
        return { moved, list, none, kept, after: yield* sql('groupList', { queue: 'st-edit-group', limit: 10 }) };
      });
      assert.equal(result.moved?.group, 'b');
      assert.deepEqual(result.list.filter((g) => g.waiting > 0 || g.running > 0).map((g) => [g.group, g.waiting]), [['a', 1], ['b', 1]]);
      assert.equal(result.none?.group, null, "'' is the group of the jobs without one");
      assert.equal(result.kept?.group, null, 'a jobUpdate without groupKey leaves the group');
      assert.deepEqual(result.after.filter((g) => g.waiting > 0 || g.running > 0).map((g) => [g.group, g.waiting]), [[null, 1], ['a', 1]]);
    });
  });
}

/** Statement-level conformance of the pruning of empty group rows, with the clock given as `now`. */
export function defineGroupPruneStatements(factory: StatementStoreFactory): void {
  describe('statements: empty group rows pruned', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('notes group rows found empty, deletes them once noted an hour before, and keeps a group that has jobs again', async () => {
      const s = store();
      const start = s.clock.ms;
      const pass = (now: number) => s.run(function* () {
        return yield* sql('groupPruneEmpty', { now, before: now - HOUR, limit: 100 });
      });
      const once = (await s.enqueue(enqueueInput('st-prune', { group: 'customer:1' }))).job;
      await s.enqueue(enqueueInput('st-prune', { group: 'customer:2' }));
      const waiting = (await s.enqueue(enqueueInput('st-prune', { group: 'customer:3' }))).job;
      // customer:1 and customer:3 end their only jobs; customer:2 keeps one waiting.
      await s.run(function* () {
        yield* sql('jobDelete', once.id);
        yield* sql('jobDelete', waiting.id);
      });
      assert.deepEqual(await pass(start), { noted: 2, deleted: 0 });
      assert.deepEqual(await pass(start + HOUR / 2), { noted: 0, deleted: 0 }, 'noted once');
      // customer:3 gets a job again before the hour is out: its note is cleared, its row kept.
      s.clock.ms = start + HOUR / 2;
      const back = (await s.enqueue(enqueueInput('st-prune', { group: 'customer:3' }))).job;
      assert.deepEqual(await pass(start + HOUR), { noted: 0, deleted: 1 }, 'customer:1 alone goes');
      const groups = await s.run(function* () {
        return yield* sql('groupList', { queue: 'st-prune', limit: 10 });
      });
      assert.deepEqual(groups.map((g) => [g.group, g.waiting]), [['customer:2', 1], ['customer:3', 1]]);
      await s.run(function* () {
        yield* sql('jobDelete', back.id);
      });
      assert.deepEqual(await pass(start + 2 * HOUR), { noted: 1, deleted: 0 }, 'customer:3 is noted anew, not from its first note');
      assert.deepEqual(await pass(start + 3 * HOUR), { noted: 0, deleted: 1 });
      // A group that comes back after its row went gets a new one.
      s.clock.ms = start + 3 * HOUR;
      await s.enqueue(enqueueInput('st-prune', { group: 'customer:1' }));
      const after = await s.run(function* () {
        return yield* sql('groupList', { queue: 'st-prune', limit: 10 });
      });
      assert.deepEqual(after.map((g) => [g.group, g.waiting]), [['customer:1', 1], ['customer:2', 1]]);
    });
  });
}
