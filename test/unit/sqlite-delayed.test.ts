/**
 * The delayed count of stats and queue listings (daemon/storage/sqlite/delayed.ts): counted over the due
 * index, kept between reads while nothing could have changed it. Kept counts must never differ
 * from a fresh count, whatever happens between two reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteEngine } from '../helpers/sqliteEngine';
import { isSpoolError } from '../../shared/protocol/errors';
import { makeEngine } from './helpers/engine';
import { seeded } from '../helpers/random';

test('a kept delayed count is reused until time, a write of this engine or another connection could change it', async (t) => {
  const { engine, clock, backend } = makeEngine(t);
  const store = backend.sqlite;
  const later = (await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 60_000 })).job;
  await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 120_000 });
  assert.equal((await engine.getQueue('q')).delayed, 2);
  // A change the store is not told about (a raw statement on its own connection) shows the
  // count is kept: the next read still says 2.
  store.db.prepare(`UPDATE jobs SET run_at = run_at + 1000 WHERE id = ?`).run(later.id);
  store.db.prepare(`UPDATE jobs SET state = 'cancelled' WHERE id = ?`).run(later.id);
  assert.equal((await engine.getQueue('q')).delayed, 2, 'kept');
  store.db.prepare(`UPDATE jobs SET state = 'queued' WHERE id = ?`).run(later.id);

  // Time: once the earliest counted job is due, the count is made again.
  clock.advance(61_000 + 1000);
  assert.equal((await engine.stats()).queues[0]?.delayed, 1);
  // This engine's writes: a delayed enqueue, an update, a cancel.
  const third = (await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 30_000 })).job;
  assert.equal((await engine.getQueue('q')).delayed, 2);
  await engine.update({ id: third.id, delayMs: 0 });
  assert.equal((await engine.getQueue('q')).delayed, 1);
  await engine.update({ id: third.id, delayMs: 5000 });
  assert.equal((await engine.getQueue('q')).delayed, 2);
  await engine.cancel(third.id);
  assert.equal((await engine.getQueue('q')).delayed, 1);
  // Another connection's commit.
  const other = sqliteEngine({ dbPath: store.path, now: clock.now });
  try {
    await other.enqueue({ queue: 'q', kind: 'k', delayMs: 10_000 });
  } finally {
    await other.close();
  }
  assert.equal((await engine.getQueue('q')).delayed, 2);
  // A purge, and a queue deleted and made again under the same name.
  await engine.purgeQueue({ name: 'q', states: ['queued'] });
  assert.equal((await engine.getQueue('q')).delayed, 0);
  await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 10_000 });
  assert.equal((await engine.getQueue('q')).delayed, 1);
  await engine.deleteQueue({ name: 'q', force: true });
  await engine.enqueue({ queue: 'q', kind: 'k' });
  assert.equal((await engine.getQueue('q')).delayed, 0);
});

test('kept delayed counts agree with a fresh count after every step of a randomized sequence', async (t) => {
  const seed = Number(process.env['SPOOL_TEST_SEED'] ?? 20301122);
  const rand = seeded(seed);
  const { engine, clock, dbPath } = makeEngine(t, { random: rand });
  const other = sqliteEngine({ dbPath, now: clock.now, random: rand });
  t.after(() => other.close());
  const reader = new Database(dbPath, { readonly: true });
  t.after(() => reader.close());
  // Delayed as the engine means it: given a run time after its creation, and that time is still
  // to come (a job made at once stays out, even after the clock stepped back past its creation).
  const fresh = reader.prepare(`SELECT count(*) FROM jobs WHERE queue = ? AND state = 'queued' AND run_at > created_at AND run_at > ?`).pluck();
  const queues = ['alpha', 'beta'];
  const ids: string[] = [];
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(rand() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  };
  const delay = (): number => (rand() < 0.6 ? Math.floor(rand() * 10_000) : 0);
  const ops: [string, number, () => Promise<unknown>][] = [
    ['enqueue', 25, async () => ids.push((await engine.enqueue({ queue: pick(queues), kind: 'k', delayMs: delay() })).job.id)],
    ['batch', 5, async () => ids.push(...(await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, () => ({ queue: pick(queues), kind: 'k', delayMs: delay() })) })).results.map((r) => r.job.id))],
    ['other enqueue', 5, async () => ids.push((await other.enqueue({ queue: pick(queues), kind: 'k', delayMs: delay() })).job.id)],
    ['other cancel', 2, async () => void await other.cancel(pick(ids))],
    ['claim', 15, async () => void await engine.claim({ workerId: 'w', max: 3 })],
    ['complete', 8, async () => {
      const running = (await engine.listJobs({ states: ['running'], limit: 10 })).jobs;
      if (running.length > 0) await engine.complete({ id: pick(running).id, workerId: 'w' });
    }],
    ['fail', 4, async () => {
      const running = (await engine.listJobs({ states: ['running'], limit: 10 })).jobs;
      if (running.length > 0) await engine.fail({ id: pick(running).id, workerId: 'w', error: 'x' });
    }],
    ['update', 6, async () => void await engine.update({ id: pick(ids), delayMs: delay() })],
    ['cancel', 4, async () => void await engine.cancel(pick(ids))],
    ['retry', 3, async () => void await engine.retry(pick(ids))],
    ['delete', 3, async () => engine.deleteJob(pick(ids))],
    ['purge', 1, async () => void await engine.purgeQueue({ name: pick(queues), states: ['queued'] })],
    ['tick', 15, async () => clock.advance(Math.floor(rand() * 3000))],
    ['clock back', 2, async () => clock.advance(-Math.floor(rand() * 3000))],
  ];
  const total = ops.reduce((a, [, w]) => a + w, 0);
  let nonZero = 0;
  for (let i = 0; i < 6000; i++) {
    let r = rand() * total;
    const [name, , op] = ops.find(([, w]) => (r -= w) < 0) ?? ops[0]!;
    try {
      if (ids.length > 0 || name.includes('enqueue') || name === 'batch' || name === 'tick') await op();
    } catch (error) {
      if (!isSpoolError(error)) throw error;
    }
    // Not after every step: a read recounts what changed, and some changes only show when
    // several steps (a claim, a retry, a clock step back) come between two reads.
    if (rand() < 0.6) continue;
    const stats = await engine.stats();
    for (const q of queues) {
      const kept = stats.queues.find((s) => s.name === q)?.delayed ?? 0;
      assert.equal(kept, fresh.get(q, clock.ms), `queue ${q} after step ${i + 1} (${name}), seed ${seed}`);
      if (kept > 0) nonZero += 1;
    }
  }
  assert.ok(nonZero > 1000, `the sequence kept delayed jobs around (${nonZero} non-zero reads)`);
});
