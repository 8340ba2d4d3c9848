/**
 * Statement-level conformance of unique locks (daemon/storage/statements/unique.ts) and of the
 * `uniqueness` a job row carries: each statement called raw, on every store alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import { enqueueInput, statementStore, type StatementStoreFactory } from './harness';

export function defineUniqueStatements(factory: StatementStoreFactory): void {
  describe('statements: unique locks', () => {
    const store = statementStore(factory);

    it('inserts a lock once, swaps its holder only from the holder named, and deletes expired ones', async () => {
      const s = store();
      const result = await s.run(function* () {
        const lock = { hash: 'st-u-a', jobId: 'job-1', until: 1000 };
        return {
          inserted: yield* sql('uniqueLockInsert', lock),
          again: yield* sql('uniqueLockInsert', { ...lock, jobId: 'job-2', until: 5000 }),
          read: yield* sql('uniqueLockGet', 'st-u-a'),
          missing: yield* sql('uniqueLockGet', 'st-u-none'),
          wrongHolder: yield* sql('uniqueLockReplace', { hash: 'st-u-a', jobId: 'job-3', until: 3000, previousJobId: 'job-2' }),
          swapped: yield* sql('uniqueLockReplace', { hash: 'st-u-a', jobId: 'job-3', until: 3000, previousJobId: 'job-1' }),
          afterSwap: yield* sql('uniqueLockGet', 'st-u-a'),
          other: yield* sql('uniqueLockInsert', { hash: 'st-u-b', jobId: 'job-4', until: 2000 }),
          deleted: yield* sql('uniqueLockDeleteExpired', { before: 2500, limit: 10 }),
          left: [yield* sql('uniqueLockGet', 'st-u-a'), yield* sql('uniqueLockGet', 'st-u-b')],
          deletedLimit: yield* sql('uniqueLockDeleteExpired', { before: 10_000, limit: 0 }),
        };
      });
      assert.deepEqual(result, {
        inserted: true,
        again: false,
        read: { hash: 'st-u-a', jobId: 'job-1', until: 1000 },
        missing: undefined,
        wrongHolder: false,
        swapped: true,
        afterSwap: { hash: 'st-u-a', jobId: 'job-3', until: 3000 },
        other: true,
        deleted: 1,
        left: [{ hash: 'st-u-a', jobId: 'job-3', until: 3000 }, undefined],
        deletedLimit: 0,
      });
    });

    it('a job row keeps the uniqueness it was inserted with', async () => {
      const s = store();
      const { job } = await s.enqueue(enqueueInput('st-u-q', { unique: { rule: 'unique', forMs: 60_000, by: ['kind', 'payload.a'], while: 'waiting' } }));
      assert.deepEqual(job.uniqueness, { rule: 'unique', forMs: 60_000, by: ['kind', 'payload.a'], while: 'waiting' });
      const read = await s.read(function* () {
        return yield* sql('jobGet', job.id);
      });
      assert.deepEqual(read, job);
    });
  });
}
