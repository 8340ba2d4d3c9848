/**
 * The engine benchmark: the queue engine in-process on a file database (WAL, synchronous=NORMAL),
 * measured the way the engine issue states its targets. Each scenario uses a fresh database in
 * a temporary folder, deleted afterwards.
 *
 * SPOOL_BENCH_QUICK=1 shrinks the large-backlog scenario from 1,000,000 to 100,000 jobs (and the
 * others proportionally) for a fast run; the published figures come from a full run.
 */
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../daemon/engine';
import { sqliteStore } from '../daemon/storage/sqlite';
import type { EnqueueParams } from '../shared/protocol';
import type { BenchFigure } from './figure';
import { runFloorBench } from './floor';

export type { BenchFigure } from './figure';

export interface EngineBenchOptions {
  quick?: boolean;
  log?: (line: string) => void;
}

const WORKER = 'bench-worker';

/** SPOOL_BENCH_CHECKPOINTS=auto measures with SQLite's automatic checkpoints instead. */
const CHECKPOINTS = process.env['SPOOL_BENCH_CHECKPOINTS'] === 'auto' ? 'auto' : 'background';

/** Wall-clock and CPU seconds since it was made. */
class Timer {
  private readonly wall = process.hrtime.bigint();
  private readonly cpu = process.cpuUsage();

  seconds(): { wall: number; cpu: number } {
    const used = process.cpuUsage(this.cpu);
    return { wall: Number(process.hrtime.bigint() - this.wall) / 1e9, cpu: (used.user + used.system) / 1e6 };
  }
}

/** Jobs per second, by the wall clock and by this process's CPU time. */
interface Rate {
  wall: number;
  cpu: number;
}

function rate(jobs: number, timer: Timer): Rate {
  const s = timer.seconds();
  return { wall: jobs / s.wall, cpu: jobs / s.cpu };
}

function smallJob(n: number): EnqueueParams {
  return { queue: 'bench', kind: 'work', payload: { n } };
}

class Scratch {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-'));
  private count = 0;
  private readonly open: Engine[] = [];

  engine(): { engine: Engine; dbPath: string } {
    const dbPath = path.join(this.dir, `bench-${this.count++}.db`);
    // WAL checkpoints on the engine's background thread, as the daemon runs it: with SQLite's
    // automatic checkpoints, every ~200th commit would also copy and fsync the WAL.
    const engine = new Engine({ store: sqliteStore({ dbPath, walCheckpoints: CHECKPOINTS }) });
    this.open.push(engine);
    return { engine, dbPath };
  }

  async dispose(): Promise<void> {
    for (const e of this.open) await e.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

async function enqueueBatches(engine: Engine, total: number, from = 0): Promise<void> {
  for (let i = 0; i < total; i += 1000) {
    const n = Math.min(1000, total - i);
    await engine.enqueueBatch({ jobs: Array.from({ length: n }, (_, j) => smallJob(from + i + j)) });
  }
}

/** Claims and completes `total` jobs one at a time (two transactions per job). */
async function claimCompleteSingly(engine: Engine, total: number): Promise<Rate> {
  const timer = new Timer();
  for (let i = 0; i < total; i++) {
    const [job] = await engine.claim({ workerId: WORKER });
    if (!job) throw new Error(`the backlog ran dry after ${i} jobs`);
    await engine.complete({ id: job.id, workerId: WORKER });
  }
  return rate(total, timer);
}

/**
 * Claims 50 at a time and completes them with one completeMany (two transactions per 50 jobs),
 * the way the daemon completes a worker's batch of jobs.complete requests.
 */
async function claimCompleteBatched(engine: Engine, total: number): Promise<Rate> {
  const timer = new Timer();
  let done = 0;
  while (done < total) {
    const jobs = await engine.claim({ workerId: WORKER, max: Math.min(50, total - done) });
    if (jobs.length === 0) throw new Error(`the backlog ran dry after ${done} jobs`);
    const outcomes = await engine.completeMany(jobs.map((job) => ({ id: job.id, workerId: WORKER })));
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
    done += jobs.length;
  }
  return rate(total, timer);
}

/**
 * Claim throughput with a backlog held near `backlog` jobs: process `chunk` jobs (timed), top
 * the backlog up again (untimed), repeat. Returns the overall jobs/s of the timed parts.
 */
async function steadyBacklog(engine: Engine, backlog: number, total: number, chunk: number, run: (engine: Engine, n: number) => Promise<Rate>): Promise<Rate> {
  await enqueueBatches(engine, backlog);
  let wall = 0;
  let cpu = 0;
  let processed = 0;
  while (processed < total) {
    const n = Math.min(chunk, total - processed);
    const r = await run(engine, n);
    wall += n / r.wall;
    cpu += n / r.cpu;
    processed += n;
    await enqueueBatches(engine, n, backlog + processed);
  }
  return { wall: processed / wall, cpu: processed / cpu };
}

/**
 * The database's size: its pages as of the last commit, whether they sit in the main file yet or
 * still in the WAL (which the checkpointer thread may be copying back at this moment).
 */
function databaseBytes(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    const pages = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    return pages * pageSize;
  } finally {
    db.close();
  }
}

/** A plain better-sqlite3 file with the engine's journal settings, for the raw references. */
function withRawDatabase(dir: string, name: string, measure: (db: Database.Database) => Rate): Rate {
  const db = new Database(path.join(dir, name));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return measure(db);
  } finally {
    db.close();
  }
}

/** Raw better-sqlite3 on this machine, now: the reference the engine figures are read against. */
function rawInsertBaseline(dir: string, total: number): Rate {
  return withRawDatabase(dir, 'raw.db', (db) => {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (payload) VALUES (?)');
    const timer = new Timer();
    for (let i = 0; i < total; i++) insert.run(`{"n":${i}}`);
    return rate(total, timer);
  });
}

/**
 * Raw better-sqlite3 claims: one autocommit UPDATE … WHERE id = (SELECT … LIMIT 1) per job on a
 * plain table with one partial index, the other reference the claim figures are read against.
 */
function rawClaimBaseline(dir: string, total: number): Rate {
  return withRawDatabase(dir, 'raw-claim.db', (db) => {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, state INTEGER NOT NULL, run_at INTEGER NOT NULL, payload TEXT NOT NULL)');
    db.exec('CREATE INDEX t_claim ON t (run_at, id) WHERE state = 0');
    const insert = db.prepare('INSERT INTO t (state, run_at, payload) VALUES (0, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < total; i++) insert.run(i, `{"n":${i}}`);
    })();
    const claim = db.prepare('UPDATE t SET state = 1 WHERE id = (SELECT id FROM t WHERE state = 0 ORDER BY run_at, id LIMIT 1) RETURNING id').pluck();
    const timer = new Timer();
    for (let i = 0; i < total; i++) if (claim.get() === undefined) throw new Error('the raw claim ran dry');
    return rate(total, timer);
  });
}

export async function runEngineBench(options: EngineBenchOptions = {}): Promise<BenchFigure[]> {
  const quick = options.quick ?? process.env['SPOOL_BENCH_QUICK'] === '1';
  const log = options.log ?? ((line: string) => console.log(line));
  const big = quick ? 100_000 : 1_000_000;
  const scale = quick ? 0.4 : 1;
  const n = (count: number): number => Math.max(1000, Math.round(count * scale));
  const figures: BenchFigure[] = [];
  const report = (f: BenchFigure): void => {
    figures.push(f);
    const fmt = (v: number): string => (f.unit === 'jobs/s' ? Math.round(v).toLocaleString('en-US') : v.toFixed(v < 10 ? 3 : 1));
    const cpu = f.cpuValue === undefined ? '' : `  [${fmt(f.cpuValue)} per CPU-second]`;
    const target = f.target ? `  (target ${f.target}: ${f.met ? 'met' : 'MISSED'})` : '';
    log(`  ${f.name.padEnd(58)} ${fmt(f.value).padStart(12)} ${f.unit}${cpu}${target}`);
  };
  const atLeast = (name: string, r: Rate, target: number): void =>
    report({ name, value: r.wall, cpuValue: r.cpu, unit: 'jobs/s', target: `>= ${target.toLocaleString('en-US')}`, met: r.wall >= target });

  const scratch = new Scratch();
  try {
    log(`Engine (in-process, file database, WAL, synchronous=NORMAL${quick ? ', QUICK: large backlog ' + big.toLocaleString('en-US') : ''})`);
    const raw = rawInsertBaseline(scratch.dir, n(30_000));
    report({ name: 'reference: raw better-sqlite3 autocommit INSERT', value: raw.wall, cpuValue: raw.cpu, unit: 'jobs/s' });
    const rawClaim = rawClaimBaseline(scratch.dir, n(30_000));
    report({ name: 'reference: raw better-sqlite3 autocommit single claim', value: rawClaim.wall, cpuValue: rawClaim.cpu, unit: 'jobs/s' });

    {
      const { engine } = scratch.engine();
      const total = n(50_000);
      const timer = new Timer();
      for (let i = 0; i < total; i++) await engine.enqueue(smallJob(i));
      atLeast('enqueue, one job per call', rate(total, timer), 30_000);
    }
    {
      const { engine } = scratch.engine();
      const total = n(200_000);
      const timer = new Timer();
      await enqueueBatches(engine, total);
      atLeast('enqueue, batches of 1,000', rate(total, timer), 150_000);
    }

    const smallSingle = await steadyBacklog(scratch.engine().engine, 1000, n(30_000), 1000, claimCompleteSingly);
    atLeast('claim + complete one at a time, 1,000 queued', smallSingle, 10_000);
    const smallBatched = await steadyBacklog(scratch.engine().engine, 1000, n(100_000), 1000, claimCompleteBatched);
    atLeast('claim 50 + complete 50 per batch, 1,000 queued', smallBatched, 40_000);
    runFloorBench(scratch.dir, n, report);

    const { engine, dbPath } = scratch.engine();
    const fillTimer = new Timer();
    await enqueueBatches(engine, big);
    const fill = rate(big, fillTimer);
    report({ name: `enqueue ${big.toLocaleString('en-US')} in batches of 1,000 (filling the backlog)`, value: fill.wall, cpuValue: fill.cpu, unit: 'jobs/s' });
    const bytes = databaseBytes(dbPath);
    report({ name: `database size per 1,000,000 small jobs (from ${big.toLocaleString('en-US')})`, value: (bytes / big) * 1e6 / 1024 / 1024, unit: 'MiB' });
    report({ name: 'bytes per queued job', value: bytes / big, unit: 'bytes' });

    const statsCalls = 2000;
    await engine.stats();
    const statsTimer = new Timer();
    for (let i = 0; i < statsCalls; i++) await engine.stats();
    const statsMs = (statsTimer.seconds().wall * 1000) / statsCalls;
    report({ name: `stats() with ${big.toLocaleString('en-US')} jobs`, value: statsMs, unit: 'ms', target: '< 2', met: statsMs < 2 });

    // The ratio is taken on CPU time: both runs do the same work, and the wall clock of either
    // can be stretched by whatever else the machine runs meanwhile.
    const bigSingle = await claimCompleteSingly(engine, n(30_000));
    const singleRatio = bigSingle.cpu / smallSingle.cpu;
    report({ name: `claim + complete one at a time, ${big.toLocaleString('en-US')} queued`, value: bigSingle.wall, cpuValue: bigSingle.cpu, unit: 'jobs/s' });
    report({ name: '  ratio to the 1,000-queued figure (CPU time)', value: singleRatio, unit: '×', target: '>= 0.75', met: singleRatio >= 0.75 });
    const bigBatched = await claimCompleteBatched(engine, n(100_000));
    const batchedRatio = bigBatched.cpu / smallBatched.cpu;
    report({ name: `claim 50 + complete 50 per batch, ${big.toLocaleString('en-US')} queued`, value: bigBatched.wall, cpuValue: bigBatched.cpu, unit: 'jobs/s' });
    report({ name: '  ratio to the 1,000-queued figure (CPU time)', value: batchedRatio, unit: '×', target: '>= 0.75', met: batchedRatio >= 0.75 });

    // The delayed count (stats, queue listings) depends on the clock: it is counted over the due
    // index, then kept until time or a write could change it (daemon/storage/sqlite/delayed.ts).
    for (let i = 0; i < big; i += 1000) {
      await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(1000, big - i) }, (_, j) => ({ queue: 'later', kind: 'work', payload: { n: i + j }, delayMs: 3_600_000 })) });
    }
    const countTimer = new Timer();
    await engine.stats();
    const countMs = countTimer.seconds().wall * 1000;
    report({ name: `stats() with ${big.toLocaleString('en-US')} delayed jobs: the read that counts them`, value: countMs, unit: 'ms' });
    const keptTimer = new Timer();
    for (let i = 0; i < statsCalls; i++) await engine.stats();
    const keptMs = (keptTimer.seconds().wall * 1000) / statsCalls;
    report({ name: '  each read after it, while nothing changed them', value: keptMs, unit: 'ms', target: '< 2', met: keptMs < 2 });

    const check = await engine.verifyCounters();
    if (!check.ok) throw new Error(`counters disagree with the jobs table after the benchmark: ${JSON.stringify(check.mismatches)}`);
  } finally {
    await scratch.dispose();
  }
  return figures;
}
