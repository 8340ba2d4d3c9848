/**
 * SQLite specifics of the engine's batch tests (the rest run against every store in
 * test/conformance/): group commit (batch), which only a store that works synchronously offers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine } from './helpers/engine';

test('batch commits many calls at once; a refused call undoes only itself; events follow the one commit', async (t) => {
  const { engine } = makeEngine(t);
  const ids = (await engine.enqueueBatch({ jobs: Array.from({ length: 3 }, () => ({ queue: 'q', kind: 'k' })) })).results.map((r) => r.job.id);
  await engine.claim({ workerId: 'w', max: 3 });
  const states: string[] = [];
  engine.subscribe({ jobChanged: (c) => states.push(c.state) });
  const codes: number[] = [];
  // The calls are started inside the batch, not awaited there: a transaction never spans an await.
  const calls = engine.batch(() => {
    const started = [
      engine.complete({ id: ids[0] ?? '', workerId: 'w' }),
      engine.complete({ id: ids[1] ?? '', workerId: 'someone-else' }).catch((error: unknown) => {
        if (!isSpoolError(error)) throw error;
        codes.push(error.code);
      }),
      engine.fail({ id: ids[2] ?? '', workerId: 'w', error: 'x' }),
    ];
    assert.deepEqual(states, [], 'no event before the commit');
    return started;
  });
  await Promise.all(calls);
  assert.deepEqual(codes, [ErrorCode.LeaseLost]);
  assert.deepEqual(states, ['completed', 'retrying']);
  assert.deepEqual(await Promise.all(ids.map(async (id) => (await engine.getJob(id)).job.state)), ['completed', 'running', 'retrying']);
});

test('a batch whose function throws commits nothing and delivers no events', async (t) => {
  const { engine } = makeEngine(t);
  const events: string[] = [];
  engine.subscribe({ jobChanged: (c) => events.push(c.id) });
  assert.throws(() =>
    engine.batch(() => {
      void engine.enqueue({ queue: 'q', kind: 'k' });
      throw new Error('changed my mind');
    }),
  /changed my mind/);
  assert.deepEqual(events, []);
  assert.deepEqual(await engine.listQueues(), []);
  assert.equal((await engine.verifyCounters()).ok, true);
});
