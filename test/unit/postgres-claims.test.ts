/**
 * Claims on PostgreSQL with several daemons at once: two engines (two pools, as two daemons
 * would have) on one database, claiming in parallel. No job may be claimed twice, every job is
 * claimed, and a queue's concurrency and rate limits hold across the engines, not per engine.
 *
 * The queue limits are written to the queue row directly: this file tests the claim path, and
 * the row is what every daemon reads inside its claim transaction.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { Engine } from '../../daemon/engine';
import { postgresStore } from '../../daemon/storage/postgres';
import type { Job } from '../../shared/protocol/types';
import { FakeClock } from '../helpers/engineTest';
import { failOnDriverWarnings, sharedPostgres } from '../helpers/postgres';

failOnDriverWarnings();

interface TwoDaemons {
  engines: [Engine, Engine];
  clock: FakeClock;
  /** Runs one statement on the database, outside both engines. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

async function twoDaemons(t: TestContext): Promise<TwoDaemons> {
  const url = await (await sharedPostgres()).database(t);
  const clock = new FakeClock();
  const open = (): Engine => {
    const engine = new Engine({ store: postgresStore({ url, poolSize: 6 }), now: clock.now, random: () => 0.5 });
    t.after(() => engine.close());
    return engine;
  };
  const engines: [Engine, Engine] = [open(), open()];
  // A pool, not one client: claimers ask at once, and one client would queue a query behind
  // another's (which node-postgres warns of, and pg 9 refuses).
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // The database is dropped (its connections ended) when the test ends, maybe before this pool closes.
  pool.on('error', () => undefined);
  t.after(() => pool.end().catch(() => undefined));
  return { engines, clock, sql: (text, values = []) => pool.query(text, values) };
}

async function enqueue(engine: Engine, queue: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    const n = Math.min(1000, count - start);
    await engine.enqueueBatch({ jobs: Array.from({ length: n }, () => ({ queue, kind: 'k' })) });
  }
}

test('two engines claiming 2,000 jobs with eight claimers at once claim every job exactly once', async (t) => {
  const { engines, sql } = await twoDaemons(t);
  await enqueue(engines[0], 'bulk', 2000);
  const claimedBy = new Map<string, string>();
  const duplicates: string[] = [];
  const claimer = async (engine: Engine, workerId: string): Promise<void> => {
    for (;;) {
      const jobs = await engine.claim({ workerId, max: 25 });
      if (jobs.length === 0) return;
      for (const job of jobs) {
        if (claimedBy.has(job.id)) duplicates.push(job.id);
        claimedBy.set(job.id, workerId);
      }
      // Complete every other batch at once, so that claims and completions overlap.
      await engines[0].completeMany(jobs.map((job) => ({ id: job.id, workerId, result: null })));
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => claimer(engines[i % 2] as Engine, `w${i}`)));
  assert.deepEqual(duplicates, [], 'no job was claimed twice');
  assert.equal(claimedBy.size, 2000, 'every job was claimed');
  const workers = new Set(claimedBy.values());
  assert.ok(workers.size > 1, 'the claimers shared the work');
  const states = await sql(`SELECT state, count(*)::int AS n, sum(attempts)::int AS attempts FROM jobs GROUP BY state`);
  assert.deepEqual(states.rows, [{ state: 'completed', n: 2000, attempts: 2000 }], 'each job ran one attempt and completed');
});

test('a concurrency limit holds across two engines claiming at once', async (t) => {
  const { engines, sql } = await twoDaemons(t);
  await enqueue(engines[0], 'limited', 300);
  await sql(`UPDATE queues SET concurrency = 4 WHERE name = 'limited'`);
  let peak = 0;
  let done = 0;
  const running = async (): Promise<number> => Number((await sql(`SELECT count(*) AS n FROM jobs WHERE state = 'running'`)).rows[0]?.n);
  const claimer = async (engine: Engine, workerId: string): Promise<void> => {
    while (done < 300) {
      const jobs = await engine.claim({ workerId, max: 3 });
      if (jobs.length === 0) {
        // Nothing free: wait for another claimer's completion rather than spin on the server.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      peak = Math.max(peak, await running());
      for (const job of jobs) await engine.complete({ id: job.id, workerId, result: null });
      done += jobs.length;
    }
  };
  await Promise.all(Array.from({ length: 6 }, (_, i) => claimer(engines[i % 2] as Engine, `w${i}`)));
  assert.equal(done, 300);
  assert.ok(peak <= 4, `at most 4 jobs ran at once across both engines (saw ${peak})`);
  assert.ok(peak >= 2, `claimers did run jobs side by side (saw ${peak})`);
});

test('a concurrency limit counts weights across two engines', async (t) => {
  const { engines, sql } = await twoDaemons(t);
  await engines[0].enqueueBatch({ jobs: Array.from({ length: 20 }, () => ({ queue: 'heavy', kind: 'k', weight: 3 })) });
  await sql(`UPDATE queues SET concurrency = 7 WHERE name = 'heavy'`);
  const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => (engines[i % 2] as Engine).claim({ workerId: `w${i}`, max: 5 })));
  const claimed: Job[] = claims.flat();
  assert.equal(claimed.length, 2, 'two jobs of weight 3 fit in 7; a third would need 9');
  assert.equal(new Set(claimed.map((j) => j.id)).size, 2);
});

test('a rate limit holds across two engines claiming at once', async (t) => {
  const { engines, clock, sql } = await twoDaemons(t);
  await enqueue(engines[0], 'api', 500);
  await sql(`UPDATE queues SET rate_per_second = 10, rate_burst = 5 WHERE name = 'api'`);
  let started = 0;
  // Ten seconds in steps of 100 ms, with six claimers on two engines at every step.
  for (let step = 0; step <= 100; step += 1) {
    const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => (engines[i % 2] as Engine).claim({ workerId: `w${i}`, max: 50 })));
    started += claims.flat().length;
    clock.advance(100);
  }
  // The burst, then 10 a second for 10 seconds: 5 + 100.
  assert.equal(started, 105);
  const claimedOnce = await sql(`SELECT count(*)::int AS n FROM jobs WHERE state = 'running' AND attempts = 1`);
  assert.equal(claimedOnce.rows[0]?.n, 105);
});
