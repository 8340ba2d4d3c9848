/**
 * Statement-level conformance of groups (daemon/storage/statements/groups.ts): marking a queue
 * grouped, the group rows the triggers keep, the steps of a grouped claim, and the listings,
 * each statement called raw on every store alike.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { assertCountersAgree, jobRow, statementStore, type StatementStoreFactory } from './harness';

const EXCLUDE_BUILTINS = { exclude: ['shell', 'http'] };

export function defineGroupStatements(factory: StatementStoreFactory): void {
  describe('statements: groups', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('marks a queue grouped, keeps each group\'s waiting and running by trigger, walks, peeks, claims by id and stores turns', async () => {
      const s = store();
      const now = s.clock.ms;
      const id = (n: number): string => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;
      const made = await s.run(function* () {
        yield* sql('queueCreate', { name: 'st-groups', defaults: { concurrency: null, maxAttempts: 3, backoff: { strategy: 'fixed', baseMs: 1000, capMs: 1000, jitter: 0 }, timeoutMs: 30_000, retentionMs: null }, now });
        yield* sql('jobInsert', jobRow(id(1), 'st-groups', now));
        const marked = yield* sql('queueMarkGrouped', { name: 'st-groups', now });
        const again = yield* sql('queueMarkGrouped', { name: 'st-groups', now });
        yield* sql('jobInsertMany', [
          jobRow(id(2), 'st-groups', now, { groupKey: 'a', priority: 1 }),
          jobRow(id(3), 'st-groups', now, { groupKey: 'a', weight: 2 }),
          jobRow(id(4), 'st-groups', now, { groupKey: 'b' }),
          jobRow(id(5), 'st-groups', now + 60_000, { groupKey: 'c' }),
        ]);
        return { marked, again, queue: yield* sql('queueGet', 'st-groups'), first: yield* sql('jobGet', id(1)) };
      });
      assert.equal(made.marked, true);
      assert.equal(made.again, false, 'marked once');
      assert.equal(made.queue?.grouped, true);
      assert.equal(made.first?.group, null, "the job from before is in the group '' of jobs without one, shown as none");

      const turns = await s.run(function* () {
        return yield* sql('groupTurns', { queue: 'st-groups', kinds: EXCLUDE_BUILTINS, now, limit: 10 });
      });
      assert.deepEqual(turns.map((t) => t.group).sort(), ['', 'a', 'b'], 'the group with only a delayed job is stepped over');
      assert.ok(turns.every((t) => t.running === 0 && t.rate.tokens === null));
      assert.deepEqual(
        turns.map((t) => [t.group, t.waiting, t.head.id, t.head.weight, t.head.chars]).sort(),
        [['', 1, id(1), 1, 2], ['a', 2, id(2), 1, 2], ['b', 1, id(4), 1, 2]],
        "each group's first due job in claim order (a's higher priority first), and its waiting jobs",
      );

      const peeked = await s.run(function* () {
        return yield* sql('groupPeek', { queue: 'st-groups', groups: [{ group: 'a', room: 5 }, { group: 'b', room: 1 }], kinds: EXCLUDE_BUILTINS, now });
      });
      assert.deepEqual(peeked.map((c) => [c.group, c.id, c.weight, c.chars]), [['a', id(2), 1, 2], ['a', id(3), 2, 2], ['b', id(4), 1, 2]], 'in claim order within each group');

      const claimed = await s.run(function* () {
        const jobs = yield* sql('claimJobIds', { queue: 'st-groups', ids: [id(2), id(3), id(5)], workerId: 'w', now });
        yield* sql('groupServed', { queue: 'st-groups', served: [{ group: 'a', pass: 1440, tokens: 2.5, refilledAt: now }, { group: 'b', pass: 720, tokens: 3, refilledAt: now }] });
        return { jobs, none: yield* sql('claimJobIds', { queue: 'st-groups', ids: [], workerId: 'w', now }) };
      });
      assert.deepEqual(claimed.jobs.map((j) => [j.id, j.state, j.group]), [[id(2), 'running', 'a'], [id(3), 'running', 'a']], 'the delayed job is not claimed');
      assert.deepEqual(claimed.none, []);

      const after = await s.run(function* () {
        return {
          list: yield* sql('groupList', { queue: 'st-groups', limit: 10 }),
          afterA: yield* sql('groupList', { queue: 'st-groups', limit: 10, after: 'a' }),
          afterNone: yield* sql('groupList', { queue: 'st-groups', limit: 1, after: '' }),
          waitingAtZero: yield* sql('groupList', { queue: 'st-groups', limit: 10, minRunning: 0 }),
          waitingAtOne: yield* sql('groupList', { queue: 'st-groups', limit: 10, minRunning: 1 }),
          turns: yield* sql('groupTurns', { queue: 'st-groups', kinds: EXCLUDE_BUILTINS, now: now + 60_000, limit: 10 }),
        };
      });
      assert.deepEqual(after.list, [
        { group: null, key: '', waiting: 1, running: 0, runningWeight: 0 },
        { group: 'a', key: 'a', waiting: 0, running: 2, runningWeight: 3 },
        { group: 'b', key: 'b', waiting: 1, running: 0, runningWeight: 0 },
        { group: 'c', key: 'c', waiting: 1, running: 0, runningWeight: 0 },
      ]);
      assert.deepEqual(after.afterA.map((g) => g.group), ['b', 'c'], 'after a key: the groups past it');
      assert.deepEqual(after.afterNone.map((g) => g.group), ['a'], "after '' (the jobs without a group): the first keyed group");
      assert.deepEqual(after.waitingAtZero.map((g) => g.group), [null, 'b', 'c'], 'with minRunning: only groups with waiting jobs');
      assert.deepEqual(after.waitingAtOne, [], 'a runs weight 3 but waits nothing; the others run nothing');
      assert.deepEqual(after.turns.map((t) => t.group).sort(), ['', 'b', 'c'], 'a group with nothing waiting has no turn');
      assert.deepEqual(after.turns.map((t) => [t.group, t.pass, t.rate.tokens]), [['', 0, null], ['c', 0, null], ['b', 720, 3]], 'in turn order: every served group got its pass and bucket from one groupServed');

      const ended = await s.run(function* () {
        yield* sql('jobDelete', id(4));
        yield* sql('queueUpdate', {
          name: 'st-groups', concurrency: null, ratePerSecond: null, rateBurst: null, defaultMaxAttempts: 3, backoffStrategy: 'fixed', backoffBaseMs: 1000,
          backoffCapMs: 1000, backoffJitter: 0, defaultTimeoutMs: 30_000, retentionMs: null, limitMemoryBytes: null, limitCpuSeconds: null,
          limitOpenFiles: null, limitProcesses: null, groupConcurrency: 1, groupRatePerSecond: 2, groupRateBurst: 3, groupWeights: '{"a":2}', now,
        });
        yield* sql('groupServed', { queue: 'st-groups', served: [{ group: 'c', pass: 5, tokens: 0.5, refilledAt: now }] });
        const list = yield* sql('groupList', { queue: 'st-groups', limit: 2 });
        const wake = yield* sql('wakeGroupRateLimited', 5);
        yield* sql('jobInsert', jobRow(id(6), 'st-groups', now, { groupKey: 'a' }));
        const full = { atThree: yield* sql('groupList', { queue: 'st-groups', limit: 10, minRunning: 3 }), atFour: yield* sql('groupList', { queue: 'st-groups', limit: 10, minRunning: 4 }) };
        return { list, queue: yield* sql('queueGet', 'st-groups'), wake, full };
      });
      assert.deepEqual(ended.full.atThree.map((g) => [g.group, g.waiting, g.runningWeight]), [['a', 1, 3]], 'a waits with weight 3 running: at a limit of 3');
      assert.deepEqual(ended.full.atFour, [], 'no group runs weight 4');
      assert.deepEqual(ended.list.map((g) => g.group), [null, 'a'], 'at most limit groups, by key');
      assert.equal(ended.queue?.groupConcurrency, 1);
      assert.deepEqual(ended.queue?.groupRate, { perSecond: 2, burst: 3 });
      assert.deepEqual(ended.queue?.groupWeights, { a: 2 });
      assert.deepEqual(ended.wake, [{ queue: 'st-groups', tokens: 0.5, refilledAt: now }], 'a waiting group short of a token');
    });
  });
}
