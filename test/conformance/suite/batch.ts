import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, type TestStoreFactory } from '../harness';
import { rejectsWith } from '../../helpers/errors';

/** The batch tests, run against the store `store` makes. */
export function defineBatch(store: TestStoreFactory): void {
  test('enqueueBatch stores every job in order across its multi-row inserts, keys deduplicated in and out of the batch', async (t) => {
    const { engine } = makeEngine(t, store);
    const before = (await engine.enqueue({ queue: 'a', kind: 'k', idempotencyKey: 'known' })).job;
    // 37 jobs: two full inserts of 16 rows and one of 5, over two queues.
    const jobs = Array.from({ length: 37 }, (_, i) => ({
      queue: i % 2 ? 'a' : 'b',
      kind: 'k',
      payload: { i },
      ...(i === 3 || i === 30 ? { idempotencyKey: 'twice' } : {}),
      ...(i === 20 ? { idempotencyKey: 'known' } : {}),
    }));
    const { results } = await engine.enqueueBatch({ jobs });
    assert.equal(results.length, 37);
    assert.deepEqual(results.map((r, i) => r.created || i), results.map((_, i) => (i === 20 || i === 30 ? i : true)));
    assert.equal(results[20]?.job.id, before.id, 'a key already stored returns that job');
    assert.equal(results[30]?.job.id, results[3]?.job.id, 'a key repeated in the batch returns the job its first use created');
    const created = results.filter((r) => r.created).map((r) => r.job);
    for (const job of created) assert.deepEqual((await engine.getJob(job.id)).job, job, 'each result is the job as stored');
    assert.deepEqual(created.map((j) => (j.payload as { i: number }).i), jobs.map((_, i) => i).filter((i) => i !== 20 && i !== 30));
    assert.deepEqual([...created.map((j) => j.id)].sort(), created.map((j) => j.id), 'ids increase in batch order');
    // Odd i go to a (18, plus the job enqueued first), even i to b (19, less the two not created).
    assert.deepEqual([(await engine.getQueue('a')).counts.queued, (await engine.getQueue('b')).counts.queued], [1 + 18, 19 - 2]);
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
  });

  test('completeMany gives each complete the outcome its own call would have had', async (t) => {
    const { engine } = makeEngine(t, store);
    const ids = (await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, (_, i) => ({ queue: i === 3 ? 'other' : 'q', kind: 'k' })) })).results.map((r) => r.job.id);
    const claimed = [...(await engine.claim({ workerId: 'w', max: 4, queues: ['q'] })), ...(await engine.claim({ workerId: 'v', queues: ['other'] }))];
    assert.equal(claimed.length, 5);
    const events: string[] = [];
    engine.subscribe({ jobChanged: (c) => events.push(`${c.id}:${c.state}`) });
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const outcomes = await engine.completeMany([
      { id: a, workerId: 'w', result: { n: 1 } },
      { id: b, workerId: 'someone-else' },
      { id: c, workerId: 'w' },
      { id: a, workerId: 'w' },
      { id: '', workerId: 'w' },
      { id: d, workerId: 'v', result: 'text' },
      { id: '01890000-0000-7000-8000-000000000000', workerId: 'w' },
      // A stale worker's complete before the lease holder's: the holder's still counts.
      { id: e, workerId: 'stale' },
      { id: e, workerId: 'w', result: 'mine' },
    ]);
    const codes = outcomes.map((o) => (o.ok ? o.job.state : isSpoolError(o.error) ? o.error.code : String(o.error)));
    assert.deepEqual(codes, ['completed', ErrorCode.LeaseLost, 'completed', ErrorCode.LeaseLost, ErrorCode.InvalidParams, 'completed', ErrorCode.JobNotFound, ErrorCode.LeaseLost, 'completed']);
    assert.equal((await engine.getJob(e)).job.result, 'mine');
    const second = outcomes[3];
    assert.ok(second && !second.ok && isSpoolError(second.error));
    assert.match(second.error.message, /it is completed now/, 'a job named twice: the second complete is told the first one finished it');
    // As stored, and as each complete returned it.
    for (const [i, id] of [[0, a], [2, c], [5, d]] as const) {
      const outcome = outcomes[i];
      assert.ok(outcome?.ok);
      const stored = await engine.getJob(id);
      assert.deepEqual(stored.job, outcome.job);
      assert.equal(stored.runs.length, 1);
      assert.deepEqual([stored.runs[0]?.outcome, stored.runs[0]?.workerId, stored.runs[0]?.attempt], ['completed', i === 5 ? 'v' : 'w', 1]);
    }
    assert.deepEqual((await engine.getJob(a)).job.result, { n: 1 });
    assert.equal((await engine.getJob(d)).job.result, 'text');
    assert.deepEqual([(await engine.getJob(b)).job.state, (await engine.getJob(b)).job.workerId], ['running', 'w'], 'a refused complete changes nothing');
    assert.deepEqual(events, [`${a}:completed`, `${c}:completed`, `${d}:completed`, `${e}:completed`]);
    assert.equal((await engine.stats()).totals.completed, 4);
    // Three completed in the shared statement and one (e, named twice) on its own; refusals count nothing.
    assert.equal((await engine.stats()).completedLastMinute, 4);
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
    assert.deepEqual(await engine.completeMany([]), []);
    assert.equal((await engine.stats()).completedLastMinute, 4);
  });
  test("completeBatch (jobs.completeMany) completes a worker's jobs and lists the ones it could not", async (t) => {
    const { engine } = makeEngine(t, store);
    const ids = (await engine.enqueueBatch({ jobs: Array.from({ length: 4 }, () => ({ queue: 'q', kind: 'k' })) })).results.map((r) => r.job.id);
    const [a, b, c, d] = ids as [string, string, string, string];
    assert.equal((await engine.claim({ workerId: 'w', max: 3, queues: ['q'] })).length, 3);
    assert.equal((await engine.claim({ workerId: 'v', max: 1, queues: ['q'] })).length, 1);
    const unknown = '01890000-0000-7000-8000-000000000000';
    const answer = await engine.completeBatch({ workerId: 'w', jobs: [{ id: a, result: { n: 1 } }, { id: b }, { id: d }, { id: unknown }] });
    assert.equal(answer.completed, 2);
    assert.deepEqual(
      answer.failed.map((f) => [f.id, f.code]),
      [
        [d, ErrorCode.LeaseLost],
        [unknown, ErrorCode.JobNotFound],
      ],
    );
    assert.match(answer.failed[0]?.message ?? '', /lease|held|worker/i);
    assert.deepEqual((await engine.getJob(a)).job.result, { n: 1 });
    assert.equal((await engine.getJob(b)).job.state, 'completed');
    assert.deepEqual([(await engine.getJob(c)).job.state, (await engine.getJob(d)).job.state], ['running', 'running']);
    assert.equal((await engine.stats()).completedLastMinute, 2);
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
    // Refused as a whole, naming the field: nothing is completed.
    const twice = await rejectsWith(engine.completeBatch({ workerId: 'w', jobs: [{ id: c }, { id: c }] }), ErrorCode.InvalidParams, 'jobs[1].id');
    assert.match(twice.message, /names job .* a second time/);
    await rejectsWith(engine.completeBatch({ workerId: 'w', jobs: [{ id: c }, { id: 'nope' }] }), ErrorCode.InvalidParams, 'jobs[1].id');
    await rejectsWith(engine.completeBatch({ workerId: 'w', jobs: [{ id: c, colour: 1 } as never] }), ErrorCode.InvalidParams, 'jobs[0].colour');
    await rejectsWith(engine.completeBatch({ workerId: 'w', jobs: [] }), ErrorCode.InvalidParams, 'jobs');
    await rejectsWith(engine.completeBatch({ jobs: [{ id: c }] } as never), ErrorCode.InvalidParams, 'workerId');
    assert.equal((await engine.getJob(c)).job.state, 'running');
    // A job with dependents releases them in the same transaction, as its own complete would.
    const parent = (await engine.enqueue({ queue: 'deps', kind: 'build' })).job;
    const child = (await engine.enqueue({ queue: 'deps', kind: 'test', dependsOn: [parent.id] })).job;
    assert.equal(child.state, 'blocked');
    await engine.claim({ workerId: 'w', queues: ['deps'] });
    assert.deepEqual(await engine.completeBatch({ workerId: 'w', jobs: [{ id: parent.id, result: 'built' }] }), { completed: 1, failed: [] });
    assert.equal((await engine.getJob(child.id)).job.state, 'queued');
    const [claimedChild] = await engine.claim({ workerId: 'w', queues: ['deps'] });
    assert.deepEqual(claimedChild?.dependencies?.map((d) => [d.id, d.result]), [[parent.id, 'built']]);
    assert.deepEqual(await engine.verifyCounters(), { ok: true, mismatches: [] });
  });
}
