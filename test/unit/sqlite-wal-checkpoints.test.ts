import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteEngine } from '../helpers/sqliteEngine';
import { tempDir } from './helpers/engine';
import { waitFor } from '../helpers/wait';

const JOBS = 5_000;

/** Jobs in a copy of the main database file alone: what checkpoints have put there, WAL aside. */
function jobsInMainFile(dbPath: string, dir: string): number {
  const copy = path.join(dir, 'main-file-only.db');
  fs.copyFileSync(dbPath, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return Number(db.prepare('SELECT count(*) FROM jobs').pluck().get());
  } finally {
    db.close();
  }
}

test('in background mode a worker thread checkpoints the WAL while the writer never does, and close stops it', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'spool.db');
  const { engine, backend } = openSqliteEngine({ dbPath, walCheckpoints: 'background' });
  t.after(() => engine.close());

  // The writer's own automatic checkpoints are off: from here on only the thread copies pages.
  assert.equal(backend.walCheckpointStatus().mode, 'background');

  // One commit per 100 jobs: 50 commits and a few thousand WAL frames, past SQLite's automatic
  // threshold of 1,000 pages, so a writer that still checkpointed would have done so.
  for (let i = 0; i < JOBS; i += 100) {
    await engine.enqueueBatch({ jobs: Array.from({ length: 100 }, (_, j) => ({ queue: 'wal', kind: 'work', payload: { n: i + j, pad: 'x'.repeat(200) } })) });
  }
  await waitFor(
    'the checkpointer to copy the whole WAL into the database file',
    () => {
      const s = backend.walCheckpointStatus().checkpointer;
      // A pass that began after the last commit, and found every frame in the database file.
      return s !== null && s.framesCopied > 0 && s.seenCommits === s.commits && s.backfilled === s.walFrames;
    },
    20_000,
  );
  const status = backend.walCheckpointStatus();
  assert.equal(status.mode, 'background', 'the writer still leaves checkpoints to the thread');
  assert.ok(status.checkpointer !== null && status.checkpointer.passes > 0 && status.checkpointer.running);
  // The main file alone, without its WAL, now holds every job.
  assert.equal(jobsInMainFile(dbPath, dir), JOBS);

  await engine.close();
  const closed = backend.walCheckpointStatus().checkpointer;
  assert.ok(closed !== null && !closed.running, 'close() returns once the thread has closed its connection');
  await waitFor('the checkpointer thread to exit', () => backend.walCheckpointStatus().checkpointer?.exited === true, 10_000);
  // The writer closed last, so it checkpointed what was left and removed the WAL file.
  assert.equal(fs.existsSync(`${dbPath}-wal`), false);
});

test('by default the writer checkpoints on commit and no thread is started', async (t) => {
  const dir = tempDir(t);
  const { engine, backend } = openSqliteEngine({ dbPath: path.join(dir, 'spool.db') });
  t.after(() => engine.close());
  assert.deepEqual(backend.walCheckpointStatus(), { mode: 'auto', checkpointer: null });
});

test('an engine closed right after it opened, before its checkpointer thread is up, stops that thread too', async (t) => {
  const dir = tempDir(t);
  const { engine, backend } = openSqliteEngine({ dbPath: path.join(dir, 'spool.db'), walCheckpoints: 'background' });
  await engine.close();
  await waitFor('the checkpointer thread to exit', () => backend.walCheckpointStatus().checkpointer?.exited === true, 10_000);
  const status = backend.walCheckpointStatus().checkpointer;
  assert.ok(status !== null && !status.running);
});
