/**
 * The operator's controls on a job that has not started: editing it (jobs.update, each field and
 * the refusals), running it now, holding and releasing it, singly and in bulk by filter across
 * queues, and how schedules, workflows' dependencies and retention treat a held job.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { parseJobsFile } from '../../../shared/jobsfile';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const HOUR = 3_600_000;
const FIXED = { strategy: 'fixed' as const, baseMs: 60_000, jitter: 0 };

/** The operator's controls, run against the store `store` makes. */
export function defineOperator(store: TestStoreFactory): void {
  test('edit: a waiting shell job takes a new command, env, cwd, timeout, priority, run time, attempts and tags', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'shell', payload: 'make build', delayMs: HOUR });
    const edited = await engine.update({ id: job.id, command: 'make test', env: { CI: '1' }, cwd: '/tmp', timeoutMs: 30_000, priority: 5, delayMs: 1000, maxAttempts: 3, tags: ['x'] });
    assert.deepEqual(edited.payload, { command: 'make test', env: { CI: '1' }, cwd: '/tmp' });
    assert.deepEqual([edited.timeoutMs, edited.priority, edited.runAt, edited.maxAttempts, edited.tags, edited.state], [30_000, 5, clock.ms + 1000, 3, ['x'], 'queued']);
    // null removes a field; the other fields stay as they were.
    const fewer = await engine.update({ id: job.id, env: null });
    assert.deepEqual(fewer.payload, { command: 'make test', cwd: '/tmp' });
    assert.deepEqual((await engine.getJob(job.id)).job.payload, { command: 'make test', cwd: '/tmp' });
  });

  test('edit: an HTTP job takes a new url, method, headers and body; each bad field is refused by name and nothing changes', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'http', payload: 'https://example.com/a', delayMs: HOUR });
    const edited = await engine.update({ id: job.id, url: 'https://example.com/b', method: 'post', headers: { 'x-key': 'v' }, body: { n: 1 } });
    assert.deepEqual(edited.payload, { url: 'https://example.com/b', method: 'post', headers: { 'x-key': 'v' }, body: { n: 1 } });
    const refusals: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://example.com' }, 'url'],
      [{ method: 'FETCH' }, 'method'],
      [{ headers: { 'bad header': 'v' } }, 'headers.bad header'],
      [{ command: 'ls' }, 'command'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ payload: {}, url: 'https://example.com' }, 'url'],
    ];
    for (const [fields, field] of refusals) {
      const error = await thrown(() => engine.update({ id: job.id, ...fields }));
      assert.equal(error.code, ErrorCode.InvalidParams, JSON.stringify(fields));
      assert.equal(error.data['field'], field, JSON.stringify(fields));
    }
    assert.deepEqual((await engine.getJob(job.id)).job.payload, edited.payload);
    // Fields of a built-in kind are refused for a worker's job, which has a payload of its own.
    const { job: other } = await engine.enqueue({ queue: 'q', kind: 'resize', payload: { w: 1 } });
    const error = await thrown(() => engine.update({ id: other.id, command: 'ls' }));
    assert.equal(error.data['field'], 'command');
    assert.match(error.message, /command applies to shell jobs only, and this job is of kind "resize"/);
  });

  test('edit: a job that started meanwhile is refused, and so is a finished one; a held one can change', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    const running = await thrown(() => engine.update({ id: job.id, priority: 3 }));
    assert.equal(running.code, ErrorCode.InvalidState);
    assert.match(running.message, /it is running\. It started meanwhile/);
    await engine.complete({ id: job.id, workerId: 'w' });
    assert.equal((await thrown(() => engine.update({ id: job.id, priority: 1 }))).code, ErrorCode.InvalidState);
    const { job: later } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.hold(later.id);
    const changed = await engine.update({ id: later.id, priority: 7 });
    assert.deepEqual([changed.state, changed.priority], ['held', 7]);
  });

  test('run now: a delayed job and a retrying one become due at once and keep their state; others are refused', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job: delayed } = await engine.enqueue({ queue: 'q', kind: 'k', delayMs: HOUR });
    const { job: failing } = await engine.enqueue({ queue: 'r', kind: 'k', backoff: FIXED });
    await engine.claim({ workerId: 'w', queues: ['r'] });
    await engine.fail({ id: failing.id, workerId: 'w', error: 'boom' });
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 5 }), [], 'neither is due');
    const now = await engine.runNow(delayed.id);
    assert.deepEqual([now.state, now.runAt], ['queued', clock.ms]);
    const retry = await engine.runNow(failing.id);
    assert.deepEqual([retry.state, retry.runAt], ['retrying', clock.ms]);
    assert.deepEqual((await engine.claim({ workerId: 'w', max: 5 })).map((j) => j.id).sort(), [delayed.id, failing.id].sort());
    assert.equal((await thrown(() => engine.runNow(delayed.id))).code, ErrorCode.InvalidState, 'a running job is refused');
    const { job: held } = await engine.enqueue({ queue: 'q', kind: 'k', delayMs: HOUR });
    await engine.hold(held.id);
    const error = await thrown(() => engine.runNow(held.id));
    assert.equal(error.code, ErrorCode.InvalidState);
    assert.match(error.message, /Release it first/);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('hold and release: a held job is never claimed, is counted as held, and goes back to queued, retrying or delayed as it was', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const { job: queued } = await engine.enqueue({ queue: 'q', kind: 'k' });
    const { job: delayed } = await engine.enqueue({ queue: 'q', kind: 'k', delayMs: HOUR });
    const { job: failing } = await engine.enqueue({ queue: 'r', kind: 'k', backoff: FIXED });
    await engine.claim({ workerId: 'w', queues: ['r'] });
    await engine.fail({ id: failing.id, workerId: 'w', error: 'boom' });
    for (const id of [queued.id, delayed.id, failing.id]) assert.equal((await engine.hold(id)).state, 'held');
    assert.equal((await engine.getQueue('q')).counts.held, 2);
    assert.equal((await engine.getQueue('r')).counts.held, 1);
    assert.equal((await engine.listJobs({ states: ['held'] })).jobs.length, 3);
    clock.advance(2 * HOUR);
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 10 }), [], 'held jobs are never claimed, even when due');
    const again = await thrown(() => engine.hold(queued.id));
    assert.equal(again.code, ErrorCode.InvalidState);
    assert.match(again.message, /It is held already/);
    clock.ms -= 2 * HOUR;
    assert.deepEqual([(await engine.unhold(queued.id)).state, (await engine.unhold(failing.id)).state], ['queued', 'retrying']);
    const back = await engine.unhold(delayed.id);
    assert.deepEqual([back.state, back.runAt], ['queued', delayed.runAt], 'a delayed job keeps its run time');
    assert.equal((await thrown(() => engine.unhold(queued.id))).code, ErrorCode.InvalidState);
    assert.equal((await engine.getQueue('q')).counts.held, 0);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('hold and release: a blocked job keeps counting its dependencies while held, and its own dependents stay blocked', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job: first } = await engine.enqueue({ queue: 'p', kind: 'k' });
    const { job: second } = await engine.enqueue({ queue: 'p', kind: 'k' });
    const { job: middle } = await engine.enqueue({ queue: 'q', kind: 'k', dependsOn: [first.id, second.id] });
    const { job: last } = await engine.enqueue({ queue: 'q', kind: 'k', dependsOn: [middle.id] });
    assert.equal((await engine.hold(middle.id)).state, 'held');
    await engine.claim({ workerId: 'w', queues: ['p'] });
    await engine.complete({ id: first.id, workerId: 'w' });
    assert.deepEqual([(await engine.getJob(middle.id)).job.state, (await engine.getJob(middle.id)).job.waitingFor], ['held', 1]);
    assert.equal((await engine.unhold(middle.id)).state, 'blocked', 'released while a dependency has not ended: blocked');
    await engine.hold(middle.id);
    await engine.claim({ workerId: 'w', queues: ['p'] });
    await engine.complete({ id: second.id, workerId: 'w' });
    const stillHeld = (await engine.getJob(middle.id)).job;
    assert.deepEqual([stillHeld.state, stillHeld.waitingFor], ['held', 0], 'its last dependency ended: still held');
    assert.equal((await engine.getJob(last.id)).job.state, 'blocked', 'what depends on a held job waits');
    assert.deepEqual(await engine.claim({ workerId: 'w', max: 5 }), []);
    assert.equal((await engine.unhold(middle.id)).state, 'queued');
    assert.deepEqual((await engine.claim({ workerId: 'w' })).map((j) => j.id), [middle.id]);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('hold: a held job whose dependency fails is cancelled as a blocked one would be; a held job can be cancelled and deleted', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job: dep } = await engine.enqueue({ queue: 'p', kind: 'k', maxAttempts: 1 });
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', dependsOn: [dep.id] });
    await engine.hold(job.id);
    await engine.claim({ workerId: 'w', queues: ['p'] });
    await engine.fail({ id: dep.id, workerId: 'w', error: 'boom' });
    const cancelled = (await engine.getJob(job.id)).job;
    assert.equal(cancelled.state, 'cancelled');
    assert.match(cancelled.lastError ?? '', /failed/);
    const { job: other } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.hold(other.id);
    assert.equal((await engine.cancel(other.id)).state, 'cancelled');
    const { job: third } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.hold(third.id);
    assert.equal(await engine.deleteJob(third.id), 1);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('hold and release in bulk by filter, across queues when none is named', async (t) => {
    const { engine } = makeEngine(t, store);
    for (const queue of ['a', 'b', 'c']) for (let i = 0; i < 3; i += 1) await engine.enqueue({ queue, kind: i === 0 ? 'other' : 'k' });
    const preview = await engine.holdMany({ filter: { states: ['queued'], kind: 'k' }, dryRun: true });
    assert.deepEqual(preview, { count: 6, errors: [], queues: 3 }, 'a dry run counts');
    assert.equal((await engine.listJobs({ states: ['held'] })).jobs.length, 0, 'and changes nothing');
    assert.deepEqual(await engine.cancelMany({ filter: { states: ['queued', 'completed'] }, dryRun: true }), { count: 9, errors: [], queues: 3 });
    const held = await engine.holdMany({ filter: { states: ['queued'], kind: 'k' } });
    assert.deepEqual(held, { count: 6, errors: [] });
    assert.deepEqual((await engine.listQueues()).map((q) => [q.name, q.counts.held, q.counts.queued]), [['a', 2, 1], ['b', 2, 1], ['c', 2, 1]]);
    assert.deepEqual(await engine.unholdMany({ filter: { states: ['held'], queue: 'b' } }), { count: 2, errors: [] });
    const again = await engine.unholdMany({ filter: { states: ['held', 'queued'] } });
    assert.equal(again.count, 4);
    assert.equal(again.errors.length, 5, 'the queued ones are refused, each with its reason');
    assert.equal(again.errors[0]?.code, ErrorCode.InvalidState);
    assert.deepEqual(await engine.updateMany({ filter: { kind: 'other' }, priority: 9, dryRun: true }), { count: 3, errors: [], queues: 3 });
    assert.deepEqual(await engine.updateMany({ filter: { kind: 'other' }, priority: 9 }), { count: 3, errors: [] });
    assert.deepEqual((await engine.listJobs({ kind: 'other' })).jobs.map((j) => j.priority), [9, 9, 9]);
    assert.equal((await thrown(() => engine.updateMany({ filter: { kind: 'other' }, priority: 1.5 }))).data['field'], 'priority');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('a schedule that skips overlaps counts a held previous job as not finished', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const parsed = parseJobsFile(`{
      "project": "ops",
      "queues": { "q": {} },
      "templates": { "t": { "queue": "q", "kind": "k", "payload": null } },
      "schedules": { "tick": { "cron": "* * * * *", "template": "t", "overlapPolicy": "skip" } }
    }`);
    assert.ok(parsed.declaration, parsed.problems.map((p) => p.message).join('\n'));
    await engine.applyProject({ project: 'ops', file: parsed.declaration });
    const due = (await engine.getSchedule('tick')).nextRunAt ?? 0;
    clock.ms = due;
    const first = await engine.fireSchedule({ name: 'tick', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
    assert.ok(first?.job);
    await engine.hold(first.job.id);
    clock.ms = due + 60_000;
    const second = await engine.fireSchedule({ name: 'tick', expectedNextRunAt: due + 60_000, newNextRunAt: due + 120_000, enqueue: true });
    assert.equal(second?.job, null, 'held: the tick enqueues nothing');
  });

  test('retention never deletes a held job', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', retentionMs: HOUR });
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.hold(job.id);
    clock.advance(10 * HOUR);
    await engine.cleanup();
    assert.equal((await engine.getJob(job.id)).job.state, 'held');
  });

  test('pause all: no queue gives a job on any daemon of the store, running jobs go on, and resume lets claims take jobs again', async (t) => {
    const { engine, openShared } = makeEngine(t, store);
    const other = openShared();
    const { job: running } = await engine.enqueue({ queue: 'a', kind: 'k' });
    await engine.claim({ workerId: 'w', queues: ['a'] });
    await engine.enqueue({ queue: 'a', kind: 'k' });
    await engine.enqueue({ queue: 'b', kind: 'k' });
    assert.equal(await engine.setAllPaused(true), true);
    assert.deepEqual(await other.claim({ workerId: 'w2', max: 10 }), [], 'the other daemon claims nothing');
    assert.deepEqual(await engine.claim({ workerId: 'w2', max: 10 }), []);
    assert.equal((await other.stats()).allPaused, true);
    assert.equal((await engine.getQueue('a')).paused, false, "a queue's own pause is its own");
    assert.equal((await engine.complete({ id: running.id, workerId: 'w' })).state, 'completed', 'a running job goes on to its end');
    assert.equal(await other.setAllPaused(false), false);
    assert.equal((await engine.stats()).allPaused, false);
    assert.equal((await engine.claim({ workerId: 'w2', max: 10 })).length, 2);
  });
}
