/**
 * The error cases of the protocol over a real socket to a real daemon process: what the engine
 * tests check in-process (a job in the wrong state, a missing job, queue or schedule, a worker
 * without the lease, bad worker params) must reach a client with the same code, `data` and an
 * actionable message. Also the jobs.list filters, the finished counts of stats.get and the
 * jobs.changed notifications of a claim and of progress, as a client sees them.
 *
 * Every test uses queues of its own; the jobs nobody should run are delayed, and their kinds are
 * not built-in (shell, http), so no executor of the daemon touches them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { ErrorCode, type JobChangedEvent } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { rejectsWith } from '../helpers/errors';

/** A well-formed job id that no job has. */
const UNKNOWN_JOB_ID = '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b';

describe('the daemon over its socket: error cases', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;

  before(async () => {
    daemon = await startDaemon();
    client = await daemon.client();
  });
  after(() => daemon.dispose());

  /** Enqueues one job to `queue` and claims it as `workerId`; returns it running. */
  async function runningJob(queue: string, workerId: string): Promise<Job> {
    const { job } = await client.call('jobs.enqueue', { queue, kind: 'task' });
    const { jobs } = await client.call('jobs.claim', { workerId, queues: [queue] });
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].id, job.id);
    assert.equal(jobs[0].state, 'running');
    return jobs[0];
  }

  test('update and delete of a running job are refused with InvalidState, naming the state and what to do', async () => {
    const job = await runningJob('err-running', 'state-worker');
    const updating = await rejectsWith(client.call('jobs.update', { id: job.id, priority: 5 }), ErrorCode.InvalidState);
    assert.deepEqual([updating.data.id, updating.data.state], [job.id, 'running']);
    assert.match(updating.message, /it is running/);
    assert.match(updating.message, /cancel it first/);
    const deleting = await rejectsWith(client.call('jobs.delete', { id: job.id }), ErrorCode.InvalidState);
    assert.deepEqual([deleting.data.id, deleting.data.state], [job.id, 'running']);
    assert.match(deleting.message, /it is running\. Cancel it first/);

    const unchanged = (await client.call('jobs.get', { id: job.id })).job;
    assert.deepEqual([unchanged.state, unchanged.priority, unchanged.workerId], ['running', 0, 'state-worker']);
    await client.call('jobs.complete', { id: job.id, workerId: 'state-worker' });
  });

  test('update of a completed or dead job is refused with InvalidState naming the state; delete of it succeeds', async () => {
    const completed = await runningJob('err-finished', 'finisher');
    await client.call('jobs.complete', { id: completed.id, workerId: 'finisher' });
    const dead = await runningJob('err-finished', 'finisher');
    await client.call('jobs.fail', { id: dead.id, workerId: 'finisher', error: 'broken', permanent: true });

    for (const [job, state] of [
      [completed, 'completed'],
      [dead, 'dead'],
    ] as const) {
      const refused = await rejectsWith(client.call('jobs.update', { id: job.id, tags: ['late'] }), ErrorCode.InvalidState);
      assert.deepEqual([refused.data.id, refused.data.state], [job.id, state]);
      assert.match(refused.message, new RegExp(`it is ${state}\\. Retry it to run it again`));
      assert.deepEqual((await client.call('jobs.get', { id: job.id })).job.tags, []);
      // Only a running job is kept from deletion (protocol.ts: "Not while running").
      assert.deepEqual(await client.call('jobs.delete', { id: job.id }), { deleted: 1 });
      const gone = await rejectsWith(client.call('jobs.get', { id: job.id }), ErrorCode.JobNotFound);
      assert.equal(gone.data.id, job.id);
    }
  });

  test('jobs.output of an unknown job is JobNotFound with the id in data; a malformed id is InvalidParams', async () => {
    const missing = await rejectsWith(client.call('jobs.output', { id: UNKNOWN_JOB_ID }), ErrorCode.JobNotFound);
    assert.equal(missing.data.id, UNKNOWN_JOB_ID);
    assert.equal(missing.data.field, undefined);
    assert.match(missing.message, new RegExp(UNKNOWN_JOB_ID));
    await rejectsWith(client.call('jobs.output', { id: 'not-a-job-id' }), ErrorCode.InvalidParams, 'id');
  });

  test('a worker that does not hold the lease gets LeaseLost from every worker method, and nothing is recorded', async () => {
    await client.call('workers.register', { workerId: 'lease-holder', kinds: ['task'] });
    const job = await runningJob('err-lease', 'lease-holder');
    const intruder = { id: job.id, workerId: 'lease-intruder' };
    const calls: [string, () => Promise<unknown>][] = [
      ['jobs.heartbeat', () => client.call('jobs.heartbeat', { ...intruder, extendMs: 60_000 })],
      ['jobs.progress', () => client.call('jobs.progress', { ...intruder, percent: 50, message: 'halfway' })],
      ['jobs.checkpoint', () => client.call('jobs.checkpoint', { ...intruder, checkpoint: { at: 3 } })],
      ['jobs.log', () => client.call('jobs.log', { ...intruder, lines: ['not mine'] })],
      ['jobs.fail', () => client.call('jobs.fail', { ...intruder, error: 'not mine', permanent: true })],
      ['jobs.release', () => client.call('jobs.release', { ...intruder, reason: 'not mine' })],
    ];
    for (const [method, call] of calls) {
      const lost = await rejectsWith(call(), ErrorCode.LeaseLost);
      assert.deepEqual([lost.data.id, lost.data.workerId, lost.data.state], [job.id, 'lease-intruder', 'running'], method);
      assert.match(lost.message, /running under worker lease-holder; this worker never claimed it/, method);
    }

    const { job: unchanged, runs } = await client.call('jobs.get', { id: job.id });
    assert.deepEqual([unchanged.state, unchanged.workerId, unchanged.attempts], ['running', 'lease-holder', 1]);
    assert.deepEqual([unchanged.progress, unchanged.progressMessage, unchanged.checkpoint, unchanged.leaseExpiresAt], [null, null, null, job.leaseExpiresAt]);
    assert.deepEqual(runs.map((r) => [r.workerId, r.outcome]), [['lease-holder', 'running']]);
    assert.deepEqual((await client.call('jobs.output', { id: job.id })).lines, []);

    // A worker method on a job that does not exist says so rather than blaming the lease.
    const missing = await rejectsWith(client.call('jobs.heartbeat', { id: UNKNOWN_JOB_ID, workerId: 'lease-holder' }), ErrorCode.JobNotFound);
    assert.equal(missing.data.id, UNKNOWN_JOB_ID);

    // The holder still holds it.
    assert.equal((await client.call('jobs.complete', { id: job.id, workerId: 'lease-holder' })).job.state, 'completed');
  });

  test('workers.register refuses a wrong type or an unknown field with InvalidParams naming the field, and registers nothing', async () => {
    const cases: [unknown, string][] = [
      [{ workerId: 42 }, 'workerId'],
      [{ workerId: 'bad register' }, 'workerId'],
      [{ workerId: 'bad-register', concurrency: 'many' }, 'concurrency'],
      [{ workerId: 'bad-register', kinds: 'render' }, 'kinds'],
      [{ workerId: 'bad-register', pid: -1 }, 'pid'],
      [{ workerId: 'bad-register', colour: 'red' }, 'colour'],
    ];
    for (const [params, field] of cases) {
      const refused = await rejectsWith(client.callUnchecked('workers.register', params), ErrorCode.InvalidParams, field);
      assert.match(refused.message, new RegExp(field));
    }
    const unknown = await rejectsWith(client.callUnchecked('workers.register', { workerId: 'bad-register', colour: 'red' }), ErrorCode.InvalidParams, 'colour');
    assert.match(unknown.message, /Unknown field "colour"/);
    assert.equal(unknown.data.allowed, 'workerId, name, host, pid, queues, kinds, concurrency, capacity');
    assert.ok(!(await client.call('workers.list')).workers.some((w) => w.id === 'bad-register'));
  });

  test('every queue method but pause on an unknown queue is QueueNotFound naming the queue', async () => {
    // Pause is the exception: pausing a queue before its first job makes it, as configure does.
    const calls: [string, () => Promise<unknown>][] = [
      ['resume', () => client.call('queues.resume', { name: 'no-such-queue' })],
      ['purge', () => client.call('queues.purge', { name: 'no-such-queue' })],
      ['purge states', () => client.call('queues.purge', { name: 'no-such-queue', states: ['dead', 'completed'] })],
      ['delete', () => client.call('queues.delete', { name: 'no-such-queue' })],
      ['delete force', () => client.call('queues.delete', { name: 'no-such-queue', force: true })],
    ];
    for (const [what, call] of calls) {
      const missing = await rejectsWith(call(), ErrorCode.QueueNotFound);
      assert.equal(missing.data.queue, 'no-such-queue', what);
      assert.match(missing.message, /No queue named "no-such-queue"/, what);
    }
    // None of them created the queue as a side effect.
    assert.ok(!(await client.call('queues.list')).queues.some((q) => q.name === 'no-such-queue'));
  });

  test('a queue with jobs is deleted only with force; a running job refuses even force', async () => {
    await client.call('jobs.enqueue', { queue: 'err-full', kind: 'task', delayMs: 60_000 });
    await client.call('jobs.enqueue', { queue: 'err-full', kind: 'task', delayMs: 60_000 });
    const refused = await rejectsWith(client.call('queues.delete', { name: 'err-full' }), ErrorCode.InvalidState);
    assert.equal(refused.data.queue, 'err-full');
    assert.match(refused.message, /still has 2 job\(s\)\. Purge it first, or delete it with force/);
    assert.equal((await client.call('queues.get', { name: 'err-full' })).queue.counts.queued, 2);
    assert.deepEqual(await client.call('queues.delete', { name: 'err-full', force: true }), { deleted: 2 });
    await rejectsWith(client.call('queues.get', { name: 'err-full' }), ErrorCode.QueueNotFound);

    const job = await runningJob('err-busy', 'busy-worker');
    const busy = await rejectsWith(client.call('queues.delete', { name: 'err-busy', force: true }), ErrorCode.InvalidState);
    assert.equal(busy.data.queue, 'err-busy');
    assert.match(busy.message, /1 job\(s\) are running/);
    assert.equal((await client.call('jobs.get', { id: job.id })).job.state, 'running');
    await client.call('jobs.complete', { id: job.id, workerId: 'busy-worker' });
    assert.deepEqual(await client.call('queues.delete', { name: 'err-busy', force: true }), { deleted: 1 });
  });

  test('every schedule method on an unknown schedule is ScheduleNotFound naming the schedule', async () => {
    const name = 'no-such-schedule';
    const calls: [string, () => Promise<unknown>][] = [
      ['update', () => client.call('schedules.update', { name, cron: '*/5 * * * *' })],
      ['update enabled', () => client.call('schedules.update', { name, enabled: false })],
      ['delete', () => client.call('schedules.delete', { name })],
      ['trigger', () => client.call('schedules.trigger', { name })],
      ['enable', () => client.call('schedules.enable', { name })],
      ['disable', () => client.call('schedules.disable', { name })],
    ];
    for (const [what, call] of calls) {
      const missing = await rejectsWith(call(), ErrorCode.ScheduleNotFound);
      assert.equal(missing.data.schedule, name, what);
      assert.match(missing.message, /No schedule named "no-such-schedule"/, what);
    }
    assert.deepEqual((await client.call('schedules.list')).schedules, []);
  });

  test('jobs.list filters by kind, by exact tag and by payload text', async () => {
    const enqueue = async (kind: string, tags: string[], payload: unknown): Promise<string> =>
      (await client.call('jobs.enqueue', { queue: 'err-list', kind, tags, payload, delayMs: 60_000 })).job.id;
    const catImage = await enqueue('resize', ['img', 'urgent'], { file: 'cat.png' });
    const dogImage = await enqueue('resize', ['img'], { file: 'dog.png' });
    const mailAnn = await enqueue('email', ['urgent'], { to: 'ann@example.com', note: '50% off' });
    const mailBob = await enqueue('email', ['imgs'], { to: 'bob@example.com', note: 'walk the dog; 500 off' });

    const ids = async (filter: { kind?: string; tag?: string; search?: string }): Promise<string[]> =>
      (await client.call('jobs.list', { queue: 'err-list', order: 'oldest', ...filter })).jobs.map((j) => j.id);
    assert.deepEqual(await ids({}), [catImage, dogImage, mailAnn, mailBob]);
    assert.deepEqual(await ids({ kind: 'resize' }), [catImage, dogImage]);
    assert.deepEqual(await ids({ kind: 'email' }), [mailAnn, mailBob]);
    assert.deepEqual(await ids({ kind: 'unknown-kind' }), []);
    assert.deepEqual(await ids({ tag: 'img' }), [catImage, dogImage], 'a tag matches whole, "imgs" is not "img"');
    assert.deepEqual(await ids({ tag: 'urgent' }), [catImage, mailAnn]);
    assert.deepEqual(await ids({ search: 'dog' }), [dogImage, mailBob]);
    assert.deepEqual(await ids({ search: 'example.com' }), [mailAnn, mailBob]);
    assert.deepEqual(await ids({ search: '50%' }), [mailAnn], '% is literal, not a wildcard');
    assert.deepEqual(await ids({ kind: 'resize', tag: 'urgent' }), [catImage]);
    assert.deepEqual(await ids({ tag: 'urgent', search: 'ann@' }), [mailAnn]);
    await rejectsWith(client.call('jobs.list', { queue: 'err-list', tag: '' }), ErrorCode.InvalidParams, 'tag');
  });

  test('stats.get counts a completed and a permanently failed attempt in the last minute and hour', async () => {
    const earlier = await client.call('stats.get');
    await client.call('workers.register', { workerId: 'stats-worker', queues: ['err-stats'] });
    await client.call('jobs.enqueue', { queue: 'err-stats', kind: 'task' });
    await client.call('jobs.enqueue', { queue: 'err-stats', kind: 'task' });
    const { jobs } = await client.call('jobs.claim', { workerId: 'stats-worker', queues: ['err-stats'], max: 2 });
    assert.equal(jobs.length, 2);
    const [first, second] = jobs as [Job, Job];
    await client.call('jobs.complete', { id: first.id, workerId: 'stats-worker' });
    assert.equal((await client.call('jobs.fail', { id: second.id, workerId: 'stats-worker', error: 'no', permanent: true })).job.state, 'dead');

    const later = await client.call('stats.get');
    // Tests in this file run one after another and no job here is left to an executor, so
    // exactly these two attempts finished between the two reads.
    assert.deepEqual(
      {
        completedLastMinute: later.completedLastMinute - earlier.completedLastMinute,
        failedLastMinute: later.failedLastMinute - earlier.failedLastMinute,
        completedLastHour: later.completedLastHour - earlier.completedLastHour,
        failedLastHour: later.failedLastHour - earlier.failedLastHour,
      },
      { completedLastMinute: 1, failedLastMinute: 1, completedLastHour: 1, failedLastHour: 1 },
    );
    const queue = later.queues.find((q) => q.name === 'err-stats');
    assert.deepEqual([queue?.counts.completed, queue?.counts.dead, queue?.counts.running], [1, 1, 0]);
  });

  test('a subscriber gets jobs.changed with state running and attempt 1 on claim, and the progress value', async () => {
    const listener = await daemon.client();
    const events: JobChangedEvent[] = [];
    listener.on('jobs.changed', (e) => events.push(e));
    const { subscriptionId } = await listener.call('events.subscribe', { topics: ['jobs'], queues: ['err-events'] });

    const { job } = await client.call('jobs.enqueue', { queue: 'err-events', kind: 'task' });
    const { jobs } = await client.call('jobs.claim', { workerId: 'events-worker', queues: ['err-events'] });
    assert.equal(jobs[0]?.id, job.id);
    const claimed = await waitFor('a jobs.changed saying the job is running', () => events.find((e) => e.id === job.id && e.state === 'running'), 10_000);
    assert.deepEqual(
      [claimed.subscriptionId, claimed.queue, claimed.kind, claimed.attempt, claimed.progress],
      [subscriptionId, 'err-events', 'task', 1, null],
    );

    await client.call('jobs.progress', { id: job.id, workerId: 'events-worker', percent: 42.6, message: 'going' });
    const progressed = await waitFor('a jobs.changed carrying the progress', () => events.find((e) => e.id === job.id && e.progress !== null), 10_000);
    assert.deepEqual([progressed.state, progressed.attempt, progressed.progress], ['running', 1, 43]);
    listener.close();
  });
});
