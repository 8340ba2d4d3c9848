/**
 * Statement-level conformance of expiry and a queue's retry policy: each statement of
 * daemon/storage/statements/expiry.ts, and queueSetRetryPolicy, called raw on every store alike,
 * with the claim statements' refusal of a job past its expiry.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { assertCountersAgree, enqueueInput, statementStore, type StatementStoreFactory } from './harness';

export function defineExpiryStatements(factory: StatementStoreFactory): void {
  describe('statements: expiry and retry policy', () => {
    const store = statementStore(factory);
    afterEach(() => assertCountersAgree(store()));

    it('finds waiting jobs past their expiry soonest first, ends one dead, and gives the next expiry; the claim skips them', async () => {
      const s = store();
      const now = s.clock.ms;
      const soon = (await s.enqueue(enqueueInput('st-ex', { expireAfterMs: 100 }))).job;
      const later = (await s.enqueue(enqueueInput('st-ex', { expireAfterMs: 300 }))).job;
      const never = (await s.enqueue(enqueueInput('st-ex'))).job;
      assert.equal(soon.expiresAt, now + 100);
      // jobExpiredWaiting locks what it finds (PostgreSQL: FOR UPDATE), so it runs in a write transaction.
      const before = await s.run(function* () {
        return { next: yield* sql('jobNextExpiry', now), none: yield* sql('jobExpiredWaiting', { now, limit: 10 }) };
      });
      assert.equal(before.next, now + 100);
      assert.deepEqual(before.none, []);

      const at = now + 300;
      const found = await s.run(function* () {
        return {
          all: yield* sql('jobExpiredWaiting', { now: at, limit: 10 }),
          one: yield* sql('jobExpiredWaiting', { now: at, limit: 1 }),
          next: yield* sql('jobNextExpiry', at),
        };
      });
      assert.deepEqual(found.all.map((j) => j.id), [soon.id, later.id]);
      assert.deepEqual(found.one.map((j) => j.id), [soon.id]);
      assert.equal(found.next, null);

      // Past both expiries, the claim takes only the job without one.
      s.clock.advance(300);
      const claimed = await s.claim({ workerId: 'st-ex-w', queues: ['st-ex'], max: 10, kinds: { exclude: [] } });
      assert.deepEqual(claimed.map((j) => j.id), [never.id]);
      assert.equal(claimed[0]?.expiresAt, null);

      const ended = await s.run(function* () {
        return {
          dead: yield* sql('jobExpire', { id: soon.id, from: 'queued', now: at, reason: 'expired before it started' }),
          again: yield* sql('jobExpire', { id: soon.id, from: 'dead', now: at, reason: 'again' }),
          running: yield* sql('jobExpire', { id: never.id, from: 'running', now: at, reason: 'no' }),
        };
      });
      assert.equal(ended.dead?.state, 'dead');
      assert.equal(ended.dead?.lastError, 'expired before it started');
      assert.equal(ended.dead?.finishedAt, at);
      assert.equal(ended.dead?.expiresAt, null);
      assert.equal(ended.again, undefined);
      assert.equal(ended.running, undefined);
      const left = await s.run(function* () {
        return yield* sql('jobExpiredWaiting', { now: at, limit: 10 });
      });
      assert.deepEqual(left.map((j) => j.id), [later.id]);
    });

    it("writes a queue's retry rule and default expiry, which its settings then read", async () => {
      const s = store();
      const now = s.clock.ms;
      await s.enqueue(enqueueInput('st-rp'));
      const read = await s.run(function* () {
        yield* sql('queueSetRetryPolicy', { name: 'st-rp', retryRule: '{"never":{"exitCodes":[2]}}', defaultExpireAfterMs: 5000, now });
        const set = yield* sql('queueGet', 'st-rp');
        yield* sql('queueSetRetryPolicy', { name: 'st-rp', retryRule: null, defaultExpireAfterMs: null, now });
        return { set, cleared: yield* sql('queueGet', 'st-rp') };
      });
      assert.deepEqual(read.set?.retry, { never: { exitCodes: [2] } });
      assert.equal(read.set?.defaultExpireAfterMs, 5000);
      assert.equal(read.cleared?.retry, undefined, 'a queue without a rule reads as before');
      assert.equal(read.cleared?.defaultExpireAfterMs, undefined);
    });
  });
}
