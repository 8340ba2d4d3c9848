import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSpoolError } from '../../../shared/protocol/errors';
import { JOB_STATES } from '../../../shared/protocol/types';
import { seeded } from '../../helpers/random';
import { makeEngine, type TestStoreFactory } from '../harness';

/** The counters tests, run against the store `store` makes. */
export function defineCounters(store: TestStoreFactory): void {
  test('counters agree with a recount after a randomized sequence of 5,000 operations', async (t) => {
    const seed = Number(process.env['SPOOL_TEST_SEED'] ?? 20300101);
    const rand = seeded(seed);
    const { engine, clock } = makeEngine(t, store, { random: rand });
    const pick = <T>(items: readonly T[]): T => {
      const item = items[Math.floor(rand() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    };
    const queues = ['alpha', 'beta', 'gamma'];
    const workers = ['w1', 'w2', 'w3'];
    const ids: string[] = [];
    const running = async (): Promise<{ id: string; workerId: string }[]> =>
      (await engine.listJobs({ states: ['running'], limit: 1000 })).jobs.map((j) => ({ id: j.id, workerId: j.workerId ?? '' }));
    const ops: Record<string, () => Promise<unknown>> = {
      enqueue: async () => ids.push((await engine.enqueue({ queue: pick(queues), kind: 'k', priority: Math.floor(rand() * 10), delayMs: rand() < 0.2 ? 2000 : 0, maxAttempts: 1 + Math.floor(rand() * 3) })).job.id),
      batch: async () => {
        const n = 1 + Math.floor(rand() * 20);
        const key = rand() < 0.3 ? `key-${Math.floor(rand() * 50)}` : undefined;
        const jobs = Array.from({ length: n }, (_, i) => ({ queue: pick(queues), kind: 'k', ...(key && i === 0 ? { idempotencyKey: key } : {}) }));
        for (const r of (await engine.enqueueBatch({ jobs })).results) if (r.created) ids.push(r.job.id);
      },
      claim: async () => void await engine.claim({ workerId: pick(workers), max: 1 + Math.floor(rand() * 8) }),
      complete: async () => {
        const r = await running();
        if (r.length > 0) await engine.complete(pick(r));
      },
      fail: async () => {
        const r = await running();
        if (r.length > 0) await engine.fail({ ...pick(r), error: 'x', permanent: rand() < 0.2 });
      },
      staleComplete: async () => {
        const r = await running();
        if (r.length > 0) await engine.complete({ id: pick(r).id, workerId: 'nobody' });
      },
      cancel: async () => void await engine.cancel(pick(ids)),
      markCancelled: async () => {
        const all = await running();
        const cancelRequested = await Promise.all(all.map(async (j) => (await engine.getJob(j.id)).job.cancelRequested));
        const r = all.filter((_, i) => cancelRequested[i]);
        if (r.length > 0) {
          const j = pick(r);
          await engine.markCancelled(j.id, j.workerId);
        }
      },
      retry: async () => void await engine.retry(pick(ids)),
      update: async () => void await engine.update({ id: pick(ids), priority: 5, delayMs: 10 }),
      delete: async () => engine.deleteJob(pick(ids)),
      retryMany: async () => void await engine.retryMany({ filter: { queue: pick(queues), states: ['dead'] } }),
      cancelMany: async () => void await engine.cancelMany({ ids: [pick(ids), pick(ids)] }),
      purge: async () => void await engine.purgeQueue({ name: pick(queues), states: [pick(['completed', 'cancelled', 'dead', 'queued'] as const)] }),
      tick: async () => {
        clock.advance(Math.floor(rand() * 3000));
        await engine.reapExpiredLeases();
      },
      cleanup: async () => {
        await engine.configureQueue({ name: pick(queues), retentionMs: Math.floor(rand() * 5000) });
        await engine.cleanup(50);
      },
      pause: async () => void (rand() < 0.5 ? await engine.pauseQueue(pick(queues)) : await engine.resumeQueue(pick(queues))),
      recover: async () => void await engine.recoverInterrupted([pick(workers)]),
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
        if (ids.length > 0 || name === 'enqueue' || name === 'batch') await op();
      } catch (error) {
        // Refusals (cancel a finished job, delete a running one, a stale complete) are part of the
        // sequence; anything else is a bug.
        if (!isSpoolError(error)) throw error;
        refused.set(name, (refused.get(name) ?? 0) + 1);
      }
      if (i % 1000 === 999) assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] }, `after ${i + 1} operations (seed ${seed})`);
    }
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
    // The sequence really exercised the transitions: every state was reached at some point.
    const totals = (await engine.stats()).totals;
    const reached = JOB_STATES.filter((s) => totals[s] > 0);
    assert.ok(reached.length >= 4, `states present at the end: ${reached.join(', ')}`);
    assert.ok((refused.get('staleComplete') ?? 0) > 0, 'stale completes were tried and refused');
  });

  test('a claim takes each job off the counter of the state it left, queued or retrying', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const first = (await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 1000, jitter: 0 } })).job;
    await engine.claim({ workerId: 'w' });
    await engine.fail({ id: first.id, workerId: 'w', error: 'again' });
    await engine.enqueue({ queue: 'q', kind: 'k' });
    clock.advance(1000);
    assert.deepEqual((await engine.getQueue('q')).counts, { blocked: 0, queued: 1, running: 0, retrying: 1, held: 0, completed: 0, dead: 0, cancelled: 0 });
    assert.equal((await engine.claim({ workerId: 'w', max: 5 })).length, 2);
    assert.deepEqual((await engine.getQueue('q')).counts, { blocked: 0, queued: 0, running: 2, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 });
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
  });
}
