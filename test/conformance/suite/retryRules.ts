import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJobsFile, planChanges } from '../../../shared/jobsfile';
import { makeEngine, type TestStoreFactory } from '../harness';

const FIXED = { strategy: 'fixed', baseMs: 1000, capMs: 1000, jitter: 0 } as const;

/** Retry rules, retryAt and snooze, expiry and deadlines, run against the store `store` makes. */
export function defineRetryRules(store: TestStoreFactory): void {
  test('a retry rule retries the exit code it names and makes the one it never retries final, with the reason in the error', async (t) => {
    const { engine } = makeEngine(t, store);
    const retry = { on: { exitCodes: [75] }, never: { exitCodes: [2] } };
    const a = (await engine.enqueue({ queue: 'rr', kind: 'k', maxAttempts: 5, backoff: FIXED, retry })).job;
    assert.deepEqual(a.retry, retry);
    await engine.claim({ workerId: 'w' });
    const retried = await engine.fail({ id: a.id, workerId: 'w', error: 'temporary failure', exitCode: 75 });
    assert.equal(retried.state, 'retrying');
    assert.equal(retried.lastError, 'temporary failure');

    const b = (await engine.enqueue({ queue: 'rr', kind: 'k', maxAttempts: 5, backoff: FIXED, retry, priority: 9 })).job;
    const [claimed] = await engine.claim({ workerId: 'w' });
    assert.equal(claimed?.id, b.id);
    const dead = await engine.fail({ id: b.id, workerId: 'w', error: 'usage: bad flag', exitCode: 2 });
    assert.equal(dead.state, 'dead');
    assert.equal(dead.attempts, 1, 'four attempts were left');
    assert.match(dead.lastError ?? '', /^usage: bad flag \(not retried: the retry rule never retries exit code 2\)$/);
    const runs = (await engine.getJob(b.id)).runs;
    assert.equal(runs[0]?.error, 'usage: bad flag', "the run keeps the worker's own error");
  });

  test('never beats on, and with on given a failure it does not name is final; without a rule every failure is retried', async (t) => {
    const { engine } = makeEngine(t, store);
    const cases: { retry?: object; failure: { exitCode?: number; httpStatus?: number; error: string }; state: string }[] = [
      { retry: { on: { exitCodes: [1] }, never: { exitCodes: [1] } }, failure: { exitCode: 1, error: 'x' }, state: 'dead' },
      { retry: { on: { exitCodes: [75] } }, failure: { exitCode: 1, error: 'x' }, state: 'dead' },
      { retry: { on: { httpStatus: [502, 503] } }, failure: { httpStatus: 503, error: 'HTTP 503' }, state: 'retrying' },
      { retry: { never: { httpStatus: [400, 422] } }, failure: { httpStatus: 422, error: 'HTTP 422' }, state: 'dead' },
      { retry: { never: { httpStatus: [400, 422] } }, failure: { httpStatus: 500, error: 'HTTP 500' }, state: 'retrying' },
      { retry: { on: { errors: ['Timeout*'] } }, failure: { error: 'Timeout after 30s\nat line 2' }, state: 'retrying' },
      { retry: { on: { errors: ['Timeout*'] } }, failure: { error: 'Error: Timeout after 30s' }, state: 'dead' },
      { retry: { never: { errors: ['*bad ?equest*'] } }, failure: { error: 'HTTP 400: bad Request body' }, state: 'dead' },
      { failure: { exitCode: 2, error: 'x' }, state: 'retrying' },
    ];
    for (const [i, c] of cases.entries()) {
      const { job } = await engine.enqueue({ queue: `rr-${i}`, kind: 'k', maxAttempts: 3, backoff: FIXED, ...(c.retry ? { retry: c.retry } : {}) });
      await engine.claim({ workerId: 'w', queues: [`rr-${i}`] });
      const after = await engine.fail({ id: job.id, workerId: 'w', ...c.failure });
      assert.equal(after.state, c.state, `case ${i}: ${JSON.stringify(c)}`);
    }
  });

  test("a queue's retry rule and expiry reach its jobs; a job's own rule replaces the queue's, and null clears it", async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const queue = await engine.configureQueue({ name: 'qr', retry: { never: { exitCodes: [2] } }, defaultExpireAfterMs: 60_000 });
    assert.deepEqual(queue.retry, { never: { exitCodes: [2] } });
    assert.equal(queue.defaultExpireAfterMs, 60_000);
    const plain = (await engine.enqueue({ queue: 'qr', kind: 'k' })).job;
    assert.deepEqual(plain.retry, { never: { exitCodes: [2] } });
    assert.equal(plain.expiresAt, clock.ms + 60_000);
    const own = (await engine.enqueue({ queue: 'qr', kind: 'k', retry: { on: { exitCodes: [75] } }, expireAfterMs: 5000 })).job;
    assert.deepEqual(own.retry, { on: { exitCodes: [75] } }, 'replaced whole, not merged');
    assert.equal(own.expiresAt, clock.ms + 5000);
    const none = (await engine.enqueue({ queue: 'qr', kind: 'k', retry: null })).job;
    assert.equal(none.retry, null);
    assert.deepEqual((await engine.getJob(own.id)).job.retry, { on: { exitCodes: [75] } }, 'as stored');
    // Other settings are left as they are; null removes the rule and the expiry.
    const cleared = await engine.configureQueue({ name: 'qr', concurrency: 3, retry: null, defaultExpireAfterMs: null });
    assert.equal(cleared.retry ?? null, null);
    assert.equal(cleared.defaultExpireAfterMs ?? null, null);
    assert.equal(cleared.concurrency, 3);
    const kept = await engine.configureQueue({ name: 'qr', retry: { never: { exitCodes: [3] } } });
    assert.equal(kept.concurrency, 3);
    assert.deepEqual(kept.retry, { never: { exitCodes: [3] } });
  });

  test('a job not started within its expiry is never claimed, and the upkeep ends it dead with the reason', async (t) => {
    const { engine, clock, openShared } = makeEngine(t, store);
    const other = openShared();
    const expiring = (await engine.enqueue({ queue: 'ex', kind: 'k', expireAfterMs: 10_000, priority: 5 })).job;
    const later = (await engine.enqueue({ queue: 'ex', kind: 'k' })).job;
    assert.equal(expiring.expiresAt, clock.ms + 10_000);
    assert.equal(await engine.nextWakeAt(), clock.ms + 10_000, 'the upkeep wakes at the expiry');
    clock.advance(10_000);
    // Past its expiry, before any upkeep: no claim on either daemon starts it.
    const claimed = await other.claim({ workerId: 'w', max: 10 });
    assert.deepEqual(claimed.map((j) => j.id), [later.id]);
    assert.equal(await engine.expireWaiting(), 1);
    const dead = (await engine.getJob(expiring.id)).job;
    assert.equal(dead.state, 'dead');
    assert.equal(dead.lastError, 'expired before it started');
    assert.equal(dead.finishedAt, clock.ms);
    assert.equal(dead.attempts, 0);
    assert.equal(dead.expiresAt, null);
    assert.equal(await engine.expireWaiting(), 0);
    // A user's retry runs it again, with no expiry left to stop it.
    await engine.retry(expiring.id);
    assert.deepEqual((await engine.claim({ workerId: 'w' })).map((j) => j.id), [expiring.id]);
    const counts = (await engine.stats()).queues.find((q) => q.name === 'ex')?.counts;
    assert.equal(counts?.running, 2);
    assert.equal(counts?.dead, 0);
  });

  test('a job that started before its expiry is retried after it, and a blocked job that expires settles its dependents', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const started = (await engine.enqueue({ queue: 'ex2', kind: 'k', expireAfterMs: 1000, maxAttempts: 3, backoff: FIXED })).job;
    const [claimed] = await engine.claim({ workerId: 'w' });
    assert.equal(claimed?.id, started.id);
    assert.equal(claimed?.expiresAt, null, 'the claim that starts it clears its expiry');
    clock.advance(5000);
    await engine.fail({ id: started.id, workerId: 'w', error: 'once' });
    clock.advance(1000);
    assert.equal(await engine.expireWaiting(), 0);
    assert.deepEqual((await engine.claim({ workerId: 'w' })).map((j) => j.id), [started.id]);

    const first = (await engine.enqueue({ queue: 'ex3', kind: 'k' })).job;
    const blocked = (await engine.enqueue({ queue: 'ex3', kind: 'k', dependsOn: [first.id], expireAfterMs: 1000 })).job;
    const after = (await engine.enqueue({ queue: 'ex3', kind: 'k', dependsOn: [blocked.id] })).job;
    assert.equal(blocked.state, 'blocked');
    clock.advance(1000);
    assert.equal(await engine.expireWaiting(), 1);
    assert.equal((await engine.getJob(blocked.id)).job.state, 'dead');
    assert.equal((await engine.getJob(after.id)).job.state, 'cancelled', 'its dependent cannot run after it');
  });

  test('no retry is made after the deadline: a failure past it, or whose next attempt would start past it, is final', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'dl', kind: 'k', maxAttempts: 10, backoff: FIXED, deadlineMs: 5000 });
    assert.equal(job.deadlineAt, clock.ms + 5000);
    await engine.claim({ workerId: 'w' });
    assert.equal((await engine.fail({ id: job.id, workerId: 'w', error: 'first' })).state, 'retrying');
    clock.advance(3500);
    await engine.claim({ workerId: 'w' });
    // Now + 1 s backoff = 4.5 s: before the deadline.
    assert.equal((await engine.fail({ id: job.id, workerId: 'w', error: 'second' })).state, 'retrying');
    clock.advance(1000);
    await engine.claim({ workerId: 'w' });
    const dead = await engine.fail({ id: job.id, workerId: 'w', error: 'third' });
    assert.equal(dead.state, 'dead');
    assert.match(dead.lastError ?? '', /^third \(not retried: its next attempt would start after its deadline \(.*\)\)$/);

    const at = clock.ms + 2000;
    const past = (await engine.enqueue({ queue: 'dl2', kind: 'k', maxAttempts: 10, backoff: { ...FIXED, baseMs: 0, capMs: 0 }, deadlineAt: at })).job;
    assert.equal(past.deadlineAt, at);
    await engine.claim({ workerId: 'w', queues: ['dl2'] });
    clock.advance(2000);
    const final = await engine.fail({ id: past.id, workerId: 'w', error: 'late' });
    assert.equal(final.state, 'dead');
    assert.match(final.lastError ?? '', /^late \(not retried: its deadline \(.*\) has passed\)$/);
  });

  test('a failure with retryAt runs again then, using up the attempt; a snooze runs again later without using one', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'sn', kind: 'k', maxAttempts: 2, backoff: FIXED });
    await engine.claim({ workerId: 'w' });
    const retryAt = clock.ms + 60_000;
    const failed = await engine.fail({ id: job.id, workerId: 'w', error: 'rate limited', retryAt });
    assert.equal(failed.state, 'retrying');
    assert.equal(failed.runAt, retryAt);
    assert.equal(failed.attempts, 1);
    clock.advance(59_999);
    assert.deepEqual(await engine.claim({ workerId: 'w' }), []);
    clock.advance(1);
    const [again] = await engine.claim({ workerId: 'w' });
    assert.equal(again?.attempts, 2);

    const snoozed = await engine.snooze({ id: job.id, workerId: 'w', delayMs: 30_000 });
    assert.equal(snoozed.state, 'retrying');
    assert.equal(snoozed.attempts, 1, 'the attempt is given back');
    assert.equal(snoozed.runAt, clock.ms + 30_000);
    assert.equal(await engine.nextWakeAt(), clock.ms + 30_000);
    clock.advance(29_999);
    assert.deepEqual(await engine.claim({ workerId: 'w' }), []);
    clock.advance(1);
    const [third] = await engine.claim({ workerId: 'w' });
    assert.equal(third?.attempts, 2, 'the snooze used no attempt: this is still the second');
    const runAt = clock.ms + 5000;
    const until = await engine.snooze({ id: job.id, workerId: 'w', runAt });
    assert.equal(until.runAt, runAt);
    const runs = (await engine.getJob(job.id)).runs;
    assert.deepEqual(runs.map((r) => r.outcome), ['failed', 'interrupted', 'interrupted']);
    assert.match(runs[1]?.error ?? '', /^snoozed by its worker until /);
  });

  test('retry rules, retryAt, snooze, expiry and deadline are refused with the field named when malformed', async (t) => {
    const { engine } = makeEngine(t, store);
    const refused = async (p: Promise<unknown>, field: string): Promise<void> => {
      await assert.rejects(p, (e: { data?: { field?: string } }) => e.data?.field === field, `expected a refusal naming ${field}`);
    };
    await refused(engine.enqueue({ queue: 'v', kind: 'k', retry: { on: { exitCodes: ['75'] } } } as never), 'retry.on.exitCodes[0]');
    await refused(engine.enqueue({ queue: 'v', kind: 'k', retry: { sometimes: {} } } as never), 'retry.sometimes');
    await refused(engine.enqueue({ queue: 'v', kind: 'k', retry: {} }), 'retry');
    await refused(engine.enqueue({ queue: 'v', kind: 'k', retry: { never: { httpStatus: [42] } } }), 'retry.never.httpStatus[0]');
    await refused(engine.enqueue({ queue: 'v', kind: 'k', expireAfterMs: 0 }), 'expireAfterMs');
    await refused(engine.enqueue({ queue: 'v', kind: 'k', deadlineAt: 1, deadlineMs: 1 }), 'deadlineAt');
    await refused(engine.configureQueue({ name: 'v', defaultExpireAfterMs: -1 }), 'defaultExpireAfterMs');
    const { job } = await engine.enqueue({ queue: 'v', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    await refused(engine.fail({ id: job.id, workerId: 'w', error: 'x', retryAt: 5, permanent: true }), 'retryAt');
    await refused(engine.snooze({ id: job.id, workerId: 'w' }), 'delayMs');
    await refused(engine.snooze({ id: job.id, workerId: 'w', delayMs: 1, runAt: 5 }), 'delayMs');
  });

  test("spool.jsonc's queue retry rule and expireAfter are applied, and the next plan is unchanged", async (t) => {
    const { engine } = makeEngine(t, store);
    const parsed = parseJobsFile('{ "project": "web", "queues": { "sync": { "retry": { "on": { "exitCodes": [75] } }, "expireAfter": "1h" } } }');
    assert.ok(parsed.declaration !== null, JSON.stringify(parsed.problems));
    const first = await engine.applyProject({ project: 'web', file: parsed.declaration });
    assert.equal(first.applied, true);
    const queue = await engine.getQueue('sync');
    assert.deepEqual(queue.retry, { on: { exitCodes: [75] } });
    assert.equal(queue.defaultExpireAfterMs, 3_600_000);
    const plan = planChanges(parsed.declaration, await engine.projectState({ project: 'web' }));
    assert.deepEqual(plan.changes.map((c) => c.action), ['unchanged']);
  });
}
