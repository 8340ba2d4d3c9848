/**
 * Every protocol method over a real socket to a real daemon process, with its error cases: the
 * codes and `data.field` a client relies on.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode, METHOD_NAMES, PROTOCOL_VERSION, type JobChangedEvent, type QueueChangedEvent, type StatsChangedEvent } from '../../shared/protocol';
import { STATS_INTERVAL_MS } from '../../daemon/rpc/events';
import { RawConnection, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { rejectsWith } from '../helpers/errors';

describe('the daemon over its socket', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;

  before(async () => {
    daemon = await startDaemon({ args: ['--max-executors', '2'] });
    client = await daemon.client();
  });
  after(() => daemon.dispose());

  test('daemon.status is the handshake: versions, pid, paths, counters', async () => {
    const status = await client.call('daemon.status');
    assert.equal(status.protocolVersion, PROTOCOL_VERSION);
    assert.equal(status.pid, daemon.pid);
    assert.equal(status.socketPath, daemon.socketPath);
    assert.equal(status.dbPath, daemon.dbPath);
    assert.ok(status.uptimeMs >= 0);
    assert.equal(status.executors.cap, 2);
    assert.equal(typeof status.counts.queued, 'number');
    await rejectsWith(client.callUnchecked('daemon.status', { verbose: true }), ErrorCode.InvalidParams, 'verbose');
  });

  test('the socket is mode 0600', () => {
    assert.equal(fs.statSync(daemon.socketPath).mode & 0o777, 0o600);
  });

  test('enqueue, get, list, update, cancel, retry, delete a job', async () => {
    const { job, created } = await client.call('jobs.enqueue', { queue: 'rpc', kind: 'noop', payload: { n: 1 }, delayMs: 60_000, tags: ['a'] });
    assert.equal(created, true);
    assert.equal(job.state, 'queued');
    const again = await client.call('jobs.enqueue', { queue: 'rpc', kind: 'noop', idempotencyKey: 'k1' });
    const same = await client.call('jobs.enqueue', { queue: 'rpc', kind: 'noop', idempotencyKey: 'k1' });
    assert.equal(same.created, false);
    assert.equal(same.job.id, again.job.id);

    const got = await client.call('jobs.get', { id: job.id });
    assert.deepEqual(got.job.payload, { n: 1 });
    assert.deepEqual(got.runs, []);

    const list = await client.call('jobs.list', { queue: 'rpc', limit: 1 });
    assert.equal(list.jobs.length, 1);
    assert.notEqual(list.nextCursor, null);
    const page2 = await client.call('jobs.list', { queue: 'rpc', limit: 10, cursor: list.nextCursor ?? undefined });
    assert.equal(page2.jobs.length, 1);
    assert.equal(page2.nextCursor, null);

    const updated = await client.call('jobs.update', { id: job.id, priority: 7 });
    assert.equal(updated.job.priority, 7);
    const cancelled = await client.call('jobs.cancel', { id: job.id });
    assert.equal(cancelled.job.state, 'cancelled');
    await rejectsWith(client.call('jobs.cancel', { id: job.id }), ErrorCode.InvalidState);
    const retried = await client.call('jobs.retry', { id: job.id });
    assert.equal(retried.job.state, 'queued');
    assert.deepEqual(await client.call('jobs.delete', { id: job.id }), { deleted: 1 });
    await rejectsWith(client.call('jobs.get', { id: job.id }), ErrorCode.JobNotFound);
  });

  test('enqueues committed together (group commit) keep their own answers: errors, and idempotency keys', async () => {
    // Sent in one write, these arrive in one event-loop turn and share a transaction.
    const [a, bad, b, c] = await Promise.allSettled([
      client.call('jobs.enqueue', { queue: 'group', kind: 'k', idempotencyKey: 'same' }),
      client.call('jobs.enqueue', { queue: 'group', kind: 'k', priority: 5000 }),
      client.call('jobs.enqueue', { queue: 'group', kind: 'k', idempotencyKey: 'same' }),
      client.call('jobs.enqueue', { queue: 'group', kind: 'k' }),
    ]);
    assert.equal(a.status, 'fulfilled');
    assert.equal(b.status, 'fulfilled');
    assert.equal(c.status, 'fulfilled');
    assert.equal(bad.status, 'rejected');
    if (a.status !== 'fulfilled' || b.status !== 'fulfilled' || bad.status !== 'rejected') return;
    assert.equal((bad.reason as SpoolError).data.field, 'priority');
    assert.equal(a.value.job.id, b.value.job.id);
    assert.deepEqual([a.value.created, b.value.created], [true, false]);
    assert.equal((await client.call('queues.get', { name: 'group' })).queue.counts.queued, 2);
  });

  test('completes sent together (a JSON-RPC batch) share a commit and keep their own answers', async () => {
    const ids = (await client.call('jobs.enqueueBatch', { jobs: [1, 2, 3].map((n) => ({ queue: 'grouped', kind: 'k', payload: { n } })) })).results.map((r) => r.job.id);
    assert.equal((await client.call('jobs.claim', { workerId: 'gw', queues: ['grouped'], max: 3 })).jobs.length, 3);
    const [a, b, c] = ids as [string, string, string];
    const raw = await RawConnection.open(daemon.socketPath);
    try {
      const complete = (id: number, params: object): object => ({ jsonrpc: '2.0', id, method: 'jobs.complete', params });
      const answers = (await raw.call([
        complete(1, { id: a, workerId: 'gw', result: { sum: 6 } }),
        complete(2, { id: b, workerId: 'intruder' }),
        complete(3, { id: c, workerId: 'gw' }),
        complete(4, { id: a, workerId: 'gw' }),
        complete(5, { id: b }),
      ])) as { id: number; result?: { job: { id: string; state: string } }; error?: { code: number; message: string; data?: { field?: string } } }[];
      const byId = new Map(answers.map((r) => [r.id, r]));
      assert.equal(byId.get(1)?.result?.job.state, 'completed');
      assert.equal(byId.get(1)?.result?.job.id, a);
      assert.equal(byId.get(2)?.error?.code, ErrorCode.LeaseLost);
      assert.equal(byId.get(3)?.result?.job.state, 'completed');
      assert.equal(byId.get(4)?.error?.code, ErrorCode.LeaseLost);
      assert.match(byId.get(4)?.error?.message ?? '', /completed now/);
      assert.equal(byId.get(5)?.error?.code, ErrorCode.InvalidParams);
      assert.equal(byId.get(5)?.error?.data?.field, 'workerId');
    } finally {
      raw.close();
    }
    assert.deepEqual((await client.call('jobs.get', { id: a })).job.result, { sum: 6 });
    assert.deepEqual((await client.call('jobs.get', { id: a })).runs.map((r) => [r.outcome, r.workerId]), [['completed', 'gw']]);
    assert.equal((await client.call('jobs.get', { id: b })).job.state, 'running');
    const counts = (await client.call('queues.get', { name: 'grouped' })).queue.counts;
    assert.deepEqual([counts.running, counts.completed], [1, 2]);
  });

  test('invalid params are refused with the field named, and nothing is stored', async () => {
    const before = (await client.call('stats.get')).totals;
    await rejectsWith(client.call('jobs.enqueue', { queue: '', kind: 'noop' }), ErrorCode.InvalidParams, 'queue');
    await rejectsWith(client.callUnchecked('jobs.enqueue', { queue: 'rpc', kind: 'noop', colour: 'red' }), ErrorCode.InvalidParams, 'colour');
    await rejectsWith(client.call('jobs.enqueue', { queue: 'rpc', kind: 'noop', maxAttempts: 0 }), ErrorCode.InvalidParams, 'maxAttempts');
    await rejectsWith(client.callUnchecked('jobs.get', {}), ErrorCode.InvalidParams, 'id');
    await rejectsWith(client.callUnchecked('jobs.get', { id: 'x', extra: 1 }), ErrorCode.InvalidParams, 'extra');
    await rejectsWith(client.call('jobs.enqueue', { queue: 'rpc', kind: 'noop', payload: 'x'.repeat(1024 * 1024 + 10) }), ErrorCode.PayloadTooLarge);
    assert.deepEqual((await client.call('stats.get')).totals, before);
  });

  test('a shell or http payload that cannot run is refused at enqueue, update and schedule, not left to die', async () => {
    const before = (await client.call('stats.get')).totals;
    const refused = await rejectsWith(client.call('jobs.enqueue', { queue: 'payloads', kind: 'shell', payload: {} }), ErrorCode.InvalidParams, 'payload.command');
    assert.equal(refused.data.allowed, 'a non-empty string');
    const unknown = await rejectsWith(client.call('jobs.enqueue', { queue: 'payloads', kind: 'shell', payload: { cmd: 'ls' } }), ErrorCode.InvalidParams, 'payload.cmd');
    assert.equal(unknown.data.allowed, 'command, cwd, env, permanentExitCodes, limits');
    await rejectsWith(client.call('jobs.enqueue', { queue: 'payloads', kind: 'http', payload: { url: 'nowhere' } }), ErrorCode.InvalidParams, 'payload.url');
    await rejectsWith(
      client.call('schedules.create', { name: 'bad-payload', cron: '* * * * *', queue: 'payloads', job: { kind: 'shell', payload: {} } }),
      ErrorCode.InvalidParams,
      'job.payload.command',
    );
    assert.deepEqual((await client.call('stats.get')).totals, before);
    const { job } = await client.call('jobs.enqueue', { queue: 'payloads', kind: 'shell', delayMs: 600_000, payload: { command: 'true' } });
    await rejectsWith(client.call('jobs.update', { id: job.id, payload: { command: '' } }), ErrorCode.InvalidParams, 'payload.command');
    assert.deepEqual((await client.call('jobs.get', { id: job.id })).job.payload, { command: 'true' });
    await client.call('jobs.delete', { id: job.id });
  });

  test('enqueueBatch is all or nothing; bulk retry of every dead job in a queue', async () => {
    const { results } = await client.call('jobs.enqueueBatch', {
      jobs: [
        { queue: 'batch', kind: 'w' },
        { queue: 'batch', kind: 'w' },
      ],
    });
    assert.equal(results.length, 2);
    await rejectsWith(client.call('jobs.enqueueBatch', { jobs: [{ queue: 'batch', kind: 'w' }, { queue: 'batch', kind: '' }] }), ErrorCode.InvalidParams);
    assert.equal((await client.call('queues.get', { name: 'batch' })).queue.counts.queued, 2);

    const claimed = await client.call('jobs.claim', { workerId: 'w1', queues: ['batch'], max: 2 });
    assert.equal(claimed.jobs.length, 2);
    for (const j of claimed.jobs) await client.call('jobs.fail', { id: j.id, workerId: 'w1', error: 'boom', permanent: true });
    const retried = await client.call('jobs.retryMany', { filter: { queue: 'batch', states: ['dead'] } });
    assert.equal(retried.count, 2);
    const cancelled = await client.call('jobs.cancelMany', { ids: results.map((r) => r.job.id) });
    assert.deepEqual(cancelled, { count: 2, errors: [], stopRequested: 0 });
    const deleted = await client.call('jobs.deleteMany', { ids: results.map((r) => r.job.id) });
    assert.equal(deleted.count, 2);
  });

  test('the worker side: register, claim, heartbeat, progress, checkpoint, log, output, complete', async () => {
    const { worker } = await client.call('workers.register', { workerId: 'worker-a', name: 'test worker', kinds: ['render'] });
    assert.equal(worker.id, 'worker-a');
    const { job } = await client.call('jobs.enqueue', { queue: 'work', kind: 'render', payload: { frame: 1 } });
    const { jobs } = await client.call('jobs.claim', { workerId: 'worker-a', queues: ['work'], kinds: ['render'] });
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].id, job.id);
    assert.equal(jobs[0].state, 'running');
    const beat = await client.call('jobs.heartbeat', { id: job.id, workerId: 'worker-a', extendMs: 60_000 });
    assert.ok(beat.leaseExpiresAt > Date.now() + 50_000);
    assert.equal(beat.cancelRequested, false);
    assert.deepEqual(await client.call('jobs.progress', { id: job.id, workerId: 'worker-a', percent: 50, message: 'half' }), { ok: true });
    assert.deepEqual(await client.call('jobs.checkpoint', { id: job.id, workerId: 'worker-a', checkpoint: { at: 5 } }), { ok: true });
    assert.deepEqual(await client.call('jobs.log', { id: job.id, workerId: 'worker-a', lines: ['one', 'two'] }), { ok: true });
    await rejectsWith(client.call('jobs.complete', { id: job.id, workerId: 'someone-else' }), ErrorCode.LeaseLost);
    const out = await client.call('jobs.output', { id: job.id });
    assert.deepEqual(
      out.lines.map((l) => l.text),
      ['one', 'two'],
    );
    const done = await client.call('jobs.complete', { id: job.id, workerId: 'worker-a', result: { ok: 1 } });
    assert.equal(done.job.state, 'completed');
    assert.deepEqual(done.job.result, { ok: 1 });
    const workers = await client.call('workers.list');
    assert.ok(workers.workers.some((w) => w.id === 'worker-a' && w.type === 'remote'));
    assert.ok(workers.workers.some((w) => w.type === 'builtin'));
    await rejectsWith(client.callUnchecked('jobs.claim', { workerId: 'w', waitMs: -1 }), ErrorCode.InvalidParams, 'waitMs');
    await rejectsWith(client.callUnchecked('jobs.claim', { workerId: 'w', waitMs: 120_000 }), ErrorCode.InvalidParams, 'waitMs');
    await rejectsWith(client.callUnchecked('jobs.claim', { workerId: 'w', builtinKinds: ['shell'] }), ErrorCode.InvalidParams, 'builtinKinds');
  });

  test('a released job goes at once to a worker waiting in a long-poll claim, with its attempt given back', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'release', kind: 'render', maxAttempts: 1 });
    const [claimed] = (await client.call('jobs.claim', { workerId: 'stopping', queues: ['release'] })).jobs;
    assert.equal(claimed?.id, job.id);
    const other = await daemon.client();
    try {
      const waiting = other.call('jobs.claim', { workerId: 'taker', queues: ['release'], waitMs: 30_000 });
      // One connection's lines are handled in order: once a later request on it is answered, the
      // claim has looked for a job, found none, and waits. Only the release can end it early.
      await other.call('daemon.status');
      const startedWaiting = Date.now();
      const released = await client.call('jobs.release', { id: job.id, workerId: 'stopping', reason: 'shutting down' });
      assert.deepEqual([released.job.state, released.job.attempts], ['retrying', 0]);
      const { jobs } = await waiting;
      assert.ok(Date.now() - startedWaiting < 10_000, 'woken by the release, not by the end of its wait');
      assert.deepEqual(jobs.map((j) => [j.id, j.workerId, j.attempts]), [[job.id, 'taker', 1]]);
      const { runs } = await client.call('jobs.get', { id: job.id });
      assert.deepEqual(runs.map((r) => [r.workerId, r.outcome, r.error]), [['stopping', 'interrupted', 'shutting down'], ['taker', 'running', null]]);
      await rejectsWith(client.callUnchecked('jobs.release', { id: job.id, workerId: 'taker', reason: 42 }), ErrorCode.InvalidParams, 'reason');
    } finally {
      other.close();
    }
  });

  test('queues: configure, pause, resume, purge, delete; stats', async () => {
    const configured = await client.call('queues.configure', { name: 'q2', concurrency: 3, defaultMaxAttempts: 4 });
    assert.equal(configured.queue.concurrency, 3);
    await client.call('jobs.enqueue', { queue: 'q2', kind: 'x' });
    assert.equal((await client.call('queues.pause', { name: 'q2' })).queue.paused, true);
    assert.equal((await client.call('jobs.claim', { workerId: 'w2', queues: ['q2'] })).jobs.length, 0);
    assert.equal((await client.call('queues.resume', { name: 'q2' })).queue.paused, false);
    assert.ok((await client.call('queues.list')).queues.some((q) => q.name === 'q2'));
    const stats = await client.call('stats.get');
    assert.ok(stats.queues.some((q) => q.name === 'q2' && q.counts.queued === 1));
    await rejectsWith(client.call('queues.delete', { name: 'q2' }), ErrorCode.InvalidState);
    assert.equal((await client.call('queues.purge', { name: 'q2' })).deleted, 1);
    assert.deepEqual(await client.call('queues.delete', { name: 'q2' }), { deleted: 0 }, 'an empty queue: nothing to delete with it');
    await rejectsWith(client.call('queues.get', { name: 'q2' }), ErrorCode.QueueNotFound);
  });

  test('schedules: create (with the next fire times), get, update, disable, enable, trigger, delete', async () => {
    const created = await client.call('schedules.create', { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', queue: 'cron', job: { kind: 'report' } });
    assert.equal(created.nextRuns.length, 3);
    assert.ok(created.nextRuns[0] > Date.now());
    assert.equal(created.nextRuns[1] - created.nextRuns[0] >= 23 * 3600_000, true);
    assert.equal(created.schedule.nextRunAt, created.nextRuns[0]);
    const bad = await rejectsWith(client.call('schedules.create', { name: 'bad', cron: '61 * * * *', queue: 'cron', job: { kind: 'r' } }), ErrorCode.InvalidParams, 'cron');
    assert.match(bad.message, /61/);
    await rejectsWith(client.call('schedules.create', { name: 'bad', cron: '* * *', queue: 'cron', job: { kind: 'r' } }), ErrorCode.InvalidParams, 'cron');
    await rejectsWith(client.call('schedules.create', { name: 'bad', cron: '* * * * *', timezone: 'Mars/Olympus', queue: 'cron', job: { kind: 'r' } }), ErrorCode.InvalidParams, 'timezone');
    const zeroStep = await rejectsWith(client.call('schedules.create', { name: 'bad', cron: '*/0 * * * *', queue: 'cron', job: { kind: 'r' } }), ErrorCode.InvalidParams, 'cron');
    assert.match(zeroStep.message, /[^.]\.$/, 'one full stop at the end of the parser\'s reason');
    const taken = await rejectsWith(client.call('schedules.create', { name: 'nightly', cron: '0 4 * * *', queue: 'cron', job: { kind: 'report' } }), ErrorCode.AlreadyExists);
    assert.match(taken.message, /spool schedule set nightly .*spool schedule rm nightly/);

    const updated = await client.call('schedules.update', { name: 'nightly', cron: '30 4 * * *' });
    assert.equal(updated.schedule.cron, '30 4 * * *');
    assert.notEqual(updated.schedule.nextRunAt, created.schedule.nextRunAt);
    assert.equal((await client.call('schedules.disable', { name: 'nightly' })).schedule.enabled, false);
    assert.equal((await client.call('schedules.enable', { name: 'nightly' })).schedule.enabled, true);
    assert.equal((await client.call('schedules.get', { name: 'nightly' })).nextRuns.length, 3);
    assert.ok((await client.call('schedules.list')).schedules.some((s) => s.name === 'nightly'));
    const fired = await client.call('schedules.trigger', { name: 'nightly' });
    assert.equal(fired.job.queue, 'cron');
    assert.equal(fired.job.kind, 'report');
    assert.deepEqual(await client.call('schedules.delete', { name: 'nightly' }), { deleted: 1 });
    await rejectsWith(client.call('schedules.get', { name: 'nightly' }), ErrorCode.ScheduleNotFound);
  });

  test('events.subscribe delivers jobs.changed, queues.changed and coalesced stats.changed, filtered by queue', async () => {
    const listener = await daemon.client();
    const jobs: JobChangedEvent[] = [];
    const queues: QueueChangedEvent[] = [];
    const stats: StatsChangedEvent[] = [];
    listener.on('jobs.changed', (e) => jobs.push(e));
    listener.on('queues.changed', (e) => queues.push(e));
    const statsAt: number[] = [];
    listener.on('stats.changed', (e) => {
      stats.push(e);
      statsAt.push(performance.now());
    });
    const { subscriptionId } = await listener.call('events.subscribe', { queues: ['events'] });
    await rejectsWith(listener.callUnchecked('events.subscribe', { topics: ['weather'] }), ErrorCode.InvalidParams, 'topics');
    await rejectsWith(listener.call('events.subscribe', { queues: ['has space'] }), ErrorCode.InvalidParams, 'queues[0]');
    await rejectsWith(listener.call('events.subscribe', { queues: ['events', ''] }), ErrorCode.InvalidParams, 'queues[1]');
    await rejectsWith(listener.call('events.subscribe', { jobIds: ['42'] }), ErrorCode.InvalidParams, 'jobIds[0]');

    await client.call('jobs.enqueue', { queue: 'other', kind: 'x' });
    for (let i = 0; i < 50; i++) await client.call('jobs.enqueue', { queue: 'events', kind: 'x' });
    await client.call('queues.pause', { name: 'events' });
    await waitFor('50 jobs.changed and one queues.changed', () => jobs.length >= 50 && queues.length >= 1);
    assert.ok(jobs.every((e) => e.queue === 'events' && e.subscriptionId === subscriptionId && e.state === 'queued'));
    assert.equal(queues[0].name, 'events');
    // The counts arrive with a delay of at most one coalescing interval after the last change.
    await waitFor('a stats.changed counting the 50 jobs', () =>
      stats.some((e) => e.stats.queues.some((q) => q.name === 'events' && q.counts.queued === 50)),
    );
    assert.ok(stats.length < 50, `stats.changed is coalesced, got ${stats.length} for 51 changes`);
    // At most one per STATS_INTERVAL_MS: arrival gaps may shrink by the delivery jitter of a busy
    // machine, never to the few milliseconds an uncoalesced burst would show.
    const gaps = statsAt.slice(1).map((at, i) => Math.round(at - (statsAt[i] ?? 0)));
    assert.ok(gaps.every((gap) => gap >= STATS_INTERVAL_MS / 2), `stats.changed gaps of at least ~${STATS_INTERVAL_MS} ms, got ${gaps.join(', ')}`);

    assert.deepEqual(await listener.call('events.unsubscribe', { subscriptionId }), { ok: true });
    await rejectsWith(listener.call('events.unsubscribe', { subscriptionId }), ErrorCode.InvalidParams, 'subscriptionId');
    const seen = jobs.length;
    await client.call('jobs.enqueue', { queue: 'events', kind: 'x' });
    // A later request on the listener's own connection is answered after any notification the
    // enqueue produced would have been written, so silence here is real silence.
    await client.call('daemon.status');
    await listener.call('daemon.status');
    assert.equal(jobs.length, seen);
  });

  test('a connection holds at most 64 subscriptions; unsubscribing makes room again', async () => {
    const many = await daemon.client();
    const ids: string[] = [];
    for (let i = 0; i < 64; i++) ids.push((await many.call('events.subscribe', { topics: ['queues'] })).subscriptionId);
    const refused = await rejectsWith(many.call('events.subscribe', { topics: ['queues'] }), ErrorCode.InvalidParams, 'subscriptionId');
    assert.equal(refused.data.limit, 64);
    assert.match(refused.message, /at most 64 subscriptions; unsubscribe some first/);
    // Another connection has its own allowance.
    const other = await daemon.client();
    assert.ok((await other.call('events.subscribe', { topics: ['queues'] })).subscriptionId);
    await many.call('events.unsubscribe', { subscriptionId: ids[0] ?? '' });
    assert.ok((await many.call('events.subscribe', { topics: ['queues'] })).subscriptionId);
  });

  test('jobs.output notifications follow the queue filter of each subscription', async () => {
    const mine = await daemon.client();
    const others = await daemon.client();
    const toMine: string[] = [];
    const toOthers: string[] = [];
    mine.on('jobs.output', (e) => toMine.push(...e.lines.map((l) => l.text)));
    others.on('jobs.output', (e) => toOthers.push(...e.lines.map((l) => l.text)));
    await mine.call('events.subscribe', { topics: ['output'], queues: ['output-mine'] });
    await others.call('events.subscribe', { topics: ['output'], queues: ['output-others'] });
    for (const queue of ['output-mine', 'output-others']) {
      await client.call('jobs.enqueue', { queue, kind: 'logged' });
      const { jobs } = await client.call('jobs.claim', { workerId: 'output-worker', queues: [queue], kinds: ['logged'] });
      assert.equal(jobs.length, 1);
      await client.call('jobs.log', { id: jobs[0].id, workerId: 'output-worker', lines: [`line of ${queue}`] });
      await client.call('jobs.complete', { id: jobs[0].id, workerId: 'output-worker' });
    }
    await waitFor('each subscriber to get the line of its own queue', () => toMine.length >= 1 && toOthers.length >= 1);
    // Answered after any notification already written to these connections: silence is real.
    await mine.call('daemon.status');
    await others.call('daemon.status');
    assert.deepEqual(toMine, ['line of output-mine']);
    assert.deepEqual(toOthers, ['line of output-others']);
    mine.close();
    others.close();
  });

  test('unknown methods, bad envelopes and positional params get the standard codes', async () => {
    const raw = await RawConnection.open(daemon.socketPath);
    try {
      const unknown = (await raw.call({ jsonrpc: '2.0', id: 1, method: 'jobs.explode' })) as { id: number; error: { code: number } };
      assert.equal(unknown.id, 1);
      assert.equal(unknown.error.code, ErrorCode.MethodNotFound);
      const version = (await raw.call({ jsonrpc: '1.0', id: 2, method: 'daemon.status' })) as { error: { code: number } };
      assert.equal(version.error.code, ErrorCode.InvalidRequest);
      const positional = (await raw.call({ jsonrpc: '2.0', id: 3, method: 'jobs.get', params: ['x'] })) as { error: { code: number } };
      assert.equal(positional.error.code, ErrorCode.InvalidParams);
      await raw.write('{"jsonrpc":"2.0","id":4,\n');
      const parse = (await raw.next()) as { id: null; error: { code: number } };
      assert.equal(parse.error.code, ErrorCode.ParseError);
      assert.equal(parse.id, null);
      const batch = (await raw.call([
        { jsonrpc: '2.0', id: 5, method: 'daemon.status' },
        { jsonrpc: '2.0', method: 'daemon.status' },
        { jsonrpc: '2.0', id: 6, method: 'nope' },
      ])) as { id: number; result?: unknown; error?: { code: number } }[];
      assert.ok(Array.isArray(batch));
      assert.equal(batch.length, 2);
      assert.ok(batch.find((r) => r.id === 5)?.result);
      assert.equal(batch.find((r) => r.id === 6)?.error?.code, ErrorCode.MethodNotFound);
      const single = (await raw.call([{ jsonrpc: '2.0', id: 7, method: 'daemon.status' }])) as unknown[];
      assert.ok(Array.isArray(single) && single.length === 1, 'a batch of one is answered with an array of one');
    } finally {
      raw.close();
    }
  });

  test('every protocol method has a handler, and it accepts exactly the params the table declares', async () => {
    // The params of each method as the table's types declare them, from the OpenRPC document
    // generated from the table (test/unit/openrpc.test.ts keeps it current).
    const openrpc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'openrpc.json'), 'utf8')) as {
      methods: { name: string; params: { name: string; required: boolean }[] }[];
    };
    const raw = await RawConnection.open(daemon.socketPath);
    try {
      for (const method of METHOD_NAMES) {
        if (method === 'daemon.shutdown') continue;
        const declared = openrpc.methods.find((m) => m.name === method)?.params;
        assert.ok(declared, `docs/openrpc.json has no ${method}`);
        const response = (await raw.call({ jsonrpc: '2.0', id: method, method, params: { definitelyNotAField: 1 } })) as {
          error?: { code: number; data?: { field?: string; allowed?: string } };
        };
        // The handler ran (no MethodNotFound, no InternalError) and checked its params.
        assert.equal(response.error?.code, ErrorCode.InvalidParams, `${method}: ${JSON.stringify(response)}`);
        const { field, allowed } = response.error.data ?? {};
        if (field === 'definitelyNotAField') {
          const names = allowed === 'none' ? [] : (allowed ?? '').split(', ');
          assert.deepEqual(names.sort(), declared.map((p) => p.name).sort(), `${method}: the fields the daemon accepts are the table's params`);
        } else {
          // A method that first asks for a missing required param names one the table requires.
          assert.ok(declared.some((p) => p.name === field && p.required), `${method} asked for ${field}, which the table does not require`);
        }
      }
    } finally {
      raw.close();
    }
  });

  test('daemon.shutdown answers, then the daemon exits and removes its socket', async () => {
    const other = await startDaemon();
    try {
      const c = await other.client();
      const exited = new Promise<number | null>((resolve) => other.process.once('exit', (code) => resolve(code)));
      assert.deepEqual(await c.call('daemon.shutdown'), { ok: true });
      assert.equal(await exited, 0);
      assert.equal(fs.existsSync(other.socketPath), false);
    } finally {
      await other.dispose();
    }
  });
});
