import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine, thrown } from './helpers/engine';

const HOUR = 3_600_000;

test('retention deletes only finished jobs older than the queue retention, in bounded batches', async (t) => {
  const { engine, clock } = makeEngine(t);
  await engine.configureQueue({ name: 'q', retentionMs: HOUR });
  await engine.configureQueue({ name: 'keep', retentionMs: null });
  // 30 old finished jobs (completed, dead, cancelled) and, later, fresh ones plus waiting and running ones.
  const old = (await engine.enqueueBatch({ jobs: Array.from({ length: 30 }, () => ({ queue: 'q', kind: 'k', maxAttempts: 1 })) })).results.map((r) => r.job.id);
  const claimed = await engine.claim({ workerId: 'w', max: 20 });
  for (const j of claimed.slice(0, 10)) await engine.complete({ id: j.id, workerId: 'w' });
  for (const j of claimed.slice(10)) await engine.fail({ id: j.id, workerId: 'w', error: 'x' });
  for (const id of old.slice(20)) await engine.cancel(id);
  const keptForever = (await engine.enqueue({ queue: 'keep', kind: 'k' })).job;
  await engine.claim({ workerId: 'w', queues: ['keep'] });
  await engine.complete({ id: keptForever.id, workerId: 'w' });
  const oldQueued = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  clock.advance(HOUR + 1);
  const fresh = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  await engine.claim({ workerId: 'w', queues: ['q'], max: 2 });
  await engine.complete({ id: fresh.id, workerId: 'w' });

  assert.equal(await engine.cleanup(12), 12, 'one call deletes at most its batch');
  assert.equal(await engine.cleanup(12), 12);
  assert.equal(await engine.cleanup(12), 6);
  assert.equal(await engine.cleanup(12), 0);
  const q = await engine.getQueue('q');
  assert.deepEqual([q.counts.completed, q.counts.dead, q.counts.cancelled, q.counts.running], [1, 0, 0, 1]);
  assert.equal((await engine.getJob(oldQueued.id)).job.state, 'running', 'an old job that is not finished is never deleted');
  assert.equal((await engine.getJob(keptForever.id)).job.state, 'completed', 'a queue without retention keeps its jobs');
  assert.equal((await engine.verifyCounters()).ok, true);
});

test('retention never deletes a queued or retrying job, however old, while old finished ones go', async (t) => {
  const { engine, clock, dbPath } = makeEngine(t);
  await engine.configureQueue({ name: 'q', retentionMs: HOUR });
  const backoff = { strategy: 'fixed' as const, baseMs: 60_000, jitter: 0 };
  // All created and ended at the start; only 'completed' and 'cancelled' end, the rest wait.
  const [completed, retryingDue, retryingLater] = (await engine.enqueueBatch({
    jobs: [{ queue: 'q', kind: 'k', priority: 3 }, { queue: 'q', kind: 'k', priority: 2, backoff }, { queue: 'q', kind: 'k', priority: 1, backoff: { ...backoff, baseMs: 10 * HOUR, capMs: 10 * HOUR } }],
  })).results.map((r) => r.job);
  assert.ok(completed && retryingDue && retryingLater);
  await engine.claim({ workerId: 'w', max: 3 });
  await engine.complete({ id: completed.id, workerId: 'w' });
  await engine.fail({ id: retryingDue.id, workerId: 'w', error: 'x' });
  await engine.fail({ id: retryingLater.id, workerId: 'w', error: 'x' });
  const cancelled = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  await engine.cancel(cancelled.id);
  const queued = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  const delayed = (await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 20 * HOUR })).job;
  clock.advance(3 * HOUR);
  const before = (await engine.getJob(retryingDue.id)).job;
  assert.equal(before.state, 'retrying');
  assert.ok(before.runAt < clock.ms - HOUR, 'one retry is long overdue');
  assert.ok((await engine.getJob(retryingLater.id)).job.runAt > clock.ms, 'the other is still in the future');

  assert.equal(await engine.cleanup(100), 2);
  assert.equal(await engine.cleanup(100), 0);
  for (const gone of [completed, cancelled]) assert.equal((await thrown(() => engine.getJob(gone.id))).code, ErrorCode.JobNotFound);
  const states = await Promise.all([queued, delayed, retryingDue, retryingLater].map(async (j) => (await engine.getJob(j.id)).job.state));
  assert.deepEqual(states, ['queued', 'queued', 'retrying', 'retrying']);
  const q = await engine.getQueue('q');
  assert.deepEqual([q.counts.queued, q.counts.retrying, q.counts.completed, q.counts.cancelled], [2, 2, 0, 0]);
  // No engine path leaves a finish time on a waiting job today; the state, not only the finish
  // time, is what keeps it. Give two of them an old one through a second connection.
  const other = new Database(dbPath);
  other.prepare(`UPDATE jobs SET finished_at = 0 WHERE id IN (?, ?)`).run(queued.id, retryingDue.id);
  other.close();
  assert.equal(await engine.cleanup(100), 0);
  assert.deepEqual(await Promise.all([queued, retryingDue].map(async (j) => (await engine.getJob(j.id)).job.state)), ['queued', 'retrying']);
  assert.equal((await engine.verifyCounters()).ok, true);
});

test('start-up recovery retries the given workers\' running jobs at once without using up an attempt', async (t) => {
  const { engine, clock } = makeEngine(t);
  const mine = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'sleep 100' }, maxAttempts: 1 })).job;
  const remote = (await engine.enqueue({ queue: 'q', kind: 'resize' })).job;
  await engine.claim({ workerId: 'builtin-old', builtinKinds: ['shell'] });
  await engine.claim({ workerId: 'remote-1' });
  clock.advance(5000);
  assert.equal(await engine.recoverInterrupted(['builtin-old']), 1);
  const recovered = await engine.getJob(mine.id);
  assert.deepEqual([recovered.job.state, recovered.job.attempts, recovered.job.runAt, recovered.job.leaseExpiresAt], ['retrying', 0, clock.ms, null]);
  assert.deepEqual(recovered.runs.map((r) => [r.attempt, r.outcome]), [[1, 'interrupted']]);
  assert.equal((await engine.getJob(remote.id)).job.state, 'running', 'a remote worker\'s lease runs out normally');
  // maxAttempts is 1 and the interrupted attempt was given back: it can still run.
  const [again] = await engine.claim({ workerId: 'builtin-new', builtinKinds: ['shell'] });
  assert.equal(again?.id, mine.id);
  assert.equal(again?.attempts, 1);
  assert.equal((await engine.complete({ id: mine.id, workerId: 'builtin-new' })).state, 'completed');
  assert.equal(await engine.recoverInterrupted([]), 0);
});

test('nextWakeAt is the earliest of a delayed job, a retry, a lease expiry and a schedule, ignoring paused queues', async (t) => {
  const { engine, clock } = makeEngine(t);
  assert.equal(await engine.nextWakeAt(), null);
  await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 9000 });
  assert.equal(await engine.nextWakeAt(), clock.ms + 9000);
  await engine.createSchedule({ name: 's', cron: '* * * * *', queue: 'q', job: { kind: 'k' } }, clock.ms + 7000);
  assert.equal(await engine.nextWakeAt(), clock.ms + 7000);
  await engine.enqueue({ queue: 'p', kind: 'k', delayMs: 1000 });
  assert.equal(await engine.nextWakeAt(), clock.ms + 1000);
  await engine.pauseQueue('p');
  assert.equal(await engine.nextWakeAt(), clock.ms + 7000);
  await engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 3000 });
  await engine.claim({ workerId: 'w' });
  assert.equal(await engine.nextWakeAt(), clock.ms + 3000);
});

test('stats count completed and failed attempts in the last minute and hour', async (t) => {
  const { engine, clock } = makeEngine(t);
  const finish = async (ok: boolean): Promise<void> => {
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 1 });
    await engine.claim({ workerId: 'w' });
    if (ok) await engine.complete({ id: job.id, workerId: 'w' });
    else await engine.fail({ id: job.id, workerId: 'w', error: 'x' });
  };
  await finish(true);
  await finish(false);
  clock.advance(10 * 60_000);
  await finish(true);
  let s = await engine.stats();
  assert.deepEqual([s.completedLastMinute, s.failedLastMinute, s.completedLastHour, s.failedLastHour], [1, 0, 2, 1]);
  clock.advance(2 * 3_600_000);
  s = await engine.stats();
  assert.deepEqual([s.completedLastMinute, s.failedLastMinute, s.completedLastHour, s.failedLastHour], [0, 0, 0, 0]);
  assert.deepEqual(s.totals, { queued: 0, running: 0, retrying: 0, completed: 2, dead: 1, cancelled: 0 });
});

test('retention looks only at jobs created before the cutoff, so its cost does not grow with the jobs it keeps', async (t) => {
  const { engine, clock } = makeEngine(t);
  await engine.configureQueue({ name: 'q', retentionMs: HOUR });
  const start = clock.ms;
  // A job created two hours ahead that then finishes after the clock stepped back: it finished
  // before the cutoff below, but its id (its creation time) is after it. Retention walks ids
  // below the cutoff's, which is what bounds its scan; such a job waits until its id is reached.
  clock.advance(2 * HOUR);
  const job = (await engine.enqueue({ queue: 'q', kind: 'k' })).job;
  assert.equal((await engine.claim({ workerId: 'w', max: 1 })).length, 1);
  clock.ms = start;
  await engine.complete({ id: job.id, workerId: 'w' });
  assert.equal((await engine.getJob(job.id)).job.finishedAt, start);

  clock.ms = start + HOUR + 1;
  assert.equal(await engine.cleanup(100), 0, 'a job created after the cutoff is not looked at');
  assert.equal((await engine.getJob(job.id)).job.state, 'completed');
  clock.ms = start + 3 * HOUR + 1;
  assert.equal(await engine.cleanup(100), 1, 'once its creation time is before the cutoff, it goes');
  assert.equal((await engine.verifyCounters()).ok, true);
});
