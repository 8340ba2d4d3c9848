/**
 * Statement-level conformance of schedules and jobs as code: each statement of
 * daemon/storage/statements/{schedules,projects}.ts called raw, on every store alike, with the
 * owner an ownership record joins into a schedule or queue, and the records that go with a
 * deleted object.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import type { ScheduleWrite } from '../../../daemon/storage/statements/schedules';
import { concurrently, statementStore, type StatementStoreFactory } from './harness';

export function defineScheduleStatements(factory: StatementStoreFactory): void {
  describe('statements: schedules and projects', () => {
    const store = statementStore(factory);
    let now = 0;
    before(() => {
      now = store().clock.ms;
    });

    it('inserts, reads, rewrites and deletes a schedule, with its owner joined in', async () => {
      const s = store();
      const write: ScheduleWrite = {
        name: 'st-sched-b',
        cron: '*/5 * * * *',
        timezone: 'UTC',
        queue: 'st-sched-q',
        job: '{"kind":"tick","payload":{"n":1}}',
        enabled: 1,
        missedPolicy: 'skip',
        nextRunAt: now + 300_000,
        now,
        overlapPolicy: 'allow',
        template: null,
        params: null,
        workflow: null,
      };
      const inserted = await s.run(function* () {
        return {
          first: yield* sql('scheduleInsert', write),
          again: yield* sql('scheduleInsert', { ...write, cron: '0 * * * *', now: now + 1 }),
          other: yield* sql('scheduleInsert', { ...write, name: 'st-sched-a', enabled: 0, nextRunAt: null }),
          get: yield* sql('scheduleGet', 'st-sched-b'),
          forUpdate: yield* sql('scheduleGetForUpdate', 'st-sched-b'),
          missing: yield* sql('scheduleGet', 'st-sched-none'),
          missingForUpdate: yield* sql('scheduleGetForUpdate', 'st-sched-none'),
          list: (yield* sql('scheduleList')).filter((x) => x.name.startsWith('st-sched-')),
        };
      });
      const expected = {
        name: 'st-sched-b',
        cron: '*/5 * * * *',
        timezone: 'UTC',
        queue: 'st-sched-q',
        job: '{"kind":"tick","payload":{"n":1}}',
        enabled: true,
        missedPolicy: 'skip',
        overlapPolicy: 'allow',
        nextRunAt: now + 300_000,
        lastRunAt: null,
        lastJobId: null,
        createdAt: now,
        updatedAt: now,
      };
      assert.equal(inserted.first, true);
      assert.equal(inserted.again, false, 'a name taken is refused, and the schedule kept');
      assert.equal(inserted.other, true);
      assert.deepEqual(inserted.get, expected);
      // SQLite reads without a row lock (BEGIN IMMEDIATE holds the file's write lock); the row is the same.
      assert.deepEqual(inserted.forUpdate, expected);
      assert.equal(inserted.missing, undefined);
      assert.equal(inserted.missingForUpdate, undefined);
      assert.deepEqual(
        inserted.list.map((x) => [x.name, x.enabled, x.nextRunAt]),
        [
          ['st-sched-a', false, null],
          ['st-sched-b', true, now + 300_000],
        ],
        'by name',
      );

      const rewritten = await s.run(function* () {
        yield* sql('scheduleUpdate', {
          ...write,
          cron: '0 3 * * *',
          timezone: 'Europe/Paris',
          enabled: 0,
          missedPolicy: 'runOnce',
          nextRunAt: null,
          now: now + 10,
          overlapPolicy: 'skip',
          template: 'nightly',
          params: '{"env":"prod"}',
        });
        yield* sql('ownerPut', { type: 'schedule', name: 'st-sched-b', project: 'st-project', applied: '{"cron":"0 3 * * *"}', now: now + 10 });
        return yield* sql('scheduleGet', 'st-sched-b');
      });
      assert.deepEqual(rewritten, {
        ...expected,
        cron: '0 3 * * *',
        timezone: 'Europe/Paris',
        enabled: false,
        missedPolicy: 'runOnce',
        overlapPolicy: 'skip',
        nextRunAt: null,
        updatedAt: now + 10,
        owner: 'st-project',
        template: 'nightly',
        params: { env: 'prod' },
      });

      // Read-modify-writes under scheduleGetForUpdate do not lose one another's writes (the
      // tick of another daemon waits for the lock, then sees what this one wrote).
      const increments = await concurrently(s, 4, function* () {
        const locked = (yield* sql('scheduleGetForUpdate', 'st-sched-a')) ?? assert.fail('the schedule is there');
        const count = Number(JSON.parse(locked.job).payload.n);
        yield* sql('scheduleUpdate', { ...write, name: 'st-sched-a', enabled: 0, nextRunAt: null, job: JSON.stringify({ kind: 'tick', payload: { n: count + 1 } }), now: now + 20 });
      });
      const incremented = await s.read(function* () {
        return yield* sql('scheduleGet', 'st-sched-a');
      });
      assert.equal(incremented?.job, JSON.stringify({ kind: 'tick', payload: { n: 1 + increments } }));

      const deleted = await s.run(function* () {
        const first = yield* sql('scheduleDelete', 'st-sched-b');
        const second = yield* sql('scheduleDelete', 'st-sched-b');
        // PostgreSQL prunes its fire records; SQLite keeps none (its compare-and-swap alone makes a fire happen once).
        yield* sql('scheduleFiresPrune', { olderThan: now + 1_000_000, limit: 100 });
        return {
          first,
          second,
          get: yield* sql('scheduleGet', 'st-sched-b'),
          owners: (yield* sql('ownerList')).filter((o) => o.name === 'st-sched-b'),
          list: (yield* sql('scheduleList')).map((x) => x.name).filter((n) => n.startsWith('st-sched-')),
        };
      });
      assert.deepEqual(deleted, { first: true, second: false, get: undefined, owners: [], list: ['st-sched-a'] }, 'its ownership record went with it');
    });

    it('writes the workflow a schedule starts, and records the run it started last', async () => {
      const s = store();
      const write: ScheduleWrite = {
        name: 'st-wf-sched',
        cron: '0 * * * *',
        timezone: 'UTC',
        queue: '',
        job: '{"kind":"workflow"}',
        enabled: 1,
        missedPolicy: 'skip',
        nextRunAt: now + 3_600_000,
        now,
        overlapPolicy: 'skip',
        template: null,
        params: '{"version":"1.2"}',
        workflow: 'st-release',
      };
      const read = await s.run(function* () {
        yield* sql('scheduleInsert', write);
        const inserted = yield* sql('scheduleGet', 'st-wf-sched');
        yield* sql('scheduleSetLastRun', { name: 'st-wf-sched', runId: 'st-run-1' });
        const afterRun = yield* sql('scheduleGetForUpdate', 'st-wf-sched');
        yield* sql('scheduleUpdate', { ...write, workflow: 'st-other', now: now + 1 });
        const renamed = yield* sql('scheduleGet', 'st-wf-sched');
        yield* sql('scheduleUpdate', { ...write, workflow: null, template: 'st-tpl', now: now + 2 });
        const plain = yield* sql('scheduleGet', 'st-wf-sched');
        yield* sql('scheduleDelete', 'st-wf-sched');
        return { inserted, afterRun, renamed, plain };
      });
      assert.deepEqual([read.inserted?.workflow, read.inserted?.lastRunId, read.inserted?.params, read.inserted?.template], ['st-release', null, { version: '1.2' }, undefined]);
      assert.deepEqual([read.afterRun?.workflow, read.afterRun?.lastRunId, read.afterRun?.lastJobId], ['st-release', 'st-run-1', null]);
      assert.deepEqual([read.renamed?.workflow, read.renamed?.lastRunId], ['st-other', 'st-run-1'], 'an update keeps the last run');
      assert.deepEqual([read.plain?.workflow, read.plain?.lastRunId, read.plain?.template], [undefined, undefined, 'st-tpl'], 'a schedule without a workflow has neither');
    });

    it('puts, reads and deletes templates, records owners, and takes the apply lock', async () => {
      const s = store();
      const written = await s.run(function* () {
        // The lock is held to the end of the transaction; taking it again in it does not wait
        // (PostgreSQL: an advisory lock of the same session; SQLite takes none).
        yield* sql('projectLockApply');
        yield* sql('projectLockApply');
        yield* sql('templatePut', { name: 'st-tpl-b', queue: 'st-tpl-q', kind: 'build', body: '{"payload":{}}', now });
        yield* sql('templatePut', { name: 'st-tpl-a', queue: 'st-tpl-q', kind: 'test', body: '{}', now });
        yield* sql('templatePut', { name: 'st-tpl-b', queue: 'st-tpl-q2', kind: 'deploy', body: '{"payload":{"x":1}}', now: now + 5 });
        yield* sql('queueCreate', {
          name: 'st-tpl-q',
          defaults: { concurrency: null, maxAttempts: 3, backoff: { strategy: 'fixed', baseMs: 1, capMs: 1, jitter: 0 }, timeoutMs: 1_000, retentionMs: null },
          now,
        });
        yield* sql('ownerPut', { type: 'template', name: 'st-tpl-b', project: 'st-proj', applied: '{"v":1}', now });
        yield* sql('ownerPut', { type: 'queue', name: 'st-tpl-q', project: 'st-proj', applied: '{"q":1}', now });
        yield* sql('ownerPut', { type: 'template', name: 'st-tpl-b', project: 'st-proj2', applied: '{"v":2}', now: now + 6 });
        return {
          get: yield* sql('templateGet', 'st-tpl-b'),
          missing: yield* sql('templateGet', 'st-tpl-none'),
          list: (yield* sql('templateList')).filter((x) => x.name.startsWith('st-tpl-')),
          owners: (yield* sql('ownerList')).filter((o) => o.name.startsWith('st-tpl-')),
          // The owner is joined into the queue's settings at once (SQLite drops its cached settings).
          queueOwner: (yield* sql('queueGet', 'st-tpl-q'))?.owner,
        };
      });
      assert.deepEqual(written.get, { name: 'st-tpl-b', queue: 'st-tpl-q2', kind: 'deploy', body: '{"payload":{"x":1}}', createdAt: now, updatedAt: now + 5 }, 'a put rewrites all but its creation time');
      assert.equal(written.missing, undefined);
      assert.deepEqual(
        written.list.map((x) => x.name),
        ['st-tpl-a', 'st-tpl-b'],
        'by name',
      );
      assert.deepEqual(
        written.owners,
        [
          { type: 'queue', name: 'st-tpl-q', project: 'st-proj', applied: '{"q":1}', appliedAt: now },
          { type: 'template', name: 'st-tpl-b', project: 'st-proj2', applied: '{"v":2}', appliedAt: now + 6 },
        ],
        'by type and name; a second put rewrites the record',
      );
      assert.equal(written.queueOwner, 'st-proj');

      const deleted = await s.run(function* () {
        yield* sql('projectLockApply');
        return {
          first: yield* sql('templateDelete', 'st-tpl-b'),
          second: yield* sql('templateDelete', 'st-tpl-b'),
          list: (yield* sql('templateList')).map((x) => x.name).filter((n) => n.startsWith('st-tpl-')),
          owners: (yield* sql('ownerList')).filter((o) => o.name.startsWith('st-tpl-')).map((o) => `${o.type}:${o.name}`),
        };
      });
      assert.deepEqual(deleted, { first: true, second: false, list: ['st-tpl-a'], owners: ['queue:st-tpl-q'] }, "the template's ownership record went with it");

      // Applies that read, then write what they read plus one: with the lock, each reads what the
      // one before committed (PostgreSQL: the second waits for the first's commit; SQLite: the
      // write lock of BEGIN IMMEDIATE), so none is lost.
      const increment = () =>
        s.run(function* () {
          yield* sql('projectLockApply');
          const stored = yield* sql('templateGet', 'st-tpl-counter');
          const body = String(Number(stored?.body ?? '0') + 1);
          yield* sql('templatePut', { name: 'st-tpl-counter', queue: 'st-tpl-q', kind: 'count', body, now });
        });
      await Promise.all([increment(), increment(), increment(), increment()]);
      const counted = await s.read(function* () {
        return yield* sql('templateGet', 'st-tpl-counter');
      });
      assert.equal(counted?.body, '4');
    });
  });
}
