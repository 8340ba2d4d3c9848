/**
 * The daemon's upkeep timer and retention loop (daemon/scheduler/upkeep.ts), driven by a fake
 * engine where only the due time matters, and by a real engine for retention.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from '../../daemon/lifecycle/logger';
import { Upkeep } from '../../daemon/scheduler/upkeep';
import { waitFor } from '../helpers/wait';
import { makeEngine } from './helpers/engine';

const HOUR = 3_600_000;

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (message) => void errors.push(message) };
}

/**
 * Lets a tick the timer started run to its end. A tick awaits the engine (a store may answer
 * asynchronously); the fake engine answers at once, so its awaits settle within a few microtasks,
 * and nothing here waits for time to pass.
 */
async function tickSettled(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** An engine whose earliest due time is whatever `dueAt` says. */
function fakeEngine(dueAt: () => number | null) {
  return { reapExpiredLeases: async () => 0, expireWaiting: async () => 0, nextWakeAt: async () => dueAt(), cleanup: async () => 0, ageWaiting: async () => ({ changed: 0, shortestEveryMs: null }) };
}

test('something that stays due is looked at again a second later, even when every tick ends in a short claim', async (t) => {
  const logger = recordingLogger();
  const ticks: number[] = [];
  // A schedule that is due and fails to fire every time (a full disk, a lock held elsewhere):
  // the scheduler logs the failure and the schedule stays due. Its due time is fixed, as a
  // schedule's next_run_at is: one that moved with the clock would look newly due to each look.
  const dueAt = Date.now() - 10;
  const engine = fakeEngine(() => dueAt);
  const scheduler = {
    fireDue: async () => {
      logger.error('Could not fire schedule nightly');
      return { fired: 0, skipped: 1 };
    },
  };
  // As in the daemon: each tick wakes the executors, whose claim comes back short and asks the
  // timer to look again at the end of the turn.
  const upkeep: Upkeep = new Upkeep(
    engine,
    scheduler,
    () => {
      ticks.push(performance.now());
      setImmediate(() => upkeep.refreshSoon());
    },
    logger,
  );
  t.after(() => upkeep.stop());
  upkeep.start();
  await waitFor('a second tick', () => ticks.length >= 2, 10_000);
  const [first = 0, second = 0] = ticks;
  assert.ok(second - first >= 900, `the second tick came ${Math.round(second - first)} ms after the first`);
  assert.ok(logger.errors.length <= ticks.length, 'one error line per tick, at most');
});

test('a due time noted after the wall clock jumped forward (a suspended laptop waking) fires on time', async (t) => {
  let skew = 0;
  const now = (): number => Date.now() + skew;
  let dueAt = now() + 30_000;
  let ticks = 0;
  const scheduler = {
    fireDue: async () => {
      ticks += 1;
      return { fired: 0, skipped: 0 };
    },
  };
  const upkeep = new Upkeep(fakeEngine(() => dueAt), scheduler, () => {}, recordingLogger(), now);
  t.after(() => upkeep.stop());
  upkeep.start();
  await tickSettled();
  assert.equal(ticks, 1, 'start ticks once, then waits 30 s');
  // An hour passes on the wall clock while the timer's monotonic delay does not move.
  skew = HOUR;
  dueAt = now() + 100;
  upkeep.noteDue(dueAt);
  await waitFor('a tick for the job due 100 ms after waking', () => ticks >= 2 && now() >= dueAt - 5, 5_000);
});

test('retention keeps deleting in batches, yielding between them, until no expired job is left', async (t) => {
  const { engine, clock } = makeEngine(t);
  await engine.configureQueue({ name: 'q', retentionMs: HOUR });
  // More than one cleanup turn used to delete (20 batches of 500).
  const total = 12_000;
  for (let i = 0; i < total; i += 1000) await engine.enqueueBatch({ jobs: Array.from({ length: 1000 }, () => ({ queue: 'q', kind: 'k' })) });
  for (;;) {
    const jobs = await engine.claim({ workerId: 'w', max: 1000 });
    if (jobs.length === 0) break;
    await engine.completeMany(jobs.map((j) => ({ id: j.id, workerId: 'w' })));
  }
  assert.equal((await engine.getQueue('q')).counts.completed, total);
  // A few ms past the hour: the frozen test clock made 12 000 ids in one millisecond, and the
  // id generator borrows the next milliseconds for ids past the 4096th.
  clock.advance(HOUR + 10);
  const upkeep = new Upkeep(engine, { fireDue: async () => ({ fired: 0, skipped: 0 }) }, () => {}, recordingLogger());
  t.after(() => upkeep.stop());
  let yielded = false;
  const running = upkeep.cleanup();
  setImmediate(() => {
    yielded = true;
  });
  assert.equal(await running, total);
  assert.ok(yielded, 'other work ran between batches');
  assert.equal((await engine.getQueue('q')).counts.completed, 0);
});

test('a due time hours away is looked at within a minute once the wall clock has jumped past it, with nobody calling noteDue', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  let skew = 0;
  const now = (): number => Date.now() + skew;
  const dueAt = now() + 6 * HOUR;
  const looks: number[] = [];
  const scheduler = {
    fireDue: async () => {
      looks.push(now());
      return { fired: 0, skipped: 0 };
    },
  };
  const upkeep = new Upkeep(fakeEngine(() => dueAt), scheduler, () => {}, recordingLogger(), now);
  t.after(() => upkeep.stop());
  upkeep.start();
  await tickSettled();
  assert.equal(looks.length, 1, 'start looks once');
  // The machine sleeps for seven hours: the wall clock moves, the timer's delay does not.
  skew = 7 * HOUR;
  t.mock.timers.tick(59_000);
  await tickSettled();
  assert.equal(looks.length, 1, 'no look before the minute is up');
  t.mock.timers.tick(1_000);
  await tickSettled();
  assert.equal(looks.length, 2, 'the capped timer fired after a minute and found the job due');
  assert.ok(looks[1]! >= dueAt);
});

test('something noted as due while a tick awaits the engine is not lost when the tick arms the timer from an older reading', async (t) => {
  const logger = recordingLogger();
  const ticks: number[] = [];
  // The tick reads the next due time (nothing due for an hour); while that read is pending, a
  // job fails and its retry is noted as due in 50 ms. The tick then arms its timer from what it
  // read: the retry's timer must survive it.
  let releaseRead: () => void = () => undefined;
  let reading = false;
  let blockNextRead = false;
  const engine = {
    reapExpiredLeases: async () => 0,
    expireWaiting: async () => 0,
    cleanup: async () => 0,
    ageWaiting: async () => ({ changed: 0, shortestEveryMs: null }),
    nextWakeAt: async () => {
      if (blockNextRead) {
        blockNextRead = false;
        reading = true;
        await new Promise<void>((resolve) => (releaseRead = resolve));
      }
      return Date.now() + HOUR;
    },
  };
  // Each tick wakes the executors (onDue) and then reads the next due time: the first tick's
  // read is held until the retry has been noted.
  const onDue = (): void => {
    if (ticks.length === 0) blockNextRead = true;
    ticks.push(Date.now());
  };
  const upkeep: Upkeep = new Upkeep(engine, { fireDue: async () => ({ fired: 0, skipped: 0 }) }, onDue, logger);
  t.after(() => upkeep.stop());
  upkeep.start();
  await waitFor('the first tick to read the next due time', () => reading, 10_000);
  upkeep.noteDue(Date.now() + 50);
  releaseRead();
  await tickSettled();
  await waitFor('a tick for the retry noted during the last one', () => ticks.length >= 2, 5_000);
  assert.deepEqual(logger.errors, []);
});
