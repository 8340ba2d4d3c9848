/**
 * The daemon's side of the background WAL checkpointer (the thread itself is checkpointer.ts):
 * starts the worker thread, reads its counters, stops it synchronously on close, and reports a
 * failure once so the store can turn SQLite's automatic checkpoints back on.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { SLOT, SLOTS, STATE, type CheckpointerData } from './walCheckpointShared';

export interface WalCheckpointStatus {
  /** The thread is open on the database and checkpointing. */
  running: boolean;
  /** The thread has ended (stopped or failed) and its event has reached this thread. */
  exited: boolean;
  passes: number;
  framesCopied: number;
  restarts: number;
  /** WAL length in frames after the checkpointer's last pass. */
  walFrames: number;
  /** How many of them were in the database file then: equal means the WAL was fully checkpointed. */
  backfilled: number;
  /** Commits counted by the store, and how many of them the last pass had seen when it began. */
  commits: number;
  seenCommits: number;
}

export interface WalCheckpointerOptions {
  dbPath: string;
  /** Called at most once, on this thread, if the checkpointer fails after start. */
  onFailure: (error: Error) => void;
  minIntervalMs?: number;
  passFrames?: number;
  maxDelayMs?: number;
  restartFrames?: number;
  quietLookMs?: number;
}

/** How long close() waits for a pass in progress to finish before terminating the thread. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * Where the worker's code is. In the bundles (dist/daemon.js, and dist/checkpointer.js built
 * beside it by esbuild.mjs) `__dirname` is dist/. Run from source under tsx (the unit tests),
 * `__dirname` is daemon/storage/sqlite/ and only checkpointer.ts is there: the tests then exercise the code
 * as it is, not a build that may be stale.
 */
export function checkpointerScriptPath(): string {
  const bundled = path.join(__dirname, 'checkpointer.js');
  return fs.existsSync(bundled) ? bundled : path.join(__dirname, 'checkpointer.ts');
}

function startThread(script: string, options: WorkerOptions): Worker {
  if (!script.endsWith('.ts')) return new Worker(script, options);
  // A worker thread does not get the hooks `node --import tsx` installed on the main thread
  // (Node 20 gives each thread its own loader), so the source is loaded through tsx's require
  // hook, installed in the thread first. (Resolved through createRequire so that esbuild, which
  // never reaches this branch in a bundle, does not try to bundle tsx.)
  const tsx = createRequire(__filename).resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(script)});`, { ...options, eval: true });
}

export class WalCheckpointer {
  private readonly shared = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
  private readonly control = new Int32Array(this.shared);
  private readonly worker: Worker;
  private closed = false;
  private failed = false;
  private exited = false;

  constructor(options: WalCheckpointerOptions) {
    // A pass once 1,000 frames wait (SQLite's own automatic threshold, 4 MiB with 4 KiB pages)
    // or a second after the first commit it has not copied: the WAL restarts (and its header is
    // synced on the writer's thread) about once per 1,000 frames instead of after nearly every
    // pass, and a power cut loses at most about the last second of commits without `--durable`,
    // as it did with passes every 5 ms when the writes were few. Looks every 5 ms while commits
    // come; when nothing is committed the thread sleeps until the next commit wakes it.
    // 4,096 frames is 16 MiB of WAL with 4 KiB pages.
    const data: CheckpointerData = {
      dbPath: options.dbPath,
      control: this.shared,
      minIntervalMs: options.minIntervalMs ?? 5,
      passFrames: options.passFrames ?? 1000,
      maxDelayMs: options.maxDelayMs ?? 1000,
      restartFrames: options.restartFrames ?? 4096,
      // Bookkeeping commits (a heartbeat every 2 s) do not wake the thread: it looks for them
      // once a minute, so an idle daemon makes a pass, and restarts its WAL, once a minute.
      quietLookMs: options.quietLookMs ?? 60_000,
    };
    const fail = (error: Error): void => {
      if (this.failed || this.closed) return;
      this.failed = true;
      options.onFailure(error);
    };
    // The thread allocates a few small arrays per pass; the limits only bound what it may take.
    // Its fixed cost is a Node thread: ~10 MB more resident memory, measured on an idle daemon.
    this.worker = startThread(checkpointerScriptPath(), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
    // The thread must never keep a process alive that is otherwise done.
    this.worker.unref();
    this.worker.on('error', (error) => fail(error));
    this.worker.on('exit', (code) => {
      this.exited = true;
      if (!this.closed) fail(new Error(`the WAL checkpointer thread exited on its own (code ${code})`));
    });
  }

  status(): WalCheckpointStatus {
    return {
      running: Atomics.load(this.control, SLOT.state) === STATE.running,
      exited: this.exited,
      passes: Atomics.load(this.control, SLOT.passes),
      framesCopied: Atomics.load(this.control, SLOT.frames) >>> 0,
      restarts: Atomics.load(this.control, SLOT.restarts),
      walFrames: Atomics.load(this.control, SLOT.walFrames),
      backfilled: Atomics.load(this.control, SLOT.backfilled),
      commits: Atomics.load(this.control, SLOT.commits),
      seenCommits: Atomics.load(this.control, SLOT.seenCommits),
    };
  }

  /**
   * Called after each commit: tells the thread there is something to checkpoint, and wakes it if
   * it sleeps for want of commits (a notify with no thread waiting costs no system call). A
   * `quiet` commit (bookkeeping, such as the daemon's heartbeat) is counted without waking the
   * thread: the next commit that does, or the thread's next look (`quietLookMs`), takes it along.
   */
  committed(quiet = false): void {
    // Quiet first: the thread reads commits, then quietCommits, and takes the difference for the
    // commits that wake it. So a commit that wakes is never taken for a quiet one; at worst a quiet
    // commit counted between the two reads is taken for one that wakes, and copied early.
    if (quiet) Atomics.add(this.control, SLOT.quietCommits, 1);
    Atomics.add(this.control, SLOT.commits, 1);
    if (!quiet) Atomics.notify(this.control, SLOT.commits);
  }

  /**
   * Stops the thread and returns once its connection is closed (or it never opened one), so the
   * caller may close the writer as the last connection. A pass in progress is let finish.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const before = Atomics.compareExchange(this.control, SLOT.state, STATE.starting, STATE.stopped);
    if (before === STATE.running) {
      Atomics.compareExchange(this.control, SLOT.state, STATE.running, STATE.stopping);
      Atomics.notify(this.control, SLOT.state);
      // A thread asleep until the next commit is woken too; moving the count makes sure it does
      // not go to sleep on the old value just after this notify.
      Atomics.add(this.control, SLOT.commits, 1);
      Atomics.notify(this.control, SLOT.commits);
      const deadline = Date.now() + STOP_TIMEOUT_MS;
      for (;;) {
        const state = Atomics.load(this.control, SLOT.state);
        if (state === STATE.stopped) return;
        const left = deadline - Date.now();
        if (left <= 0) break;
        Atomics.wait(this.control, SLOT.state, state, left);
      }
      // Stuck inside SQLite for 10 s: no longer worth waiting for. Termination takes effect when
      // the call returns, and the connection is closed with the thread.
      void this.worker.terminate();
    }
  }
}
