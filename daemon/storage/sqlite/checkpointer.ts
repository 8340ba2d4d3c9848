/**
 * The WAL checkpointer: runs in a worker thread (dist/checkpointer.js) with its own connection
 * to the queue's database, and copies committed pages from the WAL into the database file so
 * that the daemon's writer never has to.
 *
 * Why: with SQLite's automatic checkpoint (every 1,000 WAL pages) the commit that crosses the
 * threshold also runs the checkpoint, on the daemon's event loop — about 9 ms every ~60 jobs,
 * which was most of the daemon's p99 latency. The writer turns its automatic checkpoints off
 * (`wal_autocheckpoint = 0`) and this thread does them on the machine's other core.
 *
 * - It makes a pass every few milliseconds while commits keep coming, and sleeps without a
 *   timer while none do: the store counts its commits in shared memory and wakes the thread with
 *   `Atomics.notify`, so an idle daemon stays idle and a look costs no SQLite call at all.
 *   (Other processes writing to the file keep their own automatic checkpoints.)
 * - Each pass is a PASSIVE checkpoint: it never takes the write lock and never waits for
 *   readers, so it cannot delay a commit. It copies what it can.
 * - A WAL is only rewritten from its beginning when no reader is using it; under a steady load
 *   the passes rarely catch up completely, so the file would keep growing. Once it is longer
 *   than `restartFrames`, a RESTART checkpoint takes the write lock to copy the few frames the
 *   last pass left and start the WAL again. The connection's busy timeout is 0, so if the
 *   daemon is inside a transaction (or a reader holds old frames) it gives up at once instead
 *   of waiting with the write lock held, and tries again on the next pass.
 */
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { SLOT, STATE, type CheckpointerData } from './walCheckpointShared';

function run(data: CheckpointerData): void {
  const control = new Int32Array(data.control);
  // The engine may have closed before this thread finished loading: then never open the file.
  if (Atomics.compareExchange(control, SLOT.state, STATE.starting, STATE.running) !== STATE.starting) return;
  let db: Database.Database | null = null;
  try {
    db = new Database(data.dbPath, { fileMustExist: true });
    db.pragma('busy_timeout = 0');
    // Rows are [busy, frames in the WAL, frames checkpointed] (see SQLite's wal_checkpoint pragma).
    const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').raw();
    const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)').raw();
    let seen = -1;
    // The checkpointed count SQLite reports is for the whole WAL; what a pass copied is the growth.
    let lastBackfilled = 0;
    while (Atomics.load(control, SLOT.state) === STATE.running) {
      const commits = Atomics.load(control, SLOT.commits);
      if (commits !== seen) {
        seen = commits;
        let [, walFrames, backfilled] = checkpointRow(passive.get());
        // SQLite counts for the whole WAL; a smaller count than last time means it restarted since.
        Atomics.add(control, SLOT.frames, backfilled >= lastBackfilled ? backfilled - lastBackfilled : backfilled);
        lastBackfilled = backfilled;
        if (walFrames >= data.restartFrames && checkpointRow(restart.get())[0] === 0) {
          // The frames the passive pass left were copied too, and the next commit writes frame 1.
          Atomics.add(control, SLOT.restarts, 1);
          Atomics.add(control, SLOT.frames, walFrames - backfilled);
          walFrames = backfilled = lastBackfilled = 0;
        }
        Atomics.add(control, SLOT.passes, 1);
        Atomics.store(control, SLOT.walFrames, walFrames);
        Atomics.store(control, SLOT.backfilled, backfilled);
        Atomics.store(control, SLOT.seenCommits, commits);
        // Sleeps until the interval ends, or at once when the engine asks this thread to stop.
        Atomics.wait(control, SLOT.state, STATE.running, data.minIntervalMs);
      } else {
        // Nothing committed since the last pass: sleep until a commit (or close) moves the count.
        Atomics.wait(control, SLOT.commits, commits);
      }
    }
  } finally {
    try {
      db?.close();
    } finally {
      // Whatever happened, the engine waiting in close() must learn that this connection is gone.
      Atomics.store(control, SLOT.state, STATE.stopped);
      Atomics.notify(control, SLOT.state);
    }
  }
}

function checkpointRow(row: unknown): [number, number, number] {
  if (!Array.isArray(row) || row.length !== 3 || !row.every((n): n is number => typeof n === 'number')) {
    throw new Error(`PRAGMA wal_checkpoint returned an unexpected row: ${JSON.stringify(row)}`);
  }
  return [row[0], row[1], row[2]];
}

function checkpointerData(value: unknown): CheckpointerData {
  if (typeof value !== 'object' || value === null) throw new Error('The WAL checkpointer was started without its data');
  const v = value as Record<string, unknown>;
  const { dbPath, control, minIntervalMs, restartFrames } = v;
  if (typeof dbPath !== 'string' || !(control instanceof SharedArrayBuffer) || typeof minIntervalMs !== 'number' || typeof restartFrames !== 'number') {
    throw new Error('The WAL checkpointer was started with incomplete data');
  }
  return { dbPath, control, minIntervalMs, restartFrames };
}

run(checkpointerData(workerData));
