import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSpoolError } from '../../shared/errors';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine } from './helpers/engine';

test('batch commits many calls at once; a refused call undoes only itself; events follow the one commit', (t) => {
  const { engine } = makeEngine(t);
  const ids = engine.enqueueBatch({ jobs: Array.from({ length: 3 }, () => ({ queue: 'q', kind: 'k' })) }).results.map((r) => r.job.id);
  engine.claim({ workerId: 'w', max: 3 });
  const states: string[] = [];
  engine.subscribe({ jobChanged: (c) => states.push(c.state) });
  const codes: number[] = [];
  engine.batch(() => {
    engine.complete({ id: ids[0] ?? '', workerId: 'w' });
    try {
      engine.complete({ id: ids[1] ?? '', workerId: 'someone-else' });
    } catch (error) {
      if (!isSpoolError(error)) throw error;
      codes.push(error.code);
    }
    engine.fail({ id: ids[2] ?? '', workerId: 'w', error: 'x' });
    assert.deepEqual(states, [], 'no event before the commit');
  });
  assert.deepEqual(codes, [ErrorCode.LeaseLost]);
  assert.deepEqual(states, ['completed', 'retrying']);
  assert.deepEqual(ids.map((id) => engine.getJob(id).job.state), ['completed', 'running', 'retrying']);
});

test('a batch whose function throws commits nothing and delivers no events', (t) => {
  const { engine } = makeEngine(t);
  const events: string[] = [];
  engine.subscribe({ jobChanged: (c) => events.push(c.id) });
  assert.throws(() =>
    engine.batch(() => {
      engine.enqueue({ queue: 'q', kind: 'k' });
      throw new Error('changed my mind');
    }),
  /changed my mind/);
  assert.deepEqual(events, []);
  assert.deepEqual(engine.listQueues(), []);
  assert.equal(engine.verifyCounters().ok, true);
});
