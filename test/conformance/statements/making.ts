/**
 * Statement-level conformance of making and claiming jobs and of a schedule's fire: inserts with
 * idempotency keys, the claim's peek, a queue's token bucket, and the fire's compare-and-swap
 * and records, called raw on every store alike. The differences the stores comment at these
 * statements are checked as such (SQLite keeps no fire records: its swap is the guard).
 */
import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import { QUEUE_DEFAULTS } from '../../../daemon/engine/defaults';
import { sql } from '../../../daemon/storage/statements';
import { JOB_FIELDS } from '../../../shared/protocol';
import { PLAIN_JOB_INSERT, type JobInsert } from '../../../daemon/storage/statements/jobs';
import type { ScheduleWrite } from '../../../daemon/storage/statements/schedules';
import { assertCountersAgree, jobRow, statementStore, type StatementStoreFactory } from './harness';

export function defineMakingStatements(factory: StatementStoreFactory): void {
  describe('statements: making and claiming jobs, a schedule fire', () => {
    const store = statementStore(factory);
    let now = 0;
    before(() => {
      now = store().clock.ms;
    });
    afterEach(() => assertCountersAgree(store()));

    const row = (id: string, queue: string, fields: Partial<JobInsert> = {}): JobInsert => jobRow(id, queue, now, fields);

    it('inserts jobs together, in order, and finds them by their idempotency keys', async () => {
      const s = store();
      const queue = 'st-make-keys';
      const made = await s.run(function* () {
        yield* sql('queueCreate', { name: queue, defaults: QUEUE_DEFAULTS, now });
        const jobs = yield* sql('jobInsertMany', [
          row('00000000-0000-7000-8000-00000000a001', queue, { idempotencyKey: 'st-key-1', priority: 5 }),
          row('00000000-0000-7000-8000-00000000a002', queue, { idempotencyKey: 'st-key-2' }),
          row('00000000-0000-7000-8000-00000000a003', queue),
        ]);
        return {
          jobs,
          one: yield* sql('jobGetByIdempotencyKey', 'st-key-2'),
          none: yield* sql('jobGetByIdempotencyKey', 'st-key-none'),
          many: (yield* sql('jobGetByIdempotencyKeys', ['st-key-1', 'st-key-2', 'st-key-none'])).map((j) => j.id).sort(),
          read: yield* sql('jobGet', '00000000-0000-7000-8000-00000000a001'),
        };
      });
      assert.deepEqual(made.jobs.map((j) => j?.id), ['00000000-0000-7000-8000-00000000a001', '00000000-0000-7000-8000-00000000a002', '00000000-0000-7000-8000-00000000a003']);
      // What an insert answers is what a later read finds: SQLite builds it from the values.
      assert.deepEqual(made.jobs[0], made.read);
      assert.equal(made.read?.state, 'queued');
      assert.equal(made.read?.priority, 5);
      assert.equal(made.one?.id, '00000000-0000-7000-8000-00000000a002');
      assert.equal(made.none, undefined);
      assert.deepEqual(made.many, ['00000000-0000-7000-8000-00000000a001', '00000000-0000-7000-8000-00000000a002']);
    });

    it("peeks at each queue's next due jobs within its room, and keeps a queue's token bucket", async () => {
      const s = store();
      const peeked = await s.run(function* () {
        for (const q of ['st-peek-a', 'st-peek-b']) yield* sql('queueCreate', { name: q, defaults: QUEUE_DEFAULTS, now });
        yield* sql('jobInsertMany', [
          row('00000000-0000-7000-8000-00000000b001', 'st-peek-a', { priority: 1 }),
          row('00000000-0000-7000-8000-00000000b002', 'st-peek-a', { priority: 9 }),
          row('00000000-0000-7000-8000-00000000b003', 'st-peek-a', { runAt: now + 60_000 }),
          row('00000000-0000-7000-8000-00000000b004', 'st-peek-b', { weight: 3 }),
          row('00000000-0000-7000-8000-00000000b005', 'st-peek-b', { kind: 'other' }),
        ]);
        yield* sql('queueSetRateState', { name: 'st-peek-b', tokens: 2.5, refilledAt: now });
        return {
          candidates: yield* sql('claimPeek', { queues: [{ name: 'st-peek-a', room: 1 }, { name: 'st-peek-b', room: 5 }], kinds: { include: ['work'] }, now }),
          queues: yield* sql('claimQueues', { queues: ['st-peek-b'], kinds: { include: ['work'] }, now }),
        };
      });
      const byQueue = (q: string) => peeked.candidates.filter((c) => c.queue === q).map((c) => c.id);
      // Room 1 in the first queue: its best due job only (priority 9); the delayed one is not due.
      assert.deepEqual(byQueue('st-peek-a'), ['00000000-0000-7000-8000-00000000b002']);
      // The other kind is left out whatever the room.
      assert.deepEqual(byQueue('st-peek-b'), ['00000000-0000-7000-8000-00000000b004']);
      assert.equal(peeked.candidates.find((c) => c.queue === 'st-peek-b')?.weight, 3);
      // The bucket is stored as given (this queue has no rate limit, so the claim does not read it back).
      assert.equal(peeked.queues.length, 1);

      // While every queue is paused, no queue is claimable; resumed, it is again.
      const paused = await s.run(function* () {
        yield* sql('settingSet', { name: 'claimsPaused', value: 'true', now });
        const none = yield* sql('claimQueues', { queues: ['st-peek-b'], kinds: { include: ['work'] }, now });
        const noneOfAll = yield* sql('claimQueues', { queues: [], kinds: { include: ['work'] }, now });
        yield* sql('settingSet', { name: 'claimsPaused', value: 'false', now });
        return { none, noneOfAll, again: yield* sql('claimQueues', { queues: ['st-peek-b'], kinds: { include: ['work'] }, now }) };
      });
      assert.deepEqual([paused.none.length, paused.noneOfAll.length, paused.again.length], [0, 0, 1]);
    });

    it("starts a claim with the worker's capacity left and the queues, none once the capacity is used up", async () => {
      const s = store();
      const kinds = { include: ['work'] };
      const worker = (id: string, capacity: number | null) => ({ id, type: 'remote', name: null, host: null, pid: null, queues: '[]', kinds: '[]', concurrency: null, capacity, now });
      const started = await s.run(function* () {
        for (const q of ['st-start-a', 'st-start-b']) yield* sql('queueCreate', { name: q, defaults: QUEUE_DEFAULTS, now });
        yield* sql('jobInsertMany', [row('00000000-0000-7000-8000-00000000e001', 'st-start-a', { weight: 2 })]);
        yield* sql('workerUpsert', worker('st-start-w', 3));
        const free = yield* sql('claimStart', { workerId: 'st-start-w', queues: ['st-start-a', 'st-start-b'], kinds, now });
        const undeclared = yield* sql('claimStart', { workerId: 'st-start-none', queues: ['st-start-b'], kinds, now });
        const unknownQueue = yield* sql('claimStart', { workerId: 'st-start-none', queues: ['st-start-missing'], kinds, now });
        yield* sql('claimJobs', { queue: 'st-start-a', kinds, limit: 1, workerId: 'st-start-w', now, budget: 1_000_000, room: 3, peeked: false });
        const holding = yield* sql('claimStart', { workerId: 'st-start-w', queues: [], kinds, now });
        const left = yield* sql('workerCapacityLeft', 'st-start-w');
        yield* sql('workerUpsert', worker('st-start-w', 2));
        return { free, undeclared, unknownQueue, holding, left, full: yield* sql('claimStart', { workerId: 'st-start-w', queues: ['st-start-a'], kinds, now }) };
      });
      const names = (start: { queues: { settings: { name: string } }[] }) => start.queues.map((q) => q.settings.name);
      assert.deepEqual([started.free.capacity, names(started.free)], [3, ['st-start-a', 'st-start-b']]);
      assert.deepEqual([started.undeclared.capacity, names(started.undeclared)], [null, ['st-start-b']]);
      assert.deepEqual([started.unknownQueue.capacity, names(started.unknownQueue)], [null, []]);
      // Holding weight 2 of 3: 1 left, and every queue (the claim names none) is offered.
      assert.equal(started.holding.capacity, 1);
      assert.equal(started.left, 1, 'workerCapacityLeft, the statement claimStart stands for, agrees');
      assert.ok(names(started.holding).includes('st-start-a') && names(started.holding).includes('st-start-b'));
      // Capacity lowered to what it holds: nothing left, and no queue.
      assert.deepEqual([started.full.capacity, names(started.full)], [0, []]);

      const paused = await s.run(function* () {
        yield* sql('settingSet', { name: 'claimsPaused', value: 'true', now });
        const none = yield* sql('claimStart', { workerId: 'st-start-none', queues: [], kinds, now });
        yield* sql('settingSet', { name: 'claimsPaused', value: 'false', now });
        return none;
      });
      assert.deepEqual([paused.capacity, paused.queues.length], [null, 0]);
    });

    it('claims in one statement only when the claim is simple, and takes nothing when it is not', async () => {
      const s = store();
      const kinds = { include: ['work'] };
      const worker = (id: string, capacity: number | null) => ({ id, type: 'remote', name: null, host: null, pid: null, queues: '[]', kinds: '[]', concurrency: null, capacity, now });
      const simple = (workerId: string, queues: string[], limit = 5) => sql('claimSimple', { workerId, queues, kinds, now, limit, budget: 1_000_000 });
      const ids = (claimed: { jobs: { id: string }[] } | null) => (claimed === null ? null : claimed.jobs.map((j) => j.id));
      const got = await s.run(function* () {
        for (const q of ['st-simple-a', 'st-simple-b', 'st-simple-limited']) yield* sql('queueCreate', { name: q, defaults: QUEUE_DEFAULTS, now });
        yield* sql('jobInsertMany', [
          row('00000000-0000-7000-8000-00000000f001', 'st-simple-a'),
          row('00000000-0000-7000-8000-00000000f002', 'st-simple-a', { priority: 5 }),
          row('00000000-0000-7000-8000-00000000f003', 'st-simple-a', { kind: 'other' }),
          row('00000000-0000-7000-8000-00000000f004', 'st-simple-a', { runAt: now + 60_000 }),
          row('00000000-0000-7000-8000-00000000f005', 'st-simple-b'),
          row('00000000-0000-7000-8000-00000000f006', 'st-simple-limited'),
        ]);
        const limited = yield* sql('queueGet', 'st-simple-limited');
        if (!limited) throw new Error('st-simple-limited was not created');
        yield* sql('queueUpdate', {
          name: 'st-simple-limited', concurrency: 3, ratePerSecond: null, rateBurst: null, defaultMaxAttempts: limited.defaultMaxAttempts,
          backoffStrategy: limited.defaultBackoff.strategy, backoffBaseMs: limited.defaultBackoff.baseMs, backoffCapMs: limited.defaultBackoff.capMs,
          backoffJitter: limited.defaultBackoff.jitter, defaultTimeoutMs: limited.defaultTimeoutMs, retentionMs: limited.retentionMs,
          limitMemoryBytes: null, limitCpuSeconds: null, limitOpenFiles: null, limitProcesses: null,
          groupConcurrency: null, groupRatePerSecond: null, groupRateBurst: null, groupWeights: null, now,
        });
        yield* sql('workerUpsert', worker('st-simple-capped', 10));
        // Not simple: two queues, a limited queue, a worker with a capacity. Nothing is taken.
        const two = yield* simple('st-simple-w', ['st-simple-a', 'st-simple-b']);
        const limitedOne = yield* simple('st-simple-w', ['st-simple-limited']);
        const capped = yield* simple('st-simple-capped', ['st-simple-a']);
        // Simple: the due jobs of the kinds asked for, in claim order, up to the limit.
        const first = yield* simple('st-simple-w', ['st-simple-a'], 1);
        const rest = yield* simple('st-simple-w', ['st-simple-a']);
        const empty = yield* simple('st-simple-w', ['st-simple-a']);
        const missing = yield* simple('st-simple-w', ['st-simple-missing']);
        yield* sql('queueSetPaused', { name: 'st-simple-b', paused: true, now });
        const paused = yield* simple('st-simple-w', ['st-simple-b']);
        return { two, limitedOne, capped, first, rest, empty, missing, paused, job: yield* sql('jobGet', '00000000-0000-7000-8000-00000000f002') };
      });
      assert.deepEqual([got.two, got.limitedOne, got.capped], [null, null, null]);
      assert.deepEqual(ids(got.first), ['00000000-0000-7000-8000-00000000f002']);
      assert.deepEqual(ids(got.rest), ['00000000-0000-7000-8000-00000000f001']);
      assert.deepEqual([ids(got.empty), ids(got.missing), ids(got.paused)], [[], [], []]);
      assert.ok(got.first !== null && got.first.chars > 0, 'the answer counts the claimed payload');
      assert.equal(got.job?.state, 'running');
      assert.equal(got.job?.workerId, 'st-simple-w');
      assert.equal(got.job?.attempts, 1);
    });

    it('reads back only the named fields of the jobs it claims, each as the whole job holds it', async () => {
      const s = store();
      const kinds = { include: ['work'] };
      const queue = 'st-fields';
      const ids = ['00000000-0000-7000-8000-00000000f101', '00000000-0000-7000-8000-00000000f102', '00000000-0000-7000-8000-00000000f103'];
      // Values that differ from every default, so that a field read from the wrong column shows.
      const rich: Partial<JobInsert> = {
        payload: '{"n":7,"s":"ü"}', priority: 3, weight: 2, maxAttempts: 9, backoffStrategy: 'linear', backoffBaseMs: 2500, backoffCapMs: 90_000, backoffJitter: 0.25,
        timeoutMs: 45_000, idempotencyKey: 'st-fields-key', tags: '["a","b"]', context: '{"branch":"main","commit":"abc"}', retryRule: null, deadlineAt: now + 3_600_000, step: 'build',
      };
      const got = await s.run(function* () {
        yield* sql('queueCreate', { name: queue, defaults: QUEUE_DEFAULTS, now });
        yield* sql('jobInsertMany', [row(ids[0] as string, queue, rich), row(ids[1] as string, queue, { ...rich, idempotencyKey: null, priority: 2 }), row(ids[2] as string, queue, { priority: 1 })]);
        const every = yield* sql('claimJobs', { queue, kinds, limit: 1, workerId: 'st-fields-w', now: now + 5, budget: 1_000_000, room: null, peeked: false, fields: [...JOB_FIELDS] });
        const kindOnly = yield* sql('claimSimple', { workerId: 'st-fields-w', queues: [queue], kinds, now: now + 6, limit: 5, budget: 1_000_000, fields: ['kind', 'tags'] });
        return { every, kindOnly, whole: yield* sql('jobGet', ids[0] as string), second: yield* sql('jobGet', ids[1] as string) };
      });
      const [claimed] = got.every.jobs;
      assert.ok(claimed !== undefined && got.whole !== undefined);
      // Every field the claim answered with is what the job row now holds.
      for (const field of JOB_FIELDS) assert.deepEqual(claimed[field], got.whole[field], `${field} as the claim read it back`);
      assert.equal(got.every.chars, '{"n":7,"s":"ü"}'.length);
      // Named only kind and tags: those, and the fields the engine reads of a claimed job.
      assert.ok(got.kindOnly !== null);
      assert.deepEqual(got.kindOnly.jobs.map((j) => j.id), [ids[1], ids[2]]);
      const [second] = got.kindOnly.jobs;
      assert.ok(second !== undefined && got.second !== undefined);
      for (const field of ['id', 'queue', 'kind', 'tags', 'payload', 'priority', 'weight', 'state', 'runAt', 'attempts', 'maxAttempts', 'workflowRunId', 'createdAt', 'updatedAt', 'startedAt', 'dependsOn', 'leaseExpiresAt', 'workerId', 'pausedAt', 'cancelRequested', 'progress'] as const) {
        assert.deepEqual(second[field], got.second[field], `${field} of a claim that named kind and tags`);
      }
      assert.equal(second.backoff, undefined, 'a field nobody named is not read back');
      assert.equal(second.context, undefined, 'a field nobody named is not read back');
    });

    it("fires a schedule once per tick by its compare-and-swap, and records the fire's job as the schedule's last", async () => {
      const s = store();
      const write: ScheduleWrite = {
        name: 'st-fire',
        cron: '* * * * *',
        timezone: 'UTC',
        queue: 'st-fire-q',
        job: '{"kind":"tick"}',
        enabled: 1,
        missedPolicy: 'skip',
        nextRunAt: now + 60_000,
        now,
        overlapPolicy: 'allow',
        template: null,
        params: null,
        workflow: null,
      };
      const fired = await s.run(function* () {
        yield* sql('scheduleInsert', write);
        yield* sql('queueCreate', { name: 'st-fire-q', defaults: QUEUE_DEFAULTS, now });
        const swap = yield* sql('scheduleSwapNextRun', { name: 'st-fire', expectedNextRunAt: now + 60_000, newNextRunAt: now + 120_000, enqueue: true, now: now + 60_000 });
        // A second daemon read the same next_run_at: its swap no longer matches.
        const stale = yield* sql('scheduleSwapNextRun', { name: 'st-fire', expectedNextRunAt: now + 60_000, newNextRunAt: now + 120_000, enqueue: true, now: now + 60_001 });
        const record = yield* sql('scheduleRecordFire', { name: 'st-fire', fireAt: now + 60_000, now: now + 60_000 });
        const [job] = yield* sql('jobInsertMany', [row('00000000-0000-7000-8000-00000000c001', 'st-fire-q')]);
        if (!job) throw new Error('the fire job was not inserted');
        yield* sql('scheduleFireSetJob', { name: 'st-fire', fireAt: now + 60_000, jobId: job.id });
        yield* sql('scheduleSetLastJob', { name: 'st-fire', jobId: job.id });
        const again = yield* sql('scheduleRecordFire', { name: 'st-fire', fireAt: now + 60_000, now: now + 60_002 });
        return { swap, stale, record, again, schedule: yield* sql('scheduleGet', 'st-fire') };
      });
      assert.equal(fired.swap, true);
      assert.equal(fired.stale, false);
      assert.equal(fired.record, true, 'the first record of a fire time is taken');
      // PostgreSQL keeps one record per (schedule, fire time): the second is refused. SQLite keeps
      // none (its swap is the guard) and answers true.
      assert.equal(fired.again, s.kind === 'sqlite');
      assert.equal(fired.schedule?.nextRunAt, now + 120_000);
      assert.equal(fired.schedule?.lastJobId, '00000000-0000-7000-8000-00000000c001');
      assert.equal(fired.schedule?.lastRunAt, now + 60_000);
    });
  });

  // A store of its own: the wake-up time is the earliest over every queue, job and schedule.
  describe('statements: the wake-up time', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('finds the earliest delayed job, lease or schedule, and the rate-limited queues with jobs waiting', async () => {
      const s = store();
      const now = s.clock.ms;
      const base = (id: string, queue: string, runAt: number): JobInsert => ({
        id, queue, kind: 'work', payload: '{}', priority: 0, weight: 1, runAt, maxAttempts: 3, backoffStrategy: 'fixed', backoffBaseMs: 1000,
        backoffCapMs: 1000, backoffJitter: 0, timeoutMs: 30_000, idempotencyKey: null, tags: '[]', context: null, ...PLAIN_JOB_INSERT, now,
      });
      const empty = await s.read(function* () {
        return { due: yield* sql('wakeDueAt', now), limited: yield* sql('wakeRateLimited') };
      });
      assert.deepEqual(empty, { due: null, limited: [] });
      const found = await s.run(function* () {
        for (const q of ['st-wake-a', 'st-wake-paused', 'st-wake-rate']) yield* sql('queueCreate', { name: q, defaults: QUEUE_DEFAULTS, now });
        yield* sql('jobInsertMany', [
          base('00000000-0000-7000-8000-00000000d001', 'st-wake-a', now + 90_000),
          base('00000000-0000-7000-8000-00000000d002', 'st-wake-a', now + 30_000),
          base('00000000-0000-7000-8000-00000000d003', 'st-wake-paused', now + 10_000),
          base('00000000-0000-7000-8000-00000000d004', 'st-wake-rate', now),
        ]);
        yield* sql('queueSetPaused', { name: 'st-wake-paused', paused: true, now });
        const rated = yield* sql('queueGet', 'st-wake-rate');
        if (!rated) throw new Error('st-wake-rate was not created');
        yield* sql('queueUpdate', {
          name: 'st-wake-rate', concurrency: null, ratePerSecond: 2, rateBurst: 4, defaultMaxAttempts: rated.defaultMaxAttempts,
          backoffStrategy: rated.defaultBackoff.strategy, backoffBaseMs: rated.defaultBackoff.baseMs, backoffCapMs: rated.defaultBackoff.capMs,
          backoffJitter: rated.defaultBackoff.jitter, defaultTimeoutMs: rated.defaultTimeoutMs, retentionMs: rated.retentionMs,
          limitMemoryBytes: null, limitCpuSeconds: null, limitOpenFiles: null, limitProcesses: null,
          groupConcurrency: null, groupRatePerSecond: null, groupRateBurst: null, groupWeights: null, now,
        });
        yield* sql('queueSetRateState', { name: 'st-wake-rate', tokens: 0.25, refilledAt: now });
        return { due: yield* sql('wakeDueAt', now), limited: yield* sql('wakeRateLimited') };
      });
      // The paused queue's job (due sooner) does not count; the job due now is not in the future.
      assert.equal(found.due, now + 30_000);
      assert.deepEqual(found.limited, [{ name: 'st-wake-rate', rateLimit: { perSecond: 2, burst: 4 }, bucket: { tokens: 0.25, refilledAt: now } }]);
    });
  });
}
