/**
 * The claim statement's answer budget, on the store itself (a budget small enough to reach with
 * small payloads): a claim stops after the job that crosses it, counting payload and checkpoint.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { UuidV7 } from '../../shared/domain/uuid';
import { CLAIM_ANSWER_BUDGET, SqliteDatabase, UNBUDGETED_CLAIM_MAX, type JobInsert } from '../../daemon/storage/sqlite/database';
import { PLAIN_JOB_INSERT } from '../../daemon/storage/statements/jobs';
import { tempDir } from './helpers/engine';

const KINDS = { exclude: ['shell', 'http'] };

function openStore(t: Parameters<typeof tempDir>[0]): SqliteDatabase {
  const store = new SqliteDatabase(path.join(tempDir(t), 'spool.db'), {
    now: Date.now(),
  });
  t.after(() => store.close());
  const now = Date.now();
  store.write(() =>
    store.queues.insert({
      name: 'q',
      concurrency: null,
      ratePerSecond: null,
      rateBurst: null,
      paused: 0,
      defaultMaxAttempts: 3,
      backoffStrategy: 'fixed',
      backoffBaseMs: 1000,
      backoffCapMs: 1000,
      backoffJitter: 0,
      defaultTimeoutMs: 30_000,
      retentionMs: null,
      now,
    }),
  );
  return store;
}

function jobs(count: number, payloadChars: number): JobInsert[] {
  const ids = new UuidV7(Date.now);
  const now = Date.now() - 1000;
  return Array.from({ length: count }, (_, i) => ({
    id: ids.next(),
    queue: 'q',
    kind: 'k',
    // A JSON string of exactly payloadChars characters, quotes included.
    payload: JSON.stringify(String(i % 10).repeat(payloadChars - 2)),
      ...PLAIN_JOB_INSERT,
    priority: 0,
    weight: 1,
    runAt: now,
    maxAttempts: 3,
    backoffStrategy: 'fixed',
    backoffBaseMs: 1000,
    backoffCapMs: 1000,
    backoffJitter: 0,
    timeoutMs: 30_000,
    idempotencyKey: null,
    tags: '[]',
    context: null,
    now,
  }));
}

test('a claim stops after the job that crosses the answer budget, and the rest stay queued in order', async (t) => {
  const store = openStore(t);
  const inserted = jobs(10, 1000);
  store.write(() => store.jobs.jobInsertMany(inserted));
  // The second job carries a saved checkpoint of 1,000 characters too (a retry resumes from it).
  store.db.prepare('UPDATE jobs SET checkpoint = ? WHERE id = ?').run(JSON.stringify('c'.repeat(998)), inserted[1]?.id);
  const now = Date.now();
  // 2,500 characters: 0 and 1,000 come before the first two jobs, 3,000 before the third.
  const first = store.write(() => store.claims.claimJobs({ queue: 'q', kinds: KINDS, limit: 10, workerId: 'w', now, budget: 2500, room: null, peeked: false }));
  assert.deepEqual(first.jobs.map((j) => j.id), inserted.slice(0, 2).map((j) => j.id));
  assert.equal(first.chars, 3000);
  // A budget smaller than one job still takes one: a claim never comes back empty for its size.
  const one = store.write(() => store.claims.claimJobs({ queue: 'q', kinds: KINDS, limit: 10, workerId: 'w', now, budget: 1, room: null, peeked: false }));
  assert.deepEqual(one.jobs.map((j) => j.id), [inserted[2]?.id]);
  // Without a lower budget, a claim above UNBUDGETED_CLAIM_MAX uses the budgeted statement and takes all.
  assert.ok(UNBUDGETED_CLAIM_MAX < 100);
  const rest = store.write(() => store.claims.claimJobs({ queue: 'q', kinds: KINDS, limit: 100, workerId: 'w', now, budget: CLAIM_ANSWER_BUDGET, room: null, peeked: false }));
  assert.deepEqual(rest.jobs.map((j) => j.id), inserted.slice(3).map((j) => j.id));
  assert.equal(rest.chars, 7000);
});
