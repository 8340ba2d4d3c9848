/**
 * SQLite specifics of the engine's manage tests (the rest run against every store in
 * test/conformance/): the rows a deleted job leaves behind, read from the file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ErrorCode } from '../../shared/protocol';
import { makeEngine, thrown } from './helpers/engine';

test('delete removes a job with its runs and output, but not while it runs', async (t) => {
  const { engine, dbPath } = makeEngine(t);
  const db = new Database(dbPath, { readonly: true });
  t.after(() => db.close());
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 0, jitter: 0 } });
  const kept = (): unknown => db.prepare('SELECT (SELECT count(*) FROM job_runs WHERE job_id = @id) AS runs, (SELECT count(*) FROM job_output WHERE job_id = @id) AS lines').get({ id: job.id });
  // A failed attempt first, so that the history has a row to delete.
  await engine.claim({ workerId: 'w' });
  await engine.fail({ id: job.id, workerId: 'w', error: 'once' });
  await engine.claim({ workerId: 'w' });
  await engine.log({ id: job.id, workerId: 'w', lines: ['a'] });
  const error = await thrown(() => engine.deleteJob(job.id));
  assert.equal(error.code, ErrorCode.InvalidState);
  assert.match(error.message, /Cancel it first/);
  await engine.complete({ id: job.id, workerId: 'w' });
  assert.deepEqual(kept(), { runs: 1, lines: 1 });
  await engine.deleteJob(job.id);
  assert.equal((await thrown(() => engine.getJob(job.id))).code, ErrorCode.JobNotFound);
  assert.deepEqual(kept(), { runs: 0, lines: 0 });
  assert.equal((await engine.getQueue('q')).counts.completed, 0);
  assert.deepEqual((await engine.verifyCounters()).ok, true);
});
