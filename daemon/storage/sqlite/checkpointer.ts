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
 * - It makes a pass once the WAL holds `passFrames` frames not yet in the database file (SQLite's
 *   own threshold, 1,000 pages) or is `restartFrames` long (see below), or `maxDelayMs` after
 *   the first commit the last pass did not see, whichever comes first; it sleeps while nothing
 *   is committed: the store counts its
 *   commits in shared memory and wakes the thread with `Atomics.notify`. Bookkeeping commits
 *   (the daemon's heartbeat every 2 s) are counted without waking it; it looks for them every
 *   `quietLookMs` (a minute), so an idle daemon makes a pass, and then restarts its WAL with a
 *   sync, once a minute rather than after every heartbeat. Between passes it looks at most every
 *   `minIntervalMs`, by reading the two counts from the WAL index (the -shm file), which costs one
 *   read and no SQLite call.
 *   Why not a pass after every few commits: a pass that copies the whole WAL makes the writer
 *   start it again from its beginning at its next commit, and SQLite then syncs the new WAL
 *   header on the writer's thread (even with `synchronous=NORMAL`); each pass also syncs the
 *   database file, and the writer's own writes can wait behind those syncs in the file system's
 *   journal. With a pass every 5 ms that was a sync on the writer about once every 20 commits,
 *   and most of the daemon's p99 wake-up latency (BENCHMARKS.md, "Wake latency").
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
import * as fs from 'node:fs';
import * as os from 'node:os';
import { workerData } from 'node:worker_threads';
import { SLOT, STATE, type CheckpointerData } from './walCheckpointShared';

function run(data: CheckpointerData): void {
  const control = new Int32Array(data.control);
  // The engine may have closed before this thread finished loading: then never open the file.
  if (Atomics.compareExchange(control, SLOT.state, STATE.starting, STATE.running) !== STATE.starting) return;
  let db: Database.Database | null = null;
  let walIndex: WalIndex | null = null;
  try {
    db = new Database(data.dbPath, { fileMustExist: true });
    db.pragma('busy_timeout = 0');
    // Rows are [busy, frames in the WAL, frames checkpointed] (see SQLite's wal_checkpoint pragma).
    const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').raw();
    const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)').raw();
    walIndex = new WalIndex(`${data.dbPath}-shm`);
    // The commit count at the start of the last pass, and at the last look.
    let passed = -1;
    let looked = -1;
    // How many of the commits counted at the start of the last pass were not quiet, and when the
    // next look for quiet commits is due (they wake nobody: only this look, or a commit that
    // wakes, brings them a pass).
    let passedLoud = -1;
    let quietLookAt = performance.now() + data.quietLookMs;
    // When the oldest commit the last pass did not see must be checkpointed at the latest.
    let dueAt = Infinity;
    // The checkpointed count SQLite reports is for the whole WAL; what a pass copied is the growth.
    let lastBackfilled = 0;
    while (Atomics.load(control, SLOT.state) === STATE.running) {
      const commits = Atomics.load(control, SLOT.commits);
      const loud = (commits - Atomics.load(control, SLOT.quietCommits)) | 0;
      let now = performance.now();
      if (commits === passed || (loud === passedLoud && now < quietLookAt)) {
        // Nothing committed since the last pass, or only quiet commits before their look is due:
        // sleep until a commit that wakes (or close), or until that look.
        if (commits === passed && now >= quietLookAt) quietLookAt = now + data.quietLookMs;
        Atomics.wait(control, SLOT.commits, commits, quietLookAt - now);
        continue;
      }
      now = performance.now();
      if (dueAt === Infinity) dueAt = now + data.maxDelayMs;
      const wal = walIndex.read();
      if (now < dueAt && wal.frames - wal.backfilled < data.passFrames && wal.frames < data.restartFrames) {
        if (commits === looked) {
          // Nothing new since the last look: sleep until a commit, or until the pass is due.
          Atomics.wait(control, SLOT.commits, commits, dueAt - now);
        } else {
          looked = commits;
          Atomics.wait(control, SLOT.state, STATE.running, data.minIntervalMs);
        }
        continue;
      }
      passed = looked = commits;
      passedLoud = loud;
      dueAt = Infinity;
      quietLookAt = performance.now() + data.quietLookMs;
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
    }
  } finally {
    try {
      walIndex?.close();
      db?.close();
    } finally {
      // Whatever happened, the engine waiting in close() must learn that this connection is gone.
      Atomics.store(control, SLOT.state, STATE.stopped);
      Atomics.notify(control, SLOT.state);
    }
  }
}

/**
 * The WAL index's two counts, read from the -shm file (its layout is SQLite's documented WAL
 * file format: https://sqlite.org/walformat.html): the frames in the WAL (`mxFrame` of the first
 * copy of the index header, at byte 16) and how many of them are in the database file already
 * (`nBackfill`, at byte 96), both 32-bit in the machine's byte order. Only a hint of when to make
 * a pass: a value read while the writer updates it is at worst a pass early or one look late.
 */
const LITTLE_ENDIAN = os.endianness() === 'LE';

class WalIndex {
  private readonly buffer = Buffer.alloc(100);
  private fd: number | null = null;

  constructor(private readonly shmPath: string) {}

  /** Frames in the WAL and frames copied; both Infinity when the file cannot be read, so that a pass runs. */
  read(): { frames: number; backfilled: number } {
    const unknown = { frames: Infinity, backfilled: 0 };
    try {
      this.fd ??= fs.openSync(this.shmPath, 'r');
      if (fs.readSync(this.fd, this.buffer, 0, 100, 0) < 100) return unknown;
    } catch {
      return unknown;
    }
    const frames = LITTLE_ENDIAN ? this.buffer.readUInt32LE(16) : this.buffer.readUInt32BE(16);
    const backfilled = LITTLE_ENDIAN ? this.buffer.readUInt32LE(96) : this.buffer.readUInt32BE(96);
    return backfilled <= frames ? { frames, backfilled } : unknown;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
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
  const { dbPath, control, minIntervalMs, passFrames, maxDelayMs, restartFrames, quietLookMs } = v;
  if (typeof dbPath !== 'string' || !(control instanceof SharedArrayBuffer)) throw new Error('The WAL checkpointer was started with incomplete data');
  if (typeof minIntervalMs !== 'number' || typeof passFrames !== 'number' || typeof maxDelayMs !== 'number' || typeof restartFrames !== 'number' || typeof quietLookMs !== 'number') {
    throw new Error('The WAL checkpointer was started with incomplete data');
  }
  return { dbPath, control, minIntervalMs, passFrames, maxDelayMs, restartFrames, quietLookMs };
}

run(checkpointerData(workerData));
