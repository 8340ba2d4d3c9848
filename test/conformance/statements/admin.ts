/**
 * Statement-level conformance of workers, daemons, access tokens and upkeep: each statement of
 * daemon/storage/statements/{workers,daemons,tokens,upkeep}.ts called raw, on every store alike,
 * and the leader lease, which only PostgreSQL keeps (SQLite's daemon is always the leader).
 */
import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import type { WorkerWrite } from '../../../daemon/storage/statements/workers';
import { firstIdAt } from '../../../shared/domain/uuid';
import type { Job } from '../../../shared/protocol/types';
import { assertCountersAgree, enqueueInput, runningJob, statementStore, type StatementStoreFactory } from './harness';

export function defineAdminStatements(factory: StatementStoreFactory): void {
  describe('statements: workers, daemons, tokens, upkeep', () => {
    const store = statementStore(factory);
    let now = 0;
    before(() => {
      now = store().clock.ms;
    });
    // Whatever a test's statements did to jobs, the counters followed.
    afterEach(() => assertCountersAgree(store()));

    it('registers workers, marks them alive or gone, and lists them with their running jobs', async () => {
      const s = store();
      const remote: WorkerWrite = {
        id: 'st-w-remote',
        type: 'remote',
        name: 'laptop',
        host: 'box',
        pid: 42,
        queues: '["st-w-q"]',
        kinds: '["work"]',
        concurrency: 2,
        capacity: 8,
        now,
      };
      const builtin: WorkerWrite = { ...remote, id: 'st-w-builtin', type: 'builtin', name: null, host: null, pid: 7, queues: '[]', kinds: '[]', concurrency: null, capacity: null, now: now + 1 };
      await s.run(function* () {
        yield* sql('workerUpsert', remote);
        yield* sql('workerUpsert', builtin);
      });
      const job = await runningJob(s, 'st-w-q', 'st-w-remote');

      const first = await s.read(function* () {
        return { get: yield* sql('workerGet', 'st-w-remote'), missing: yield* sql('workerGet', 'st-w-none') };
      });
      assert.deepEqual(first.get, {
        id: 'st-w-remote',
        type: 'remote',
        name: 'laptop',
        host: 'box',
        pid: 42,
        queues: ['st-w-q'],
        kinds: ['work'],
        concurrency: 2,
        capacity: 8,
        runningJobIds: [job.id],
        startedAt: now,
        lastHeartbeatAt: now,
        alive: true,
      });
      assert.equal(first.missing, undefined);

      const marks = await s.run(function* () {
        const gone = yield* sql('workerMarkGone', 'st-w-remote');
        const goneMissing = yield* sql('workerMarkGone', 'st-w-none');
        const afterGone = yield* sql('workerGet', 'st-w-remote');
        const list = (yield* sql('workerList')).filter((w) => w.id.startsWith('st-w-')).map((w) => [w.id, w.alive]);
        const touch = yield* sql('workerTouch', { id: 'st-w-remote', now: now + 20 });
        const touchMissing = yield* sql('workerTouch', { id: 'st-w-none', now: now + 20 });
        const afterTouch = yield* sql('workerGet', 'st-w-remote');
        yield* sql('workerMarkGone', 'st-w-remote');
        // Registering again (a reconnect) keeps started_at and marks the worker alive.
        yield* sql('workerUpsert', { ...remote, name: 'laptop-2', capacity: null, now: now + 30 });
        return { gone, goneMissing, afterGone, list, touch, touchMissing, afterTouch, again: yield* sql('workerGet', 'st-w-remote') };
      });
      assert.equal(marks.gone, true);
      assert.equal(marks.goneMissing, false);
      assert.equal(marks.afterGone?.alive, false);
      assert.deepEqual(
        marks.list,
        [
          ['st-w-builtin', true],
          ['st-w-remote', false],
        ],
        'alive ones first',
      );
      assert.equal(marks.touch, true);
      assert.equal(marks.touchMissing, false);
      assert.equal(marks.afterTouch?.alive, true);
      assert.equal(marks.afterTouch?.lastHeartbeatAt, now + 20);
      assert.equal(marks.again?.alive, true);
      assert.equal(marks.again?.startedAt, now);
      assert.equal(marks.again?.lastHeartbeatAt, now + 30);
      assert.equal(marks.again?.name, 'laptop-2');
      assert.equal(marks.again?.capacity, null);

      const executors = await s.run(function* () {
        const list = () => sql('workerList');
        // Another pid (a daemon that took the executor id over) and another type change nothing.
        yield* sql('workerExecutorGone', { id: 'st-w-builtin', pid: 8 });
        yield* sql('workerExecutorGone', { id: 'st-w-remote', pid: 42 });
        const untouched = (yield* list()).filter((w) => w.id.startsWith('st-w-')).map((w) => [w.id, w.alive]);
        yield* sql('workerExecutorGone', { id: 'st-w-builtin', pid: 7 });
        const gone = yield* sql('workerGet', 'st-w-builtin');
        yield* sql('workerExecutorSeen', { id: 'st-w-builtin', pid: 8, now: now + 40 });
        const stillGone = yield* sql('workerGet', 'st-w-builtin');
        yield* sql('workerExecutorSeen', { id: 'st-w-builtin', pid: 7, now: now + 50 });
        return { untouched, gone, stillGone, seen: yield* sql('workerGet', 'st-w-builtin') };
      });
      assert.deepEqual(
        executors.untouched,
        [
          ['st-w-builtin', true],
          ['st-w-remote', true],
        ],
        'newest first among the alive (a reconnect kept the start time)',
      );
      assert.equal(executors.gone?.alive, false);
      assert.equal(executors.stillGone?.alive, false);
      assert.equal(executors.stillGone?.lastHeartbeatAt, now + 1);
      assert.equal(executors.seen?.alive, true);
      assert.equal(executors.seen?.lastHeartbeatAt, now + 50);
      assert.deepEqual(executors.seen?.runningJobIds, []);
    });

    it('records daemons, their heartbeats, stops and removal, and the leader lease', async () => {
      const s = store();
      const registration = { id: 'st-d-1', host: 'box', pid: 100, processStart: '12345', socketPath: '/tmp/spool.sock', executorId: 'st-d-exec-1' };
      const first = await s.run(function* () {
        yield* sql('daemonUpsert', { ...registration, now });
        yield* sql('daemonUpsert', { ...registration, id: 'st-d-2', pid: 200, processStart: null, executorId: 'st-d-exec-2', now: now + 1 });
        return {
          get: yield* sql('daemonGet', 'st-d-1'),
          missing: yield* sql('daemonGet', 'st-d-none'),
          list: (yield* sql('daemonList')).filter((d) => d.id.startsWith('st-d-')).map((d) => d.id),
          heartbeat: yield* sql('daemonHeartbeat', { id: 'st-d-1', now: now + 10 }),
          heartbeatMissing: yield* sql('daemonHeartbeat', { id: 'st-d-none', now: now + 10 }),
          afterHeartbeat: (yield* sql('daemonGet', 'st-d-1'))?.heartbeatAt,
          stop: yield* sql('daemonStop', { id: 'st-d-1', now: now + 20 }),
          stopMissing: yield* sql('daemonStop', { id: 'st-d-none', now: now + 20 }),
          heartbeatStopped: yield* sql('daemonHeartbeat', { id: 'st-d-1', now: now + 30 }),
          stopped: yield* sql('daemonGet', 'st-d-1'),
        };
      });
      assert.deepEqual(first.get, { ...registration, startedAt: now, heartbeatAt: now, stoppedAt: null });
      assert.equal(first.missing, undefined);
      assert.deepEqual(first.list, ['st-d-1', 'st-d-2'], 'oldest first');
      assert.equal(first.heartbeat, 'st-d-exec-1');
      assert.equal(first.heartbeatMissing, undefined);
      assert.equal(first.afterHeartbeat, now + 10);
      assert.equal(first.stop, 'st-d-exec-1');
      assert.equal(first.stopMissing, undefined);
      assert.equal(first.heartbeatStopped, undefined, 'a stopped daemon beats no more');
      assert.deepEqual(first.stopped, { ...registration, startedAt: now, heartbeatAt: now + 20, stoppedAt: now + 20 });

      const replaced = await s.run(function* () {
        // Starting again under the same id replaces what was recorded, stop included.
        yield* sql('daemonUpsert', { ...registration, pid: 101, executorId: 'st-d-exec-1b', now: now + 40 });
        const again = yield* sql('daemonGet', 'st-d-1');
        const deleted = yield* sql('daemonDelete', 'st-d-1');
        const deletedAgain = yield* sql('daemonDelete', 'st-d-1');
        return { again, deleted, deletedAgain, list: (yield* sql('daemonList')).filter((d) => d.id.startsWith('st-d-')).map((d) => d.id) };
      });
      assert.deepEqual(replaced.again, { ...registration, pid: 101, executorId: 'st-d-exec-1b', startedAt: now + 40, heartbeatAt: now + 40, stoppedAt: null });
      assert.equal(replaced.deleted, 'st-d-exec-1b');
      assert.equal(replaced.deletedAgain, undefined);
      assert.deepEqual(replaced.list, ['st-d-2']);

      const hold = (daemonId: string, at: number, ttlMs = 1_000) =>
        s.run(function* () {
          return yield* sql('leaderHold', { role: 'st-role', daemonId, now: at, ttlMs });
        });
      const leases = {
        first: await hold('st-d-1', now),
        other: await hold('st-d-2', now + 500),
        renew: await hold('st-d-1', now + 900),
        otherBeforeExpiry: await hold('st-d-2', now + 1_899),
        otherAtExpiry: await hold('st-d-2', now + 1_900),
        formerHolder: await hold('st-d-1', now + 1_901),
        giveUp: await hold('st-d-2', now + 2_000, 0),
        afterGiveUp: await hold('st-d-1', now + 2_001),
      };
      if (s.kind === 'postgres') {
        assert.deepEqual(leases, {
          first: true,
          other: false,
          renew: true,
          otherBeforeExpiry: false,
          otherAtExpiry: true,
          formerHolder: false,
          giveUp: false,
          afterGiveUp: true,
        });
      } else {
        // SQLite keeps no leader lease: daemons sharing a file serialize on its lock, and each is always the leader.
        assert.deepEqual(Object.values(leases), Object.values(leases).map(() => true));
      }
    });

    it('keeps daemon-wide settings by name: unset, set, replaced, and seen by another transaction', async () => {
      const s = store();
      const now = s.clock.ms;
      const written = await s.run(function* () {
        const unset = yield* sql('settingGet', 'st-setting');
        yield* sql('settingSet', { name: 'st-setting', value: 'true', now });
        const first = yield* sql('settingGet', 'st-setting');
        yield* sql('settingSet', { name: 'st-setting', value: 'false', now: now + 1 });
        return { unset, first };
      });
      assert.deepEqual(written, { unset: undefined, first: 'true' });
      const read = await s.read(function* () {
        return { value: yield* sql('settingGet', 'st-setting'), other: yield* sql('settingGet', 'st-other') };
      });
      assert.deepEqual(read, { value: 'false', other: undefined });
    });

    it('stores access tokens once by name, lists and deletes them', async () => {
      const s = store();
      const token = { name: 'st-tok-b', scope: 'admin' as const, hash: 'ab'.repeat(32), createdAt: now };
      const result = await s.run(function* () {
        return {
          first: yield* sql('tokenInsert', token),
          again: yield* sql('tokenInsert', { ...token, hash: 'cd'.repeat(32) }),
          other: yield* sql('tokenInsert', { ...token, name: 'st-tok-a', scope: 'read', hash: 'ef'.repeat(32) }),
          list: (yield* sql('tokenList')).filter((t) => t.name.startsWith('st-tok-')),
          deleted: yield* sql('tokenDelete', 'st-tok-a'),
          deletedAgain: yield* sql('tokenDelete', 'st-tok-a'),
          after: (yield* sql('tokenList')).filter((t) => t.name.startsWith('st-tok-')).map((t) => t.name),
        };
      });
      assert.deepEqual(result, {
        first: true,
        again: false,
        other: true,
        list: [{ ...token, name: 'st-tok-a', scope: 'read', hash: 'ef'.repeat(32) }, token],
        deleted: true,
        deletedAgain: false,
        after: ['st-tok-b'],
      });
    });

    it('counts finished attempts by time, prunes them, checks the counters and deletes expired jobs', async () => {
      const s = store();
      // Far from the clock of the other tests, so that only this test's figures are in the window.
      const at = now + 10 * 24 * 3_600_000;
      const stats = await s.run(function* () {
        const empty = yield* sql('statsFinishedSince', { now: at, windowMs: 60_000 });
        yield* sql('statsCountFinished', { outcome: 'failed', now: at - 5_000, n: 3 });
        yield* sql('statsCountFinished', { outcome: 'completed', now: at - 30_000, n: 2 });
        yield* sql('statsCountFinished', { outcome: 'completed', now: at - 120_000, n: 5 });
        yield* sql('statsCountFinished', { outcome: 'failed', now: at, n: 0 });
        // Counted within the transaction too (SQLite counts in memory until its commit).
        return { empty, within: yield* sql('statsFinishedSince', { now: at, windowMs: 60_000 }) };
      });
      assert.deepEqual(stats, { empty: { completed: 0, failed: 0 }, within: { completed: 2, failed: 3 } });
      const windows = await s.run(function* () {
        const minute = yield* sql('statsFinishedSince', { now: at, windowMs: 60_000 });
        const hour = yield* sql('statsFinishedSince', { now: at, windowMs: 3_600_000 });
        yield* sql('statsPrune', at - 60_000);
        return { minute, hour, pruned: yield* sql('statsFinishedSince', { now: at, windowMs: 3_600_000 }) };
      });
      assert.deepEqual(windows, { minute: { completed: 2, failed: 3 }, hour: { completed: 7, failed: 3 }, pruned: { completed: 2, failed: 3 } });

      const queue = 'st-up-q';
      const done = await runningJob(s, queue, 'w1');
      const waiting: Job[] = [];
      for (let i = 0; i < 4; i += 1) waiting.push((await s.enqueue(enqueueInput(queue))).job);
      const counters = await s.run(function* () {
        for (const job of waiting.slice(0, 3)) yield* sql('jobCancelWaiting', { id: job.id, from: 'queued', now: now + 10 });
        yield* sql('jobComplete', { id: done.id, workerId: 'w1', result: null, now: now + 10 });
        const recount = (yield* sql('counterRecount')).filter((r) => r.queue === queue);
        return { all: (yield* sql('counterAll')).get(queue), recount: Object.fromEntries(recount.map((r) => [r.state, r.count])) };
      });
      assert.deepEqual(counters.all, { blocked: 0, queued: 1, running: 0, retrying: 0, held: 0, completed: 1, dead: 0, cancelled: 3 });
      assert.deepEqual(counters.recount, { queued: 1, completed: 1, cancelled: 3 }, 'the full scan agrees with the counters');

      const retention = await s.run(function* () {
        const expire = (cutoff: number, limit: number) => sql('jobDeleteExpired', { queue, cutoff, beforeId: firstIdAt(cutoff), limit });
        return {
          // finished_at is now + 10: a cutoff at it deletes nothing (finished before the cutoff only).
          notYet: yield* expire(now + 10, 10),
          // Jobs created after the cutoff's first id are not looked at, however long finished.
          tooNew: yield* sql('jobDeleteExpired', { queue, cutoff: now + 11, beforeId: firstIdAt(now - 1), limit: 10 }),
          otherQueue: yield* sql('jobDeleteExpired', { queue: 'st-up-none', cutoff: now + 11, beforeId: firstIdAt(now + 11), limit: 10 }),
          first: yield* expire(now + 11, 3),
          second: yield* expire(now + 11, 3),
          third: yield* expire(now + 11, 3),
          left: yield* sql('queueJobsLeft', queue),
          counts: yield* sql('queueCounts', queue),
        };
      });
      assert.deepEqual(retention, {
        notYet: 0,
        tooNew: 0,
        otherQueue: 0,
        first: 3,
        second: 1,
        third: 0,
        left: { running: 0, total: 1 },
        counts: { blocked: 0, queued: 1, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 },
      });

      // Within one finished state, the oldest go first. Across states the stores differ, and
      // neither is oldest first: SQLite walks its index's states in its own order (cancelled
      // before completed), PostgreSQL takes completed, dead, then cancelled. A batch short of the
      // limit may so keep an older job of another state than the other store would; retention
      // runs batches until one comes back short, so the same jobs go in the end, and only that
      // (above) is held alike.
      const cancelled: Job[] = [];
      for (let i = 0; i < 3; i += 1) cancelled.push((await s.enqueue(enqueueInput('st-up-order'))).job);
      const oldestFirst = await s.run(function* () {
        for (const job of cancelled) yield* sql('jobCancelWaiting', { id: job.id, from: 'queued', now: now + 10 });
        const deleted = yield* sql('jobDeleteExpired', { queue: 'st-up-order', cutoff: now + 11, beforeId: firstIdAt(now + 11), limit: 2 });
        const left = [];
        for (const job of cancelled) if ((yield* sql('jobGet', job.id)) !== undefined) left.push(job.id);
        return { deleted, left };
      });
      assert.deepEqual(oldestFirst, { deleted: 2, left: [cancelled[2]?.id] });
    });
  });
}
