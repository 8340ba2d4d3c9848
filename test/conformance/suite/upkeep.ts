import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeEngine, type TestStoreFactory } from '../harness';

const HOUR = 3_600_000;

/** The upkeep tests, run against the store `store` makes. */
export function defineUpkeep(store: TestStoreFactory): void {
  test('retention deletes only finished jobs older than the queue retention, in bounded batches', async (t) => {
    const { engine, clock } = makeEngine(t, store);
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

  test('start-up recovery retries the given workers\' running jobs at once without using up an attempt', async (t) => {
    const { engine, clock } = makeEngine(t, store);
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

  test('an interrupted run lasts until its daemon last knew it running, not until the recovery', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const silent = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'sleep 100' } })).job;
    const talking = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'yes' } })).job;
    const watched = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'sleep 100' } })).job;
    await engine.claim({ workerId: 'builtin-a', builtinKinds: ['shell'], max: 2 });
    await engine.claim({ workerId: 'builtin-b', builtinKinds: ['shell'] });
    const started = clock.ms;
    clock.advance(700);
    await engine.heartbeat({ id: silent.id, workerId: 'builtin-a' });
    clock.advance(800);
    await engine.appendOutput(talking.id, 'builtin-a', 'stdout', ['still here']);
    // The daemon dies 1.5 s in and is started again 4.8 s later.
    clock.advance(4800);
    assert.equal(await engine.recoverInterrupted(['builtin-a']), 2);
    const duration = async (id: string): Promise<number | null> => (await engine.getJob(id)).runs[0]?.durationMs ?? null;
    assert.equal(await duration(silent.id), 700, 'its last heartbeat');
    assert.equal(await duration(talking.id), 1500, 'its last output line');
    // A daemon that kept a heartbeat of its own says when it was last alive.
    assert.equal(await engine.recoverInterrupted(['builtin-b'], started + 1400), 1);
    assert.equal(await duration(watched.id), 1400);
    const [run] = (await engine.getJob(watched.id)).runs;
    assert.deepEqual([run?.startedAt, run?.finishedAt, run?.outcome], [started, started + 1400, 'interrupted']);
    assert.equal((await engine.getJob(watched.id)).job.runAt, clock.ms, 'it is due again now');
  });

  test('the runs of a daemon dead on another host name that host and its pid; a shell job\'s say its process may still run there', async (t) => {
    const { engine } = makeEngine(t, store);
    const shell = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'sleep 100' } })).job;
    const remote = (await engine.enqueue({ queue: 'q', kind: 'resize' })).job;
    await engine.claim({ workerId: 'builtin:far:1', builtinKinds: ['shell'] });
    await engine.claim({ workerId: 'builtin:far:1' });
    assert.equal(await engine.recoverInterrupted(['builtin:far:1'], undefined, { host: 'far', pid: 4242 }), 2);
    const error = async (id: string): Promise<string | null | undefined> => (await engine.getJob(id)).runs[0]?.error;
    assert.equal(await error(shell.id), 'the daemon on host far (pid 4242) stopped answering while the job ran; its process may still be running on host far, under that daemon (pid 4242), until a daemon starts there again and stops it');
    assert.equal(await error(remote.id), 'the daemon on host far (pid 4242) stopped answering while the job ran');
  });

  test('nextWakeAt is the earliest of a delayed job, a retry, a lease expiry and a schedule, ignoring paused queues', async (t) => {
    const { engine, clock } = makeEngine(t, store);
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
    const { engine, clock } = makeEngine(t, store);
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
    assert.deepEqual(s.totals, { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 2, dead: 1, cancelled: 0 });
  });

  test('retention looks only at jobs created before the cutoff, so its cost does not grow with the jobs it keeps', async (t) => {
    const { engine, clock } = makeEngine(t, store);
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
}
