/**
 * Statement-level conformance of queues and the job listing: each statement of
 * daemon/storage/statements/{queues,list}.ts called raw, on every store alike. The counters are
 * read inside the transaction that moves jobs too, since SQLite adds its pending changes to
 * what it stored while PostgreSQL's triggers have already written them.
 */
import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import type { QueueDefaults, StoredQueue } from '../../../daemon/storage/statements/queues';
import type { JobListQuery } from '../../../daemon/storage/statements/list';
import type { Job, JobCounts } from '../../../shared/protocol/types';
import { assertCountersAgree, concurrently, enqueueInput, runningJob, statementStore, type StatementStoreFactory } from './harness';

const DEFAULTS: QueueDefaults = {
  concurrency: null,
  maxAttempts: 3,
  backoff: { strategy: 'exponential', baseMs: 1000, capMs: 3_600_000, jitter: 0.3 },
  timeoutMs: 300_000,
  retentionMs: 604_800_000,
};

function counts(partial: Partial<JobCounts>): JobCounts {
  return { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0, ...partial };
}

export function defineQueueStatements(factory: StatementStoreFactory): void {
  describe('statements: queues and the job listing', () => {
    const store = statementStore(factory);
    let now = 0;
    before(() => {
      now = store().clock.ms;
    });
    // Whatever a test's statements did to jobs, the counters followed.
    afterEach(() => assertCountersAgree(store()));

    it('creates, reads, configures, pauses and deletes a queue', async () => {
      const s = store();
      const created = await s.run(function* () {
        return {
          first: yield* sql('queueCreate', { name: 'st-q-b', defaults: DEFAULTS, now }),
          again: yield* sql('queueCreate', { name: 'st-q-b', defaults: { ...DEFAULTS, maxAttempts: 9 }, now: now + 1 }),
          other: yield* sql('queueCreate', { name: 'st-q-a', defaults: { ...DEFAULTS, concurrency: 4, retentionMs: null }, now }),
        };
      });
      assert.deepEqual(created, { first: true, again: false, other: true });

      const expected = {
        name: 'st-q-b',
        concurrency: null,
        rateLimit: null,
        paused: false,
        defaultMaxAttempts: 3,
        defaultBackoff: DEFAULTS.backoff,
        defaultTimeoutMs: 300_000,
        retentionMs: 604_800_000,
        limits: {},
        createdAt: now,
        groupConcurrency: null,
        groupRate: null,
        groupWeights: null,
        grouped: false,
      };
      const reads = await s.run(function* () {
        return {
          get: yield* sql('queueGet', 'st-q-b'),
          forUpdate: yield* sql('queueGetForUpdate', 'st-q-b'),
          forConfigure: yield* sql('queueGetForConfigure', 'st-q-b'),
          other: yield* sql('queueGet', 'st-q-a'),
          missing: yield* sql('queueGet', 'st-q-none'),
          missingForUpdate: yield* sql('queueGetForUpdate', 'st-q-none'),
          missingForConfigure: yield* sql('queueGetForConfigure', 'st-q-none'),
          list: (yield* sql('queueList')).filter((q) => q.name.startsWith('st-q-')),
        };
      });
      assert.deepEqual(reads.get, expected, 'a second create kept the first settings');
      // SQLite reads without a row lock (BEGIN IMMEDIATE holds the file's write lock); the settings are the same.
      assert.deepEqual(reads.forUpdate, expected);
      assert.deepEqual(reads.forConfigure, expected);
      assert.equal(reads.other?.concurrency, 4);
      assert.equal(reads.other?.retentionMs, null);
      assert.equal(reads.missing, undefined);
      assert.equal(reads.missingForUpdate, undefined);
      assert.equal(reads.missingForConfigure, undefined);
      assert.deepEqual(
        reads.list.map((q) => q.name),
        ['st-q-a', 'st-q-b'],
        'by name',
      );

      const configured = await s.run(function* () {
        yield* sql('queueUpdate', {
          name: 'st-q-b',
          concurrency: 2,
          ratePerSecond: 2.5,
          rateBurst: 10,
          defaultMaxAttempts: 4,
          backoffStrategy: 'fixed',
          backoffBaseMs: 500,
          backoffCapMs: 500,
          backoffJitter: 0,
          defaultTimeoutMs: 1_000,
          retentionMs: null,
          limitMemoryBytes: 1_048_576,
          limitCpuSeconds: 2,
          limitOpenFiles: 64,
          limitProcesses: 8,
          groupConcurrency: 3,
          groupRatePerSecond: 1.5,
          groupRateBurst: 2,
          groupWeights: '{"customer:1":2}',
          now: now + 5,
        });
        const paused = yield* sql('queueSetPaused', { name: 'st-q-b', paused: true, now: now + 6 });
        const missingPause = yield* sql('queueSetPaused', { name: 'st-q-none', paused: true, now: now + 6 });
        return { paused, missingPause, settings: yield* sql('queueGet', 'st-q-b') };
      });
      assert.equal(configured.paused, true);
      assert.equal(configured.missingPause, false);
      assert.deepEqual(configured.settings, {
        name: 'st-q-b',
        concurrency: 2,
        rateLimit: { perSecond: 2.5, burst: 10 },
        paused: true,
        defaultMaxAttempts: 4,
        defaultBackoff: { strategy: 'fixed', baseMs: 500, capMs: 500, jitter: 0 },
        defaultTimeoutMs: 1_000,
        retentionMs: null,
        limits: { memoryBytes: 1_048_576, cpuSeconds: 2, openFiles: 64, processes: 8 },
        createdAt: now,
        groupConcurrency: 3,
        groupRate: { perSecond: 1.5, burst: 2 },
        groupWeights: { 'customer:1': 2 },
        grouped: false,
      });

      const resumed = await s.run(function* () {
        yield* sql('queueSetPaused', { name: 'st-q-b', paused: false, now: now + 7 });
        return yield* sql('queueGet', 'st-q-b');
      });
      assert.equal(resumed?.paused, false);
      // A read after the commit sees the settings a later transaction wrote (SQLite caches them).
      const read = await s.read(function* () {
        return yield* sql('queueGet', 'st-q-b');
      });
      assert.deepEqual(read, resumed);

      // Read-modify-writes under either lock do not lose one another's writes.
      const update = (settings: StoredQueue, defaultMaxAttempts: number) => {
        const backoff = settings.defaultBackoff;
        const limits = settings.limits;
        return sql('queueUpdate', {
          name: settings.name,
          concurrency: settings.concurrency,
          ratePerSecond: settings.rateLimit?.perSecond ?? null,
          rateBurst: settings.rateLimit?.burst ?? null,
          defaultMaxAttempts,
          backoffStrategy: backoff.strategy,
          backoffBaseMs: backoff.baseMs,
          backoffCapMs: backoff.capMs,
          backoffJitter: backoff.jitter,
          defaultTimeoutMs: settings.defaultTimeoutMs,
          retentionMs: settings.retentionMs,
          limitMemoryBytes: limits.memoryBytes ?? null,
          limitCpuSeconds: limits.cpuSeconds ?? null,
          limitOpenFiles: limits.openFiles ?? null,
          limitProcesses: limits.processes ?? null,
          groupConcurrency: settings.groupConcurrency,
          groupRatePerSecond: settings.groupRate?.perSecond ?? null,
          groupRateBurst: settings.groupRate?.burst ?? null,
          groupWeights: settings.groupWeights === null ? null : JSON.stringify(settings.groupWeights),
          now: now + 8,
        });
      };
      const forUpdate = await concurrently(s, 3, function* () {
        const settings = (yield* sql('queueGetForUpdate', 'st-q-b')) ?? assert.fail('the queue is there');
        yield* update(settings, settings.defaultMaxAttempts + 1);
      });
      const forConfigure = await concurrently(s, 3, function* () {
        const settings = (yield* sql('queueGetForConfigure', 'st-q-b')) ?? assert.fail('the queue is there');
        yield* update(settings, settings.defaultMaxAttempts + 1);
      });
      const incremented = await s.read(function* () {
        return yield* sql('queueGet', 'st-q-b');
      });
      assert.equal(incremented?.defaultMaxAttempts, 4 + forUpdate + forConfigure);
      assert.deepEqual(incremented?.limits, { memoryBytes: 1_048_576, cpuSeconds: 2, openFiles: 64, processes: 8 });

      const deleted = await s.run(function* () {
        yield* sql('queueDelete', 'st-q-a');
        return {
          get: yield* sql('queueGet', 'st-q-a'),
          list: (yield* sql('queueList')).map((q) => q.name).filter((n) => n.startsWith('st-q-')),
          counts: yield* sql('queueCounts', 'st-q-a'),
          all: (yield* sql('queueCountsAll')).get('st-q-a'),
        };
      });
      assert.deepEqual(deleted, { get: undefined, list: ['st-q-b'], counts: counts({}), all: undefined }, 'its counters went with it');
    });

    it('finds the waiting jobs heavier than a weight: how many, and the heaviest', async () => {
      const s = store();
      const queue = 'st-q-heavy';
      await s.enqueue(enqueueInput(queue, { weight: 2 }));
      await s.enqueue(enqueueInput(queue, { weight: 5 }));
      await s.enqueue(enqueueInput(queue, { weight: 3 }));
      // A running job is not waiting, however heavy.
      await runningJob(s, queue, 'w1', { weight: 9, priority: 10 });
      const found = await s.read(function* () {
        return {
          over1: yield* sql('queueHeavierWaiting', { name: queue, weight: 1 }),
          over2: yield* sql('queueHeavierWaiting', { name: queue, weight: 2 }),
          over5: yield* sql('queueHeavierWaiting', { name: queue, weight: 5 }),
          none: yield* sql('queueHeavierWaiting', { name: 'st-q-none', weight: 1 }),
        };
      });
      assert.deepEqual(found, { over1: { count: 3, heaviest: 5 }, over2: { count: 2, heaviest: 5 }, over5: { count: 0, heaviest: 0 }, none: { count: 0, heaviest: 0 } });
    });

    it('counts jobs by state and delayed jobs, inside the transaction that moves them too, and purges', async () => {
      const s = store();
      const queue = 'st-q-counts';
      const due = await runningJob(s, queue, 'w1');
      const { job: later } = await s.enqueue(enqueueInput(queue, { delayMs: 60_000 }));
      assert.equal(later.runAt, now + 60_000);

      const before = await s.read(function* () {
        return {
          counts: yield* sql('queueCounts', queue),
          all: (yield* sql('queueCountsAll')).get(queue),
          delayed: yield* sql('queueDelayed', { name: queue, now }),
          delayedLater: yield* sql('queueDelayed', { name: queue, now: now + 60_000 }),
          delayedAll: (yield* sql('queueDelayedAll', now)).get(queue) ?? 0,
          delayedAllLater: (yield* sql('queueDelayedAll', now + 60_000)).get(queue) ?? 0,
          left: yield* sql('queueJobsLeft', queue),
          missingCounts: yield* sql('queueCounts', 'st-q-none'),
          missingDelayed: yield* sql('queueDelayed', { name: 'st-q-none', now }),
          missingLeft: yield* sql('queueJobsLeft', 'st-q-none'),
        };
      });
      assert.deepEqual(before, {
        counts: counts({ blocked: 0, queued: 1, running: 1 }),
        all: counts({ blocked: 0, queued: 1, running: 1 }),
        delayed: 1,
        delayedLater: 0,
        delayedAll: 1,
        delayedAllLater: 0,
        left: { running: 1, total: 2 },
        missingCounts: counts({}),
        missingDelayed: 0,
        missingLeft: { running: 0, total: 0 },
      });

      // A waiting job moved to a later run time is delayed from then on, and back when moved again.
      const moved = await s.run(function* () {
        const delayedBefore = yield* sql('queueDelayed', { name: queue, now });
        const running = yield* sql('jobUpdate', { id: due.id, priority: null, runAt: now + 30_000, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now });
        yield* sql('jobUpdate', { id: later.id, priority: null, runAt: now, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now });
        const delayedNow = yield* sql('queueDelayed', { name: queue, now });
        yield* sql('jobUpdate', { id: later.id, priority: null, runAt: now + 60_000, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now });
        return { delayedBefore, running, delayedNow, delayedAgain: yield* sql('queueDelayed', { name: queue, now }) };
      });
      assert.deepEqual(moved, { delayedBefore: 1, running: undefined, delayedNow: 0, delayedAgain: 1 }, 'a running job is not waiting');
      const delayedAfter = await s.read(function* () {
        return yield* sql('queueDelayed', { name: queue, now });
      });
      assert.equal(delayedAfter, 1);

      const within = await s.run(function* () {
        yield* sql('jobCancelWaiting', { id: later.id, from: 'queued', now: now + 1 });
        return {
          counts: yield* sql('queueCounts', queue),
          all: (yield* sql('queueCountsAll')).get(queue),
          delayed: yield* sql('queueDelayed', { name: queue, now: now + 1 }),
          left: yield* sql('queueJobsLeft', queue),
          purged: yield* sql('queuePurge', { name: queue, states: ['cancelled', 'running'], limit: 10 }),
          afterPurge: yield* sql('queueCounts', queue),
          leftAfterPurge: yield* sql('queueJobsLeft', queue),
        };
      });
      assert.deepEqual(within, {
        counts: counts({ running: 1, cancelled: 1 }),
        all: counts({ running: 1, cancelled: 1 }),
        delayed: 0,
        left: { running: 1, total: 2 },
        purged: { deleted: 1, unfinishedByRun: new Map() },
        afterPurge: counts({ running: 1 }),
        leftAfterPurge: { running: 1, total: 1 },
      }, 'a running job is never purged');

      for (let i = 0; i < 3; i += 1) await s.enqueue(enqueueInput(queue));
      const purges = await s.run(function* () {
        const batches: number[] = [];
        for (let i = 0; i < 3; i += 1) batches.push((yield* sql('queuePurge', { name: queue, states: ['queued'], limit: 2 })).deleted);
        yield* sql('jobComplete', { id: due.id, workerId: 'w1', result: null, now: now + 2 });
        batches.push((yield* sql('queuePurge', { name: queue, states: ['completed'], limit: 2 })).deleted);
        return { batches, left: yield* sql('queueJobsLeft', queue), counts: yield* sql('queueCounts', queue) };
      });
      assert.deepEqual(purges, { batches: [2, 1, 0, 1], left: { running: 0, total: 0 }, counts: counts({}) });

      const committed = await s.read(function* () {
        return yield* sql('queueCounts', queue);
      });
      assert.deepEqual(committed, counts({}), 'what the transaction counted was written at its commit');
    });

    it('lists jobs by filter, in three orders, a page after another', async () => {
      const s = store();
      const queue = 'st-list';
      const enqueue = async (fields: Parameters<typeof enqueueInput>[1]): Promise<Job> => (await s.enqueue(enqueueInput(queue, fields))).job;
      const j1 = await enqueue({ kind: 'alpha', payload: '{"word":"needle 50%"}', tags: '["red"]', context: '{"branch":"main"}' });
      const j2 = await enqueue({ kind: 'beta', tags: '["blue"]', delayMs: 60_000 });
      const j3 = await enqueue({ kind: 'alpha', tags: '["red","blue"]', context: '{"branch":"dev"}', payload: '{"word":"5000"}' });
      const j4 = await runningJob(s, queue, 'w1', { kind: 'beta', priority: 10 });
      const j5 = await enqueue({ kind: 'alpha' });
      const other = (await s.enqueue(enqueueInput('st-list-other', { kind: 'alpha' }))).job;
      await s.run(function* () {
        yield* sql('jobCancelWaiting', { id: j5.id, from: 'queued', now });
        yield* sql('jobCancelWaiting', { id: other.id, from: 'queued', now });
      });
      const ids = (jobs: Job[]): string[] => jobs.map((j) => j.id);
      const mine = new Set([j1.id, j2.id, j3.id, j4.id, j5.id, other.id]);
      // Every query names the queue unless `everyQueue`; only this test's jobs are compared.
      const list = (query: Partial<JobListQuery>, everyQueue = false): Promise<string[]> =>
        s.read(function* () {
          const jobs = yield* sql('jobList', { order: 'newest', limit: 100, now, ...(everyQueue ? {} : { queue }), ...query });
          return ids(jobs).filter((id) => mine.has(id));
        });

      assert.deepEqual(await list({}), ids([j5, j4, j3, j2, j1]));
      assert.deepEqual(await list({ order: 'oldest' }), ids([j1, j2, j3, j4, j5]));
      assert.deepEqual(await list({ order: 'runAt' }), ids([j1, j3, j4, j5, j2]));
      assert.deepEqual(await list({ limit: 2 }), ids([j5, j4]));
      assert.deepEqual(await list({ limit: 2, after: { id: j4.id, runAt: j4.runAt } }), ids([j3, j2]));
      assert.deepEqual(await list({ limit: 2, order: 'oldest', after: { id: j2.id, runAt: j2.runAt } }), ids([j3, j4]));
      assert.deepEqual(await list({ limit: 2, order: 'runAt', after: { id: j3.id, runAt: j3.runAt } }), ids([j4, j5]));
      assert.deepEqual(await list({ limit: 2, order: 'runAt', after: { id: j5.id, runAt: j5.runAt } }), ids([j2]));

      assert.deepEqual(await list({ states: ['running'] }), ids([j4]));
      assert.deepEqual(await list({ states: ['queued'] }), ids([j3, j2, j1]));
      assert.deepEqual(await list({ states: ['queued', 'running'] }), ids([j4, j3, j2, j1]));
      assert.deepEqual(await list({ states: ['queued', 'cancelled'], order: 'runAt' }), ids([j1, j3, j5, j2]));
      assert.deepEqual(await list({ states: ['queued', 'cancelled'], kind: 'alpha', order: 'oldest' }), ids([j1, j3, j5]));
      assert.deepEqual(await list({ kind: 'beta' }), ids([j4, j2]));
      assert.deepEqual(await list({ tag: 'red' }), ids([j3, j1]));
      assert.deepEqual(await list({ tag: 'blue' }), ids([j3, j2]));
      assert.deepEqual(await list({ search: '50%' }), ids([j1]), 'a wildcard in the search is a plain character');
      assert.deepEqual(await list({ search: 'needle' }), ids([j1]));
      assert.deepEqual(await list({ search: 'NEEDLE' }), ids([j1]), 'the case of ASCII letters does not matter');
      assert.deepEqual(await list({ branch: 'main' }), ids([j1]));
      assert.deepEqual(await list({ idSuffix: j3.id.slice(-8) }), ids([j3]));
      assert.deepEqual(await list({ delayed: true }), ids([j2]));
      assert.deepEqual(await list({ delayed: false }), ids([j5, j4, j3, j1]));
      const created = [j1, j2, j3, j4, j5].map((j) => j.createdAt);
      assert.deepEqual(await list({ olderThanMs: 1000, now: Math.max(...created) + 1001 }), ids([j5, j4, j3, j2, j1]), 'created more than a second before now');
      assert.deepEqual(await list({ olderThanMs: 1000, now: Math.min(...created) + 1000 }), [], 'none created more than a second before now');

      // Without a queue: every queue's jobs (SQLite splits the query by queue and state, then merges).
      assert.deepEqual(await list({ states: ['cancelled'] }, true), ids([other, j5]));
      assert.deepEqual(await list({ states: ['cancelled'], order: 'oldest', limit: 100 }, true), ids([j5, other]));
      assert.deepEqual(await list({ kind: 'alpha' }, true), ids([other, j5, j3, j1]));
      assert.deepEqual(await list({ branch: 'dev' }, true), ids([j3]));
      assert.deepEqual(await list({ queue: 'st-list-none' }), []);
      // An empty state list filters nothing, with a queue or without.
      assert.deepEqual(await list({ states: [] }), ids([j5, j4, j3, j2, j1]));
      assert.deepEqual(await list({ states: [] }, true), ids([other, j5, j4, j3, j2, j1]));
    });
  });
}
