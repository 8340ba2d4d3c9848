import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UuidV7 } from '../../../shared/domain/uuid';
import { makeEngine, type TestStoreFactory } from '../harness';

/** The list tests, run against the store `store` makes. */
export function defineList(store: TestStoreFactory): void {
  test('listing filters by queue, states, kind, tag, text and delay', async (t) => {
    const { engine } = makeEngine(t, store);
    const a = (await engine.enqueue({ queue: 'q', kind: 'email', payload: { to: 'ann@example.com' }, tags: ['vip'] })).job;
    const b = (await engine.enqueue({ queue: 'q', kind: 'sms', payload: { to: '+100%_x' }, delayMs: 10_000 })).job;
    const c = (await engine.enqueue({ queue: 'other', kind: 'email', maxAttempts: 1 })).job;
    await engine.claim({ workerId: 'w', queues: ['other'] });
    await engine.fail({ id: c.id, workerId: 'w', error: 'mailbox unavailable' });
    const ids = async (params: Parameters<typeof engine.listJobs>[0]): Promise<string[]> => (await engine.listJobs(params)).jobs.map((j) => j.id);
    assert.deepEqual(await ids({ queue: 'q' }), [b.id, a.id]);
    assert.deepEqual(await ids({ states: ['dead'] }), [c.id]);
    assert.deepEqual(await ids({ states: ['dead', 'queued'], order: 'oldest' }), [a.id, b.id, c.id]);
    assert.deepEqual(await ids({ kind: 'email' }), [c.id, a.id]);
    assert.deepEqual(await ids({ tag: 'vip' }), [a.id]);
    assert.deepEqual(await ids({ search: 'ann@' }), [a.id]);
    assert.deepEqual(await ids({ search: '100%_' }), [b.id], 'LIKE wildcards in the search are literal');
    assert.deepEqual(await ids({ search: 'mailbox' }), [c.id], 'the search covers the last error');
    assert.deepEqual(await ids({ delayed: true }), [b.id]);
    assert.deepEqual(await ids({ queue: 'q', delayed: false }), [a.id]);
    // a and c share a run time (a dead job keeps its last one); the id breaks the tie.
    assert.deepEqual(await ids({ order: 'runAt' }), [a.id, c.id, b.id]);
  });

  test('an id suffix finds the jobs whose ids end with it (the 8 characters the views show, or more, or fewer), in a listing and a bulk action', async (t) => {
    const { engine } = makeEngine(t, store);
    // Enough jobs that two of them share their last 4 characters (65,536 values: 4,000 ids
    // share one with near certainty), so a suffix that names several jobs is tested too.
    const all: string[] = [];
    for (let b = 0; b < 4; b++) {
      const batch = await engine.enqueueBatch({ jobs: Array.from({ length: 1000 }, (_, i) => ({ queue: i % 2 ? 'a' : 'b', kind: 'k' })) });
      all.push(...batch.results.map((r) => r.job.id));
    }
    const ending = (suffix: string): string[] => all.filter((id) => id.endsWith(suffix)).sort().reverse();
    const ids = async (params: Parameters<typeof engine.listJobs>[0]): Promise<string[]> => (await engine.listJobs({ limit: 100, ...params })).jobs.map((j) => j.id);
    const one = all[1234] ?? '';
    assert.deepEqual(await ids({ idSuffix: one.slice(-8) }), ending(one.slice(-8)));
    assert.ok((await ids({ idSuffix: one.slice(-8) })).includes(one));
    assert.deepEqual(await ids({ idSuffix: one.slice(-13) }), [one], 'a longer suffix, across the dash');
    assert.deepEqual(await ids({ idSuffix: one }), [one], 'a whole id is a suffix of itself');
    const seen = new Map<string, number>();
    for (const id of all) seen.set(id.slice(-4), (seen.get(id.slice(-4)) ?? 0) + 1);
    const shared = [...seen].find(([, n]) => n >= 2)?.[0] ?? '';
    assert.ok(ending(shared).length >= 2);
    assert.deepEqual(await ids({ idSuffix: shared }), ending(shared), 'a shorter suffix names every job that ends with it');
    assert.equal((await engine.listJobs({ idSuffix: shared, limit: 2 })).jobs.length, 2, 'limit 2 tells one match from several');
    // Job k went to queue a when k is odd (the batches alternate), so `one` (1234) is in b.
    const inQueue = (queue: string, list: string[]): string[] => list.filter((id) => (all.indexOf(id) % 2 ? 'a' : 'b') === queue);
    assert.deepEqual(await ids({ idSuffix: one.slice(-8), queue: 'a' }), inQueue('a', ending(one.slice(-8))), 'the other fields still narrow it');
    assert.deepEqual(await ids({ idSuffix: one.slice(-8), queue: 'b', states: ['queued', 'dead'] }), inQueue('b', ending(one.slice(-8))));
    assert.deepEqual(await ids({ idSuffix: 'ffffffff-ffff' }), ending('ffffffff-ffff'), 'no job ends so: none');
    assert.deepEqual(await engine.cancelMany({ filter: { idSuffix: one.slice(-12) } }), { count: 1, errors: [], stopRequested: 0 });
    assert.equal((await engine.getJob(one)).job.state, 'cancelled');
  });

  test('cursor pagination walks every job exactly once in each order, across states', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const created: string[] = [];
    for (let i = 0; i < 23; i++) {
      created.push((await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts: 1, runAt: clock.ms + ((i * 7) % 5) * 1000 })).job.id);
      await engine.enqueue({ queue: 'elsewhere', kind: 'k' });
      if (i % 4 === 0) clock.advance(1);
    }
    // Spread the queue's jobs over several states, so a page merges ranges of different states.
    clock.advance(5000);
    const claimed = await engine.claim({ workerId: 'w', queues: ['q'], max: 9 });
    for (const j of claimed.slice(0, 3)) await engine.complete({ id: j.id, workerId: 'w' });
    for (const j of claimed.slice(3, 6)) await engine.fail({ id: j.id, workerId: 'w', error: 'x' });
    await engine.cancel(created[22] ?? '');
    for (const order of ['newest', 'oldest', 'runAt'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await engine.listJobs({ queue: 'q', order, limit: 5, ...(cursor ? { cursor } : {}) });
        seen.push(...page.jobs.map((j) => j.id));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      assert.equal(pages, 5, order);
      assert.equal(new Set(seen).size, 23, order);
      const all = (await engine.listJobs({ queue: 'q', order, limit: 100 })).jobs.map((j) => j.id);
      assert.deepEqual(seen, all, order);
      if (order !== 'runAt') assert.deepEqual(seen, order === 'newest' ? [...created].reverse() : created, order);
    }
    const someStates = await engine.listJobs({ queue: 'q', states: ['completed', 'dead'], order: 'oldest', limit: 2 });
    assert.deepEqual(someStates.jobs.map((j) => j.id), created.filter((id) => claimed.slice(0, 6).some((c) => c.id === id)).slice(0, 2));
    assert.deepEqual((await engine.listJobs({ queue: 'q', order: 'oldest', limit: 100 })).jobs.map((j) => j.id), created);
  });

  test('UUIDv7 ids are valid, unique and strictly increasing even when the clock stands still or steps back', async () => {
    let ms = 1_700_000_000_000;
    const ids = new UuidV7(() => ms);
    const made: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i === 5000) ms -= 10_000;
      made.push(ids.next());
    }
    for (const id of made) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(made.every((id, i) => i === 0 || id > (made[i - 1] ?? '')));
    assert.equal(parseInt((made[0] ?? '').replace(/-/g, '').slice(0, 12), 16), 1_700_000_000_000);
  });

  test('running jobs, which the listing index leaves out, are listed newest first and paged like the others', async (t) => {
    const { engine } = makeEngine(t, store);
    const jobs = (await engine.enqueueBatch({ jobs: Array.from({ length: 12 }, (_, i) => ({ queue: i % 3 === 0 ? 'other' : 'q', kind: 'k' })) })).results.map((r) => r.job);
    assert.equal((await engine.claim({ workerId: 'w', max: 12 })).length, 12);
    const inQ = jobs.filter((j) => j.queue === 'q').map((j) => j.id);
    const done = inQ[2] ?? '';
    await engine.complete({ id: done, workerId: 'w' });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await engine.listJobs({ queue: 'q', states: ['running'], limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(seen, inQ.filter((id) => id !== done).reverse());
    assert.equal((await engine.listJobs({ states: ['running'], limit: 100 })).jobs.length, 11);
    assert.deepEqual((await engine.listJobs({ queue: 'q', states: ['completed'] })).jobs.map((j) => j.id), [done]);
  });
}
