/**
 * SQLite specifics of the engine's output tests (the rest run against every store in
 * test/conformance/): migration 7 and the output lines an older Spool wrote.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteEngine } from '../helpers/sqliteEngine';
import { makeEngine } from './helpers/engine';

test('migration 7 keeps the lines an older Spool wrote; their run reads as 0 (not known), and new lines get theirs', async (t) => {
  const { dbPath, engine } = makeEngine(t);
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k', backoff: { strategy: 'fixed', baseMs: 0, jitter: 0 } });
  await engine.claim({ workerId: 'w' });
  await engine.log({ id: job.id, workerId: 'w', lines: ['old'] });
  await engine.close();
  // Turn the file back into what version 6 left: job_output without its run column.
  const db = new Database(dbPath);
  db.exec('ALTER TABLE job_output DROP COLUMN run');
  db.prepare('DELETE FROM schema_migrations WHERE version = 7').run();
  db.close();
  const reopened = sqliteEngine({ dbPath });
  t.after(() => reopened.close());
  await reopened.fail({ id: job.id, workerId: 'w', error: 'x' });
  await reopened.claim({ workerId: 'w' });
  await reopened.log({ id: job.id, workerId: 'w', lines: ['new'] });
  assert.deepEqual((await reopened.output({ id: job.id })).lines.map((l) => [l.run, l.attempt, l.text]), [[0, 1, 'old'], [2, 2, 'new']]);
});
