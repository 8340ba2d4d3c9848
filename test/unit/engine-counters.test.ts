import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { isSpoolError } from '../../shared/errors';
import { JOB_STATES } from '../../shared/types';
import type { Store } from '../../daemon/storage/sqlite';
import { makeEngine } from './helpers/engine';
import { seeded } from './helpers/random';

test('counters agree with a recount after a randomized sequence of 5,000 operations', (t) => {
  const seed = Number(process.env['SPOOL_TEST_SEED'] ?? 20300101);
  const rand = seeded(seed);
  const { engine, clock } = makeEngine(t, { random: rand });
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(rand() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  };
  const queues = ['alpha', 'beta', 'gamma'];
  const workers = ['w1', 'w2', 'w3'];
  const ids: string[] = [];
  const running = (): { id: string; workerId: string }[] =>
    engine.listJobs({ states: ['running'], limit: 1000 }).jobs.map((j) => ({ id: j.id, workerId: j.workerId ?? '' }));
  const ops: Record<string, () => void> = {
    enqueue: () => ids.push(engine.enqueue({ queue: pick(queues), kind: 'k', priority: Math.floor(rand() * 10), delayMs: rand() < 0.2 ? 2000 : 0, maxAttempts: 1 + Math.floor(rand() * 3) }).job.id),
    batch: () => {
      const n = 1 + Math.floor(rand() * 20);
      const key = rand() < 0.3 ? `key-${Math.floor(rand() * 50)}` : undefined;
      const jobs = Array.from({ length: n }, (_, i) => ({ queue: pick(queues), kind: 'k', ...(key && i === 0 ? { idempotencyKey: key } : {}) }));
      for (const r of engine.enqueueBatch({ jobs }).results) if (r.created) ids.push(r.job.id);
    },
    claim: () => void engine.claim({ workerId: pick(workers), max: 1 + Math.floor(rand() * 8) }),
    complete: () => {
      const r = running();
      if (r.length > 0) engine.complete(pick(r));
    },
    fail: () => {
      const r = running();
      if (r.length > 0) engine.fail({ ...pick(r), error: 'x', permanent: rand() < 0.2 });
    },
    staleComplete: () => {
      const r = running();
      if (r.length > 0) engine.complete({ id: pick(r).id, workerId: 'nobody' });
    },
    cancel: () => void engine.cancel(pick(ids)),
    markCancelled: () => {
      const r = running().filter((j) => engine.getJob(j.id).job.cancelRequested);
      if (r.length > 0) {
        const j = pick(r);
        engine.markCancelled(j.id, j.workerId);
      }
    },
    retry: () => void engine.retry(pick(ids)),
    update: () => void engine.update({ id: pick(ids), priority: 5, delayMs: 10 }),
    delete: () => engine.deleteJob(pick(ids)),
    retryMany: () => void engine.retryMany({ filter: { queue: pick(queues), states: ['dead'] } }),
    cancelMany: () => void engine.cancelMany({ ids: [pick(ids), pick(ids)] }),
    purge: () => void engine.purgeQueue({ name: pick(queues), states: [pick(['completed', 'cancelled', 'dead', 'queued'] as const)] }),
    tick: () => {
      clock.advance(Math.floor(rand() * 3000));
      engine.reapExpiredLeases();
    },
    cleanup: () => {
      engine.configureQueue({ name: pick(queues), retentionMs: Math.floor(rand() * 5000) });
      engine.cleanup(50);
    },
    pause: () => void (rand() < 0.5 ? engine.pauseQueue(pick(queues)) : engine.resumeQueue(pick(queues))),
    recover: () => void engine.recoverInterrupted([pick(workers)]),
  };
  const weights: [string, number][] = [
    ['enqueue', 20], ['batch', 5], ['claim', 20], ['complete', 12], ['fail', 8], ['staleComplete', 2], ['cancel', 4],
    ['markCancelled', 2], ['retry', 4], ['update', 3], ['delete', 3], ['retryMany', 1], ['cancelMany', 1], ['purge', 1],
    ['tick', 8], ['cleanup', 1], ['pause', 2], ['recover', 1],
  ];
  const total = weights.reduce((a, [, w]) => a + w, 0);
  const refused = new Map<string, number>();
  for (let i = 0; i < 5000; i++) {
    let r = rand() * total;
    const [name] = weights.find(([, w]) => (r -= w) < 0) ?? ['enqueue'];
    const op = ops[name];
    if (!op) throw new Error(`no operation ${name}`);
    try {
      if (ids.length > 0 || name === 'enqueue' || name === 'batch') op();
    } catch (error) {
      // Refusals (cancel a finished job, delete a running one, a stale complete) are part of the
      // sequence; anything else is a bug.
      if (!isSpoolError(error)) throw error;
      refused.set(name, (refused.get(name) ?? 0) + 1);
    }
    if (i % 1000 === 999) assert.deepEqual(engine.verifyCounters(), { ok: true, mismatches: [] }, `after ${i + 1} operations (seed ${seed})`);
  }
  assert.deepEqual(engine.verifyCounters(), { ok: true, mismatches: [] });
  // The sequence really exercised the transitions: every state was reached at some point.
  const totals = engine.stats().totals;
  const reached = JOB_STATES.filter((s) => totals[s] > 0);
  assert.ok(reached.length >= 4, `states present at the end: ${reached.join(', ')}`);
  assert.ok((refused.get('staleComplete') ?? 0) > 0, 'stale completes were tried and refused');
});

test('verifyCounters reports a counter that disagrees with the jobs table', (t) => {
  const { engine, dbPath } = makeEngine(t);
  engine.enqueue({ queue: 'q', kind: 'k' });
  const other = new Database(dbPath);
  other.prepare(`UPDATE queue_counts SET count = 5 WHERE queue = 'q' AND state = 'queued'`).run();
  other.close();
  assert.deepEqual(engine.verifyCounters(), { ok: false, mismatches: [{ queue: 'q', state: 'queued', counted: 5, actual: 1 }] });
});

test('a claim takes each job off the counter of the state it left, queued or retrying', (t) => {
  const { engine, clock } = makeEngine(t);
  const first = engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 1000, jitter: 0 } }).job;
  engine.claim({ workerId: 'w' });
  engine.fail({ id: first.id, workerId: 'w', error: 'again' });
  engine.enqueue({ queue: 'q', kind: 'k' });
  clock.advance(1000);
  assert.deepEqual(engine.getQueue('q').counts, { queued: 1, running: 0, retrying: 1, completed: 0, dead: 0, cancelled: 0 });
  assert.equal(engine.claim({ workerId: 'w', max: 5 }).length, 2);
  assert.deepEqual(engine.getQueue('q').counts, { queued: 0, running: 2, retrying: 0, completed: 0, dead: 0, cancelled: 0 });
  assert.deepEqual(engine.verifyCounters(), { ok: true, mismatches: [] });
});

test('inside one batch, later calls see the counts earlier ones changed, and a rolled-back call changes none', (t) => {
  const { engine } = makeEngine(t);
  engine.configureQueue({ name: 'q', concurrency: 2 });
  engine.enqueueBatch({ jobs: Array.from({ length: 5 }, () => ({ queue: 'q', kind: 'k' })) });
  const claimed = engine.batch(() => [1, 2, 3].flatMap(() => engine.claim({ workerId: 'w', max: 1 })));
  // The concurrency check of the third claim counted the two running jobs not yet committed.
  assert.equal(claimed.length, 2);
  engine.batch(() => {
    engine.enqueue({ queue: 'q', kind: 'k' });
    assert.throws(() =>
      engine.batch(() => {
        engine.enqueue({ queue: 'q', kind: 'k' });
        engine.complete({ id: claimed[0]?.id ?? '', workerId: 'w' });
        throw new Error('undo this part');
      }),
    );
  });
  assert.deepEqual(engine.getQueue('q').counts, { queued: 4, running: 2, retrying: 0, completed: 0, dead: 0, cancelled: 0 });
  assert.deepEqual(engine.verifyCounters(), { ok: true, mismatches: [] });
  assert.equal(engine.stats().completedLastMinute, 0, 'the rolled-back complete is not counted as finished');
  engine.batch(() => {
    claimed.forEach((job) => engine.complete({ id: job.id, workerId: 'w' }));
    // Read inside the transaction, before the buckets are written: the pending ones count.
    assert.equal(engine.stats().completedLastMinute, 2);
    assert.equal(engine.stats().totals.completed, 2);
  });
  assert.equal(engine.stats().completedLastMinute, 2);
  assert.equal(engine.getQueue('q').counts.completed, 2);
});

test('when SQLite rolls back the whole transaction under a savepoint, the batch fails and no counter moves', (t) => {
  const { engine } = makeEngine(t);
  engine.enqueue({ queue: 'q', kind: 'k' });
  // A full disk or an I/O error can make SQLite end the transaction itself; ROLLBACK does the same.
  const db = (engine as unknown as { store: Store }).store.db;
  const errors: Error[] = [];
  const member = (write: () => unknown): void => {
    try {
      write();
    } catch (error) {
      errors.push(error instanceof Error ? error : new Error(String(error)));
    }
  };
  // Like the daemon's group commit: each member's failure is caught and the group goes on.
  assert.throws(
    () =>
      engine.batch(() => {
        member(() => engine.enqueue({ queue: 'q', kind: 'k' }));
        member(() =>
          engine.batch(() => {
            db.exec('ROLLBACK');
            throw new Error('simulated disk error');
          }),
        );
        member(() => engine.enqueue({ queue: 'q', kind: 'k' }));
      }),
    /rolled back by an earlier error/,
  );
  assert.deepEqual(errors.map((e) => e.message.slice(0, 30)), ['simulated disk error', 'The write transaction was roll']);
  assert.equal(engine.listJobs({ queue: 'q' }).jobs.length, 1);
  assert.equal(engine.getQueue('q').counts.queued, 1);
  engine.enqueue({ queue: 'q', kind: 'k' });
  assert.equal(engine.getQueue('q').counts.queued, 2);
  assert.deepEqual(engine.verifyCounters(), { ok: true, mismatches: [] });
});
