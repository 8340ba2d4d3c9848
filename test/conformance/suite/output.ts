import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMITS } from '../../../shared/protocol';
import type { OutputLine } from '../../../shared/protocol/types';
import { makeEngine, type TestStoreFactory } from '../harness';

/** The output tests, run against the store `store` makes. */
export function defineOutput(store: TestStoreFactory): void {
  test('output is kept per job in order across attempts, paged by seq, and done once the job finished', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 0, jitter: 0 } });
    const streamed: OutputLine[] = [];
    engine.subscribe({ output: (id, queue, lines) => id === job.id && queue === job.queue && streamed.push(...lines) });
    await engine.claim({ workerId: 'w' });
    await engine.log({ id: job.id, workerId: 'w', lines: ['one', 'two'] });
    await engine.fail({ id: job.id, workerId: 'w', error: 'x' });
    await engine.claim({ workerId: 'w' });
    await engine.appendOutput(job.id, 'w', 'stderr', ['three']);
    const first = await engine.output({ id: job.id, limit: 2 });
    assert.deepEqual(first.lines.map((l) => [l.seq, l.run, l.attempt, l.stream, l.text]), [[1, 1, 1, 'log', 'one'], [2, 1, 1, 'log', 'two']]);
    assert.equal(first.done, false);
    const rest = await engine.output({ id: job.id, after: first.nextAfter });
    assert.deepEqual(rest.lines.map((l) => [l.seq, l.run, l.attempt, l.stream, l.text]), [[3, 2, 2, 'stderr', 'three']]);
    assert.equal(rest.done, false, 'the job still runs');
    await engine.complete({ id: job.id, workerId: 'w' });
    assert.equal((await engine.output({ id: job.id, after: rest.nextAfter })).done, true);
    assert.deepEqual(streamed, [...first.lines, ...rest.lines], 'streamed as stored');

    // A user's retry starts again at attempt 1; its lines carry the next run number.
    await engine.retry(job.id);
    await engine.claim({ workerId: 'w' });
    await engine.log({ id: job.id, workerId: 'w', lines: ['four'] });
    const retried = await engine.output({ id: job.id, after: rest.nextAfter });
    assert.deepEqual(retried.lines.map((l) => [l.seq, l.run, l.attempt, l.text]), [[4, 3, 1, 'four']]);
    assert.deepEqual((await engine.getJob(job.id)).runs.map((r) => [r.run, r.attempt, r.outcome]), [[1, 1, 'failed'], [2, 2, 'completed'], [3, 1, 'running']]);
  });

  test('output with last gives the newest lines in order, done once the job finished, and refuses after or limit beside it', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    await engine.log({ id: job.id, workerId: 'w', lines: Array.from({ length: 30 }, (_, i) => `line ${i + 1}`) });
    const tail = await engine.output({ id: job.id, last: 3 });
    assert.deepEqual(tail.lines.map((l) => [l.seq, l.text]), [[28, 'line 28'], [29, 'line 29'], [30, 'line 30']]);
    assert.equal(tail.nextAfter, 30);
    assert.equal(tail.done, false, 'the job still runs');
    await engine.complete({ id: job.id, workerId: 'w' });
    assert.equal((await engine.output({ id: job.id, last: 1000 })).lines.length, 30);
    assert.equal((await engine.output({ id: job.id, last: 1 })).done, true);
    for (const extra of [{ after: 0 }, { limit: 5 }]) {
      await assert.rejects(engine.output({ id: job.id, last: 2, ...extra }), (error: unknown) => error instanceof Error && 'data' in error && JSON.stringify(error.data).includes(Object.keys(extra)[0]!));
    }
    await assert.rejects(engine.output({ id: job.id, last: 0 }), /last/);
    const { job: silent } = await engine.enqueue({ queue: 'q', kind: 'k' });
    assert.deepEqual(await engine.output({ id: silent.id, last: 5 }), { lines: [], nextAfter: 0, done: false });
  });

  test('output over the per-job cap drops the oldest lines and one marker says how many', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    const cap = LIMITS.maxOutputLinesPerJob;
    for (let start = 0; start < cap + 1500; start += 1000) {
      const n = Math.min(1000, cap + 1500 - start);
      await engine.log({ id: job.id, workerId: 'w', lines: Array.from({ length: n }, (_, i) => `line ${start + i + 1}`) });
    }
    const all: OutputLine[] = [];
    let after = 0;
    for (;;) {
      const page = await engine.output({ id: job.id, after, limit: LIMITS.maxPageSize });
      all.push(...page.lines);
      if (page.lines.length < LIMITS.maxPageSize) break;
      after = page.nextAfter;
    }
    const markers = all.filter((l) => l.stream === 'marker');
    assert.equal(markers.length, 1);
    assert.equal(markers[0]?.text, '[1500 older lines dropped]');
    assert.equal(all[0]?.stream, 'marker', 'the marker comes first, where the dropped lines were');
    const kept = all.filter((l) => l.stream !== 'marker');
    assert.equal(kept.length, cap);
    assert.equal(kept[0]?.text, 'line 1501');
    assert.equal(kept[kept.length - 1]?.text, `line ${cap + 1500}`);
    assert.ok(all.every((l, i) => i === 0 || l.seq > (all[i - 1]?.seq ?? 0)), 'seq increases');
  });

  test('a line longer than the limit is cut at a character boundary and says so', async (t) => {
    const { engine } = makeEngine(t, store);
    const { job } = await engine.enqueue({ queue: 'q', kind: 'k' });
    await engine.claim({ workerId: 'w' });
    const long = 'é'.repeat(LIMITS.maxOutputLineBytes);
    await engine.log({ id: job.id, workerId: 'w', lines: [long, 'short'] });
    const [cut, short] = (await engine.output({ id: job.id })).lines;
    assert.ok(cut);
    assert.ok(Buffer.byteLength(cut.text, 'utf8') <= LIMITS.maxOutputLineBytes);
    assert.match(cut.text, /^é+ … \[16384 bytes, cut to 8192\]$/);
    assert.equal(short?.text, 'short');
  });
}
