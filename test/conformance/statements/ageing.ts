/**
 * Statement-level conformance of priority ageing: queueSetAgeing, queueAgeJobs and
 * queueClearAgeing called raw on every store alike, with what the claim then takes first.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { assertCountersAgree, enqueueInput, statementStore, type StatementStoreFactory } from './harness';

const MINUTE = 60_000;

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
}
