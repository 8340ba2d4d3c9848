/**
 * `schedules.changed` in a real daemon: a subscriber hears of every schedule written over the
 * socket (create, update, disable, enable, trigger, delete) and of each tick the scheduler fires,
 * and a subscription to other topics hears none of it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ScheduleChangedEvent } from '../../shared/protocol';
import { startDaemon, waitFor } from '../helpers/daemon';

describe('schedules.changed', () => {
  test('a subscriber hears of every schedule written over the socket, and a deleted one says so', async (t) => {
    const daemon = await startDaemon();
    t.after(() => daemon.dispose());
    const client = await daemon.client();
    const listener = await daemon.client();
    const heard: ScheduleChangedEvent[] = [];
    listener.on('schedules.changed', (e) => heard.push(e));
    const { subscriptionId } = await listener.call('events.subscribe', { topics: ['schedules'] });
    // A subscriber to other topics is not sent schedule changes.
    const other = await daemon.client();
    const heardByOther: ScheduleChangedEvent[] = [];
    other.on('schedules.changed', (e) => heardByOther.push(e));
    await other.call('events.subscribe', { topics: ['queues'] });

    const job = { kind: 'report', payload: { month: 'may' } };
    await client.call('schedules.create', { name: 'nightly', cron: '0 3 * * *', queue: 'cron', job });
    await client.call('schedules.update', { name: 'nightly', cron: '0 4 * * *' });
    await client.call('schedules.disable', { name: 'nightly' });
    await client.call('schedules.enable', { name: 'nightly' });
    await client.call('schedules.trigger', { name: 'nightly' });
    await client.call('schedules.delete', { name: 'nightly' });
    await waitFor('six schedules.changed', () => heard.length >= 6);
    assert.deepEqual(
      heard.map((e) => ({ name: e.name, deleted: e.deleted ?? false, subscriptionId: e.subscriptionId })),
      [...Array<boolean>(5).fill(false), true].map((deleted) => ({ name: 'nightly', deleted, subscriptionId })),
    );
    assert.ok(heard.every((e) => typeof e.at === 'number'));
    // Notifications on one connection arrive in the order sent: had the other subscription been
    // sent any of the changes, they would have come before the answer to this later call.
    await other.call('schedules.list');
    assert.deepEqual(heardByOther, []);
  });

  test('a subscriber hears of each tick the scheduler fires', async (t) => {
    const daemon = await startDaemon();
    t.after(() => daemon.dispose());
    const client = await daemon.client();
    const listener = await daemon.client();
    const heard: ScheduleChangedEvent[] = [];
    listener.on('schedules.changed', (e) => heard.push(e));
    await listener.call('events.subscribe', { topics: ['schedules'] });
    await client.call('schedules.create', { name: 'every-second', cron: '* * * * * *', queue: 'ticks', job: { kind: 'tick' } });
    // The create, then at least two fires.
    await waitFor('two fires after the create', () => heard.length >= 3, 15_000);
    await client.call('schedules.disable', { name: 'every-second' });
    assert.ok(heard.every((e) => e.name === 'every-second' && e.deleted === undefined));
    const { jobs } = await client.call('jobs.list', { queue: 'ticks' });
    assert.ok(jobs.length >= 2, `the fires enqueued jobs: ${jobs.length}`);
  });
});
