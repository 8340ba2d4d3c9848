import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** `queues.groups`: a grouped queue's groups with their counts, a page at a time, and those at their limit. */
export function defineGroupCounts(store: TestStoreFactory): void {
  test('queues.groups lists a queue\'s groups with waiting and running counts by key, a page at a time, and with atLimit only the full ones', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.configureQueue({ name: 'q', groupConcurrency: 2 });
    await engine.enqueueBatch({
      jobs: [
        ...Array.from({ length: 4 }, () => ({ queue: 'q', kind: 'work', group: 'customer:42' })),
        ...Array.from({ length: 2 }, () => ({ queue: 'q', kind: 'work', group: 'customer:7' })),
        { queue: 'q', kind: 'work', group: 'customer:9', weight: 2 },
        { queue: 'q', kind: 'work' },
      ],
    });
    // Claims take the groups in turn: customer:42 twice (its limit), customer:7 once, customer:9 (weight 2) once.
    for (let i = 0; i < 8; i++) await engine.claim({ workerId: 'w', max: 1, queues: ['q'], kinds: ['work'] });

    const all = await engine.queueGroups({ name: 'q' });
    assert.deepEqual(all, {
      groups: [
        { group: null, waiting: 0, running: 1, runningWeight: 1 },
        { group: 'customer:42', waiting: 2, running: 2, runningWeight: 2 },
        { group: 'customer:7', waiting: 0, running: 2, runningWeight: 2 },
        { group: 'customer:9', waiting: 0, running: 1, runningWeight: 2 },
      ],
      nextAfter: null,
    });
    const first = await engine.queueGroups({ name: 'q', limit: 2 });
    assert.deepEqual(first.groups.map((g) => g.group), [null, 'customer:42']);
    const second = await engine.queueGroups({ name: 'q', limit: 2, after: first.nextAfter ?? undefined });
    assert.deepEqual([second.groups.map((g) => g.group), second.nextAfter], [['customer:7', 'customer:9'], null], 'the next page starts after the last key');

    const full = await engine.queueGroups({ name: 'q', atLimit: true });
    assert.deepEqual(full.groups.map((g) => [g.group, g.waiting, g.runningWeight]), [['customer:42', 2, 2]], 'customer:7 is at its limit but nothing of it waits');
    await engine.configureQueue({ name: 'q', groupConcurrency: null });
    assert.deepEqual((await engine.queueGroups({ name: 'q', atLimit: true })).groups, [], 'no limit per group: no group is at it');

    const missing = await thrown(() => engine.queueGroups({ name: 'nope' }));
    assert.equal(missing.code, ErrorCode.QueueNotFound);
    for (const [params, field] of [
      [{ name: 'q', limit: 0 }, 'limit'],
      [{ name: 'q', after: 'a b' }, 'after'],
      [{ name: 'q', atLimit: 'yes' }, 'atLimit'],
      [{ name: 'q', group: 'x' }, 'group'],
    ] as const) {
      const refused = await thrown(() => engine.queueGroups(params as never));
      assert.equal(refused.code, ErrorCode.InvalidParams, JSON.stringify(params));
      assert.match(String(refused.data['field'] ?? refused.message), new RegExp(field));
    }
  });
}
