/**
 * The floor under the engine figures: the same four operations made with the store's prepared
 * statements alone (daemon/storage/sqlite), without the engine's validation, queue settings, rate limits,
 * events and savepoints. The gap between these figures and the engine's is what the engine's own
 * code costs; the gap between them and the raw references is what the schema costs (its indexes,
 * counters and run history). A second run drops the listing index to show what that index costs.
 *
 * Part of the engine benchmark (`SPOOL_BENCH_PART=engine`); same conditions as the engine
 * figures: a file database per scenario, WAL, synchronous=NORMAL, background checkpoints.
 */
import * as path from 'node:path';
import { UuidV7 } from '../shared/domain/uuid';
import { CLAIM_ANSWER_BUDGET, SqliteDatabase, type JobInsert } from '../daemon/storage/sqlite/database';
import { PLAIN_JOB_INSERT } from '../daemon/storage/statements/jobs';
import type { BenchFigure } from './figure';

const WORKER = 'floor-worker';
const KINDS = { exclude: ['shell', 'http'] };

interface Rate {
  wall: number;
  cpu: number;
}

function timed(jobs: number, fn: () => void): Rate {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  fn();
  const used = process.cpuUsage(cpu);
  return { wall: jobs / (Number(process.hrtime.bigint() - wall) / 1e9), cpu: jobs / ((used.user + used.system) / 1e6) };
}

class Floor {
  private readonly store: SqliteDatabase;
  private readonly ids = new UuidV7(Date.now);
  private n = 0;

  constructor(dbPath: string, withoutListIndex: boolean) {
    this.store = new SqliteDatabase(dbPath, {
      now: Date.now(),
      walCheckpoints: 'background',
    });
    if (withoutListIndex) this.store.db.exec('DROP INDEX jobs_list');
    const now = Date.now();
    this.store.write(() =>
      this.store.queues.insert({
        name: 'bench',
        concurrency: null,
        ratePerSecond: null,
        rateBurst: null,
        paused: 0,
        defaultMaxAttempts: 3,
        backoffStrategy: 'exponential',
        backoffBaseMs: 1000,
        backoffCapMs: 3_600_000,
        backoffJitter: 0.3,
        defaultTimeoutMs: 30_000,
        retentionMs: null,
        now,
      }),
    );
  }

  private job(): JobInsert {
    const now = Date.now();
    return {
      id: this.ids.next(),
      queue: 'bench',
      kind: 'work',
      payload: `{"n":${this.n++}}`,
      ...PLAIN_JOB_INSERT,
      priority: 0,
      weight: 1,
      runAt: now,
      maxAttempts: 3,
      backoffStrategy: 'exponential',
      backoffBaseMs: 1000,
      backoffCapMs: 3_600_000,
      backoffJitter: 0.3,
      timeoutMs: 30_000,
      idempotencyKey: null,
      tags: '[]',
      context: null,
      now,
    };
  }

  /** One jobInsert per job, or one jobInsertMany per commit, as the engine's enqueue and enqueueBatch do. */
  enqueue(count: number, perCommit: number): void {
    for (let i = 0; i < count; i += perCommit) {
      this.store.write(() => {
        if (perCommit === 1) this.store.jobs.jobInsert(this.job());
        else this.store.jobs.jobInsertMany(Array.from({ length: perCommit }, () => this.job()));
      });
    }
  }

  /** Claims up to `max`, then completes them in a second transaction, as the engine bench does. */
  claimComplete(max: number): number {
    const now = Date.now();
    const jobs = this.store.write(() => this.store.claims.claimJobs({ queue: 'bench', kinds: KINDS, limit: max, workerId: WORKER, now, budget: CLAIM_ANSWER_BUDGET, room: null, peeked: false }).jobs);
    this.store.write(() => {
      if (jobs.length > 1) {
        // As the engine's completeMany does: one UPDATE for the batch (a completed job's row is
        // the record of its attempt, so no history row), which also counts the finished jobs.
        const done = this.store.jobs.jobCompleteMany({ items: jobs.map((j) => ({ id: j.id, workerId: WORKER, result: null })), now });
        if (done.length !== jobs.length) throw new Error('a job lost its lease');
        return;
      }
      for (const claimed of jobs) {
        const done = this.store.jobs.jobComplete({ id: claimed.id, workerId: WORKER, result: null, now });
        if (!done) throw new Error(`job ${claimed.id} lost its lease`);
      }
    });
    return jobs.length;
  }

  close(): void {
    this.store.close();
  }
}

export function runFloorBench(dir: string, scale: (count: number) => number, report: (f: BenchFigure) => void): void {
  for (const withoutListIndex of [false, true]) {
    const label = withoutListIndex ? 'store only, no listing index' : 'store only (no engine code)';
    let count = 0;
    const open = (): Floor => new Floor(path.join(dir, `floor-${withoutListIndex ? 'nolist' : 'full'}-${count++}.db`), withoutListIndex);
    const figure = (what: string, r: Rate): void => report({ name: `${label}: ${what}`, value: r.wall, cpuValue: r.cpu, unit: 'jobs/s' });

    let floor = open();
    const single = scale(50_000);
    figure('enqueue singly', timed(single, () => floor.enqueue(single, 1)));
    floor.close();
    floor = open();
    const batched = scale(200_000);
    figure('enqueue 1,000 per commit', timed(batched, () => floor.enqueue(batched, 1000)));
    floor.close();

    for (const max of [1, 50]) {
      floor = open();
      const total = scale(max === 1 ? 30_000 : 100_000);
      // The same steady 1,000-job backlog as the engine figures: process 1,000, top up (untimed).
      let wall = 0;
      let cpu = 0;
      floor.enqueue(1000, 1000);
      for (let done = 0; done < total; done += 1000) {
        const r = timed(1000, () => {
          for (let left = 1000; left > 0; ) left -= floor.claimComplete(Math.min(max, left));
        });
        wall += 1000 / r.wall;
        cpu += 1000 / r.cpu;
        floor.enqueue(1000, 1000);
      }
      figure(max === 1 ? 'claim + complete singly' : 'claim 50 + complete 50', { wall: total / wall, cpu: total / cpu });
      floor.close();
    }
  }
}
