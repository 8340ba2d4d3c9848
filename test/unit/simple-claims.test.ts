/**
 * The engine's hint of which workers' claims were lately not simple (daemon/engine/simpleClaims.ts):
 * such a worker's next claims skip the one-statement try, for a while only, on its own queues only.
 * Claims on a real store, simple and not, are the conformance suite's (claimSimple's statement test,
 * the limited and grouped queues' claims).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimpleClaims } from '../../daemon/engine/simpleClaims';
import { Engine } from '../../daemon/engine';
import { sqliteStore } from '../../daemon/storage/sqlite';
import { FakeClock, tempDir } from '../helpers/engineTest';
import * as path from 'node:path';

test('a worker found not simple skips the try for ten seconds, on the same queues only', () => {
  const clock = new FakeClock();
  const hint = new SimpleClaims(clock.now);
  assert.equal(hint.worthTrying('w1', ['q']), true);
  hint.notSimple('w1', ['q']);
  assert.equal(hint.worthTrying('w1', ['q']), false);
  assert.equal(hint.worthTrying('w1', ['other']), true, 'another queue is tried');
  assert.equal(hint.worthTrying('w1', []), true, 'every queue is another claim');
  assert.equal(hint.worthTrying('w2', ['q']), true, 'another worker is tried');
  clock.advance(9_999);
  assert.equal(hint.worthTrying('w1', ['q']), false);
  clock.advance(1);
  assert.equal(hint.worthTrying('w1', ['q']), true, 'forgotten after ten seconds');
  assert.equal(hint.worthTrying('w1', ['q']), true);
});

test('a clock stepped back forgets the hint, and the hint holds at most its bound of workers', () => {
  const clock = new FakeClock();
  const hint = new SimpleClaims(clock.now, 10_000, 3);
  hint.notSimple('w1', ['q']);
  clock.advance(-60_000);
  assert.equal(hint.worthTrying('w1', ['q']), true);
  for (const w of ['a', 'b', 'c']) hint.notSimple(w, ['q']);
  assert.equal(hint.worthTrying('a', ['q']), false);
  hint.notSimple('d', ['q']);
  assert.equal(hint.worthTrying('a', ['q']), true, 'started over at the bound');
  assert.equal(hint.worthTrying('d', ['q']), false);
});

test('claims of a limited queue stay within its concurrency while the hint skips the try, and go on once the limit is lifted', async (t) => {
  const clock = new FakeClock();
  const engine = new Engine({ store: sqliteStore({ dbPath: path.join(tempDir(t), 'spool.db') }), now: clock.now, random: () => 0.5 });
  t.after(() => engine.close());
  await engine.enqueueBatch({ jobs: Array.from({ length: 10 }, () => ({ queue: 'limited', kind: 'k' })) });
  await engine.configureQueue({ name: 'limited', concurrency: 2 });
  assert.equal((await engine.claim({ workerId: 'w', queues: ['limited'], max: 5 })).length, 2);
  assert.equal((await engine.claim({ workerId: 'w', queues: ['limited'], max: 5 })).length, 0, 'the second claim, which skips the try, still holds the limit');
  await engine.configureQueue({ name: 'limited', concurrency: null });
  assert.equal((await engine.claim({ workerId: 'w', queues: ['limited'], max: 5 })).length, 5, 'the long way claims an unlimited queue too');
  clock.advance(10_000);
  assert.equal((await engine.claim({ workerId: 'w', queues: ['limited'], max: 5 })).length, 3, 'tried again: the simple claim takes the rest');
});
