import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteEngine } from '../helpers/sqliteEngine';
import { tempDir } from './helpers/engine';
import { waitFor } from '../helpers/wait';
import { WalCheckpointer, type WalCheckpointerOptions } from '../../daemon/storage/sqlite/walCheckpoints';

const JOBS = 5_000;

let copies = 0;

/** Rows of `table` in a copy of the main database file alone: what checkpoints have put there, WAL aside. */
function rowsInMainFile(dbPath: string, dir: string, table: 'jobs' | 't'): number {
  copies += 1;
  const copy = path.join(dir, `main-file-only-${copies}.db`);
  fs.copyFileSync(dbPath, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
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
  assert.equal(rowsInMainFile(dbPath, dir, 'jobs'), JOBS);

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

/** A writer as the daemon's store opens it: WAL, automatic checkpoints off, one small table. */
function openWriter(dbPath: string): Database.Database {
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return db;
}

/** The WAL header's checkpoint sequence number: how many times the writer started the WAL again. */
function walRestarts(dbPath: string): number {
  const fd = fs.openSync(`${dbPath}-wal`, 'r');
  try {
    const header = Buffer.alloc(16);
    fs.readSync(fd, header, 0, 16, 0);
    return header.readUInt32BE(12);
  } finally {
    fs.closeSync(fd);
  }
}

/** The thread takes a moment to load (longer from source, as here): commits before that prove nothing. */
async function started(checkpointer: WalCheckpointer): Promise<void> {
  await waitFor('the checkpointer thread to open the database', () => checkpointer.status().running, 20_000);
}

/** A writer and a started checkpointer on a fresh file, both closed after the test. */
async function writerWithCheckpointer(
  t: TestContext,
  options: Omit<WalCheckpointerOptions, 'dbPath' | 'onFailure'>,
): Promise<{ dir: string; dbPath: string; db: Database.Database; checkpointer: WalCheckpointer }> {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'spool.db');
  const db = openWriter(dbPath);
  const checkpointer = new WalCheckpointer({ dbPath, onFailure: (error) => assert.fail(error), ...options });
  t.after(() => {
    checkpointer.close();
    db.close();
  });
  await started(checkpointer);
  return { dir, dbPath, db, checkpointer };
}

/** Lets the event loop (and the checkpointer thread, on another core) go on for a moment. */
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

test('the checkpointer copies the WAL once 1,000 frames wait, so the writer starts the WAL again about once per 1,000 frames, not after every few commits', async (t) => {
  // Only the frame threshold decides here: the time limit is out of reach of this test.
  const { dbPath, db, checkpointer } = await writerWithCheckpointer(t, { maxDelayMs: 600_000 });
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  // 2,000 small commits, a frame or two each, with pauses in which a checkpointer that made a
  // pass every few milliseconds would have copied everything (and so restarted the WAL) dozens of times.
  const COMMITS = 2_000;
  for (let i = 0; i < COMMITS; i += 1) {
    insert.run('x'.repeat(100));
    checkpointer.committed();
    if (i % 2 === 1) await turn();
  }
  const frames = checkpointer.status().framesCopied + checkpointer.status().walFrames;
  const status = await waitFor('a pass after the first 1,000 frames', () => {
    const s = checkpointer.status();
    return s.passes > 0 && s;
  });
  assert.ok(status.framesCopied >= 1000, `the pass copied the frames that waited (${status.framesCopied})`);
  // Each pass copies everything, and the next commit restarts the WAL: at most one restart per
  // 1,000 frames of commits (a few thousand frames here), where a pass every 5 ms made one per pass.
  const restarts = walRestarts(dbPath);
  assert.ok(restarts <= 3, `the WAL restarted ${restarts} times in ${COMMITS} commits (${frames} frames copied or waiting)`);
  assert.ok(status.passes <= 4, `${status.passes} passes, ${restarts} restarts`);
});

test('commits below the frame threshold are checkpointed within the time limit', async (t) => {
  const { dir, dbPath, db, checkpointer } = await writerWithCheckpointer(t, { passFrames: 1_000_000, maxDelayMs: 200 });
  for (let i = 0; i < 5; i += 1) {
    db.prepare('INSERT INTO t (body) VALUES (?)').run(`job ${i}`);
    checkpointer.committed();
  }
  await waitFor('a pass that saw every commit and copied the whole WAL', () => {
    const s = checkpointer.status();
    return s.passes > 0 && s.seenCommits === s.commits && s.walFrames > 0 && s.backfilled === s.walFrames;
  });
  assert.equal(rowsInMainFile(dbPath, dir, 't'), 5, 'the main file alone holds the five rows');
});

test('a quiet commit does not wake the checkpointer: the next commit that does takes it along', async (t) => {
  // The look for quiet commits is out of reach of this test: only a commit that wakes can bring a pass.
  const { dir, dbPath, db, checkpointer } = await writerWithCheckpointer(t, { passFrames: 1_000_000, maxDelayMs: 50, quietLookMs: 600_000 });
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  insert.run('loud');
  checkpointer.committed();
  const first = await waitFor('a pass that saw the first commit', () => {
    const s = checkpointer.status();
    return s.seenCommits === s.commits && s.backfilled === s.walFrames && s.walFrames > 0 && s;
  });
  insert.run('quiet');
  checkpointer.committed(true);
  assert.equal(checkpointer.status().commits, first.commits + 1, 'the quiet commit is counted');
  // Ten times the delay after which a commit that wakes the thread is copied: long enough for a
  // pass to have run, had the quiet commit woken it.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const later = checkpointer.status();
  assert.equal(later.passes, first.passes, 'no pass for a quiet commit');
  assert.equal(later.seenCommits, first.commits);
  insert.run('loud again');
  checkpointer.committed();
  await waitFor('one pass that copied both commits', () => {
    const s = checkpointer.status();
    return s.seenCommits === s.commits && s.backfilled === s.walFrames && s.passes > first.passes;
  });
  assert.equal(rowsInMainFile(dbPath, dir, 't'), 3, 'the main file alone holds all three rows');
});

test('quiet commits alone are copied at the checkpointer\'s next look', async (t) => {
  const { dir, dbPath, db, checkpointer } = await writerWithCheckpointer(t, { passFrames: 1_000_000, maxDelayMs: 50, quietLookMs: 300 });
  for (let i = 0; i < 3; i += 1) {
    db.prepare('INSERT INTO t (body) VALUES (?)').run(`beat ${i}`);
    checkpointer.committed(true);
  }
  await waitFor('a pass that saw the quiet commits and copied the whole WAL', () => {
    const s = checkpointer.status();
    return s.passes > 0 && s.seenCommits === s.commits && s.walFrames > 0 && s.backfilled === s.walFrames;
  });
  assert.equal(rowsInMainFile(dbPath, dir, 't'), 3);
});

test('a daemon heartbeat is a quiet commit: counted, without a pass of its own', async (t) => {
  const dir = tempDir(t);
  const { engine, backend } = openSqliteEngine({ dbPath: path.join(dir, 'spool.db'), walCheckpoints: 'background' });
  t.after(() => engine.close());
  const status = (): NonNullable<ReturnType<typeof backend.walCheckpointStatus>['checkpointer']> => {
    const s = backend.walCheckpointStatus().checkpointer;
    assert.ok(s !== null);
    return s;
  };
  await waitFor('the checkpointer thread to open the database', () => status().running, 20_000);
  await engine.registerDaemon({ id: 'd', host: 'box', pid: 101, processStart: null, socketPath: '/run/d.sock', executorId: 'builtin:box:d' });
  const before = await waitFor('a pass after the registration', () => {
    const s = status();
    return s.seenCommits === s.commits && s.passes > 0 && s;
  }, 10_000);
  assert.equal(await engine.daemonHeartbeat('d', 101), true);
  assert.equal(status().commits, before.commits + 1, 'the heartbeat committed');
  // The daemon's checkpointer copies a commit that wakes it a second after it (maxDelayMs).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(status().passes, before.passes, 'no pass for the heartbeat');
  await engine.enqueue({ queue: 'q', kind: 'k' });
  await waitFor('a pass with the enqueue, the heartbeat taken along', () => {
    const s = status();
    return s.seenCommits === s.commits && s.passes > before.passes;
  }, 10_000);
});

test('under a steady write load the WAL file stays bounded', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'spool.db');
  const db = openWriter(dbPath);
  const checkpointer = new WalCheckpointer({ dbPath, onFailure: (error) => assert.fail(error) });
  t.after(() => {
    checkpointer.close();
    db.close();
  });
  await started(checkpointer);
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const body = 'y'.repeat(3000);
  let largest = 0;
  // About 20,000 frames of 4 KiB, 80 MB of WAL had nothing copied it back.
  for (let i = 0; i < 10_000; i += 1) {
    db.transaction(() => {
      insert.run(body);
      insert.run(body);
    })();
    checkpointer.committed();
    if (i % 20 === 19) {
      largest = Math.max(largest, fs.statSync(`${dbPath}-wal`).size);
      await turn();
    }
  }
  // Passes at 1,000 frames waiting, and a RESTART checkpoint past 4,096 frames (16 MiB), tried
  // again at each look while the writer holds the lock: well below what was written.
  assert.ok(largest <= 32 * 1024 * 1024, `the WAL file reached ${largest} bytes`);
  assert.ok(checkpointer.status().passes >= 5, `${checkpointer.status().passes} passes`);
});
