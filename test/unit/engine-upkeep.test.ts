import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine, thrown } from './helpers/engine';

const HOUR = 3_600_000;

test('retention deletes only finished jobs older than the queue retention, in bounded batches', (t) => {
  const { engine, clock } = makeEngine(t);
  engine.configureQueue({ name: 'q', retentionMs: HOUR });
  engine.configureQueue({ name: 'keep', retentionMs: null });
  // 30 old finished jobs (completed, dead, cancelled) and, later, fresh ones plus waiting and running ones.
  const old = engine.enqueueBatch({ jobs: Array.from({ length: 30 }, () => ({ queue: 'q', kind: 'k', maxAttempts: 1 })) }).results.map((r) => r.job.id);
  const claimed = engine.claim({ workerId: 'w', max: 20 });
  claimed.slice(0, 10).forEach((j) => engine.complete({ id: j.id, workerId: 'w' }));
  claimed.slice(10).forEach((j) => engine.fail({ id: j.id, workerId: 'w', error: 'x' }));
  old.slice(20).forEach((id) => engine.cancel(id));
  const keptForever = engine.enqueue({ queue: 'keep', kind: 'k' }).job;
  engine.claim({ workerId: 'w', queues: ['keep'] });
  engine.complete({ id: keptForever.id, workerId: 'w' });
  const oldQueued = engine.enqueue({ queue: 'q', kind: 'k' }).job;
  clock.advance(HOUR + 1);
  const fresh = engine.enqueue({ queue: 'q', kind: 'k' }).job;
  engine.claim({ workerId: 'w', queues: ['q'], max: 2 });
  engine.complete({ id: fresh.id, workerId: 'w' });

  assert.equal(engine.cleanup(12), 12, 'one call deletes at most its batch');
  assert.equal(engine.cleanup(12), 12);
  assert.equal(engine.cleanup(12), 6);
  assert.equal(engine.cleanup(12), 0);
  const q = engine.getQueue('q');
  assert.deepEqual([q.counts.completed, q.counts.dead, q.counts.cancelled, q.counts.running], [1, 0, 0, 1]);
  assert.equal(engine.getJob(oldQueued.id).job.state, 'running', 'an old job that is not finished is never deleted');
  assert.equal(engine.getJob(keptForever.id).job.state, 'completed', 'a queue without retention keeps its jobs');
  assert.equal(engine.verifyCounters().ok, true);
});

test('retention never deletes a queued or retrying job, however old, while old finished ones go', (t) => {
  const { engine, clock, dbPath } = makeEngine(t);
  engine.configureQueue({ name: 'q', retentionMs: HOUR });
  const backoff = { strategy: 'fixed' as const, baseMs: 60_000, jitter: 0 };
  // All created and ended at the start; only 'completed' and 'cancelled' end, the rest wait.
  const [completed, retryingDue, retryingLater] = engine.enqueueBatch({
    jobs: [{ queue: 'q', kind: 'k', priority: 3 }, { queue: 'q', kind: 'k', priority: 2, backoff }, { queue: 'q', kind: 'k', priority: 1, backoff: { ...backoff, baseMs: 10 * HOUR, capMs: 10 * HOUR } }],
  }).results.map((r) => r.job);
  assert.ok(completed && retryingDue && retryingLater);
  engine.claim({ workerId: 'w', max: 3 });
  engine.complete({ id: completed.id, workerId: 'w' });
  engine.fail({ id: retryingDue.id, workerId: 'w', error: 'x' });
  engine.fail({ id: retryingLater.id, workerId: 'w', error: 'x' });
  const cancelled = engine.enqueue({ queue: 'q', kind: 'k' }).job;
  engine.cancel(cancelled.id);
  const queued = engine.enqueue({ queue: 'q', kind: 'k' }).job;
  const delayed = engine.enqueue({ queue: 'q', kind: 'k', delayMs: 20 * HOUR }).job;
  clock.advance(3 * HOUR);
  const before = engine.getJob(retryingDue.id).job;
  assert.equal(before.state, 'retrying');
  assert.ok(before.runAt < clock.ms - HOUR, 'one retry is long overdue');
  assert.ok(engine.getJob(retryingLater.id).job.runAt > clock.ms, 'the other is still in the future');

  assert.equal(engine.cleanup(100), 2);
  assert.equal(engine.cleanup(100), 0);
  for (const gone of [completed, cancelled]) assert.equal(thrown(() => engine.getJob(gone.id)).code, ErrorCode.JobNotFound);
  const states = [queued, delayed, retryingDue, retryingLater].map((j) => engine.getJob(j.id).job.state);
  assert.deepEqual(states, ['queued', 'queued', 'retrying', 'retrying']);
  const q = engine.getQueue('q');
  assert.deepEqual([q.counts.queued, q.counts.retrying, q.counts.completed, q.counts.cancelled], [2, 2, 0, 0]);
  // No engine path leaves a finish time on a waiting job today; the state, not only the finish
  // time, is what keeps it. Give two of them an old one through a second connection.
  const other = new Database(dbPath);
  other.prepare(`UPDATE jobs SET finished_at = 0 WHERE id IN (?, ?)`).run(queued.id, retryingDue.id);
  other.close();
  assert.equal(engine.cleanup(100), 0);
  assert.deepEqual([queued, retryingDue].map((j) => engine.getJob(j.id).job.state), ['queued', 'retrying']);
  assert.equal(engine.verifyCounters().ok, true);
});

test('start-up recovery retries the given workers\' running jobs at once without using up an attempt', (t) => {
  const { engine, clock } = makeEngine(t);
  const mine = engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'sleep 100' }, maxAttempts: 1 }).job;
  const remote = engine.enqueue({ queue: 'q', kind: 'resize' }).job;
  engine.claim({ workerId: 'builtin-old', builtinKinds: ['shell'] });
  engine.claim({ workerId: 'remote-1' });
  clock.advance(5000);
  assert.equal(engine.recoverInterrupted(['builtin-old']), 1);
  const recovered = engine.getJob(mine.id);
  assert.deepEqual([recovered.job.state, recovered.job.attempts, recovered.job.runAt, recovered.job.leaseExpiresAt], ['retrying', 0, clock.ms, null]);
  assert.deepEqual(recovered.runs.map((r) => [r.attempt, r.outcome]), [[1, 'interrupted']]);
  assert.equal(engine.getJob(remote.id).job.state, 'running', 'a remote worker\'s lease runs out normally');
  // maxAttempts is 1 and the interrupted attempt was given back: it can still run.
  const [again] = engine.claim({ workerId: 'builtin-new', builtinKinds: ['shell'] });
  assert.equal(again?.id, mine.id);
  assert.equal(again?.attempts, 1);
  assert.equal(engine.complete({ id: mine.id, workerId: 'builtin-new' }).state, 'completed');
  assert.equal(engine.recoverInterrupted([]), 0);
});

test('nextWakeAt is the earliest of a delayed job, a retry, a lease expiry and a schedule, ignoring paused queues', (t) => {
  const { engine, clock } = makeEngine(t);
  assert.equal(engine.nextWakeAt(), null);
  engine.enqueue({ queue: 'q', kind: 'k', delayMs: 9000 });
  assert.equal(engine.nextWakeAt(), clock.ms + 9000);
  engine.createSchedule({ name: 's', cron: '* * * * *', queue: 'q', job: { kind: 'k' } }, clock.ms + 7000);
  assert.equal(engine.nextWakeAt(), clock.ms + 7000);
  engine.enqueue({ queue: 'p', kind: 'k', delayMs: 1000 });
  assert.equal(engine.nextWakeAt(), clock.ms + 1000);
  engine.pauseQueue('p');
  assert.equal(engine.nextWakeAt(), clock.ms + 7000);
  engine.enqueue({ queue: 'q', kind: 'k', timeoutMs: 3000 });
  engine.claim({ workerId: 'w' });
  assert.equal(engine.nextWakeAt(), clock.ms + 3000);
});

test('stats count completed and failed attempts in the last minute and hour', (t) => {
  const { engine, clock } = makeEngine(t);
  const finish = (ok: boolean): void => {
    const { job } = engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 1 });
    engine.claim({ workerId: 'w' });
    if (ok) engine.complete({ id: job.id, workerId: 'w' });
    else engine.fail({ id: job.id, workerId: 'w', error: 'x' });
  };
  finish(true);
  finish(false);
  clock.advance(10 * 60_000);
  finish(true);
  let s = engine.stats();
  assert.deepEqual([s.completedLastMinute, s.failedLastMinute, s.completedLastHour, s.failedLastHour], [1, 0, 2, 1]);
  clock.advance(2 * 3_600_000);
  s = engine.stats();
  assert.deepEqual([s.completedLastMinute, s.failedLastMinute, s.completedLastHour, s.failedLastHour], [0, 0, 0, 0]);
  assert.deepEqual(s.totals, { queued: 0, running: 0, retrying: 0, completed: 2, dead: 1, cancelled: 0 });
});

test('retention looks only at jobs created before the cutoff, so its cost does not grow with the jobs it keeps', (t) => {
  const { engine, clock } = makeEngine(t);
  engine.configureQueue({ name: 'q', retentionMs: HOUR });
  const start = clock.ms;
  // A job created two hours ahead that then finishes after the clock stepped back: it finished
  // before the cutoff below, but its id (its creation time) is after it. Retention walks ids
  // below the cutoff's, which is what bounds its scan; such a job waits until its id is reached.
  clock.advance(2 * HOUR);
  const job = engine.enqueue({ queue: 'q', kind: 'k' }).job;
  assert.equal(engine.claim({ workerId: 'w', max: 1 }).length, 1);
  clock.ms = start;
  engine.complete({ id: job.id, workerId: 'w' });
  assert.equal(engine.getJob(job.id).job.finishedAt, start);

  clock.ms = start + HOUR + 1;
  assert.equal(engine.cleanup(100), 0, 'a job created after the cutoff is not looked at');
  assert.equal(engine.getJob(job.id).job.state, 'completed');
  clock.ms = start + 3 * HOUR + 1;
  assert.equal(engine.cleanup(100), 1, 'once its creation time is before the cutoff, it goes');
  assert.equal(engine.verifyCounters().ok, true);
});
