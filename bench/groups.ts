/**
 * The groups claim benchmark (`SPOOL_BENCH_PART=groups`, docs/flow-control.md): what a claim and
 * a complete cost in a queue with 10,000 groups, against the same jobs in a queue without groups.
 * The engine in-process, on SQLite (a file, WAL checkpointed in the background as the daemon
 * does) and on PostgreSQL (a throwaway server with durable commits, as bench/postgres.ts starts
 * it, when one can be started).
 *
 * Each round makes a fresh store and enqueues 10,000 groups × 2 jobs (grouped) or the same 20,000
 * jobs without a group key (plain), not timed (on PostgreSQL followed by an ANALYZE, as
 * autovacuum would soon run). Then, timed: claims of one job, each completed,
 * then claims of up to 50 completed with one `completeMany`, until half the jobs have run. Every
 * group still has a job waiting when the measure ends (the claims take the groups in turn), so
 * each grouped claim chooses among 10,000 groups. The claim and the complete are timed apart.
 *
 * Rounds are interleaved (grouped, plain, plain, grouped, …) so that a machine busy with other
 * work slows both alike; medians with their ranges. The target: a grouped claim costs at most
 * 1.3× a plain one.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../daemon/engine';
import { sqliteStore } from '../daemon/storage/sqlite';
import { postgresStore } from '../daemon/storage/postgres';
import type { StoreFactory } from '../daemon/storage/store';
import pg from 'pg';
import { PgServer } from '../scripts/pgServer';
import { errorMessage } from '../shared/protocol/errors';
import { spread } from './compareStats';
import type { BenchFigure } from './figure';

const WORKER = 'bench-worker';
const QUEUE = 'bench';
/** The claim target: grouped / plain, per job claimed. */
const TARGET = 1.3;

interface Sizes {
  groups: number;
  /** Jobs per group (the plain queue gets groups × perGroup jobs too). */
  perGroup: number;
  /** Claims of one job, each completed, timed. */
  single: number;
  /** Most jobs per claim in the batch part. */
  batch: number;
}

/** Microseconds per job of one round. */
interface Round {
  /** A claim of one job. */
  claimOne: number;
  /** A claim of up to `batch` jobs, per job. */
  claimBatch: number;
  /** A complete of one job. */
  completeOne: number;
  /** A completeMany of a claimed batch, per job. */
  completeBatch: number;
}

type Setting = 'grouped' | 'plain';

async function enqueueAll(engine: Engine, sizes: Sizes, grouped: boolean): Promise<void> {
  const total = sizes.groups * sizes.perGroup;
  for (let done = 0; done < total; done += 1000) {
    const n = Math.min(1000, total - done);
    const jobs = Array.from({ length: n }, (_, i) => ({ queue: QUEUE, kind: 'work', payload: { n: done + i }, ...(grouped ? { group: `customer:${(done + i) % sizes.groups}` } : {}) }));
    await engine.enqueueBatch({ jobs });
  }
}

/** A fresh store for one round, and what brings its statistics up to date once its jobs are in. */
interface Opened {
  store: StoreFactory;
  analyze(): Promise<void>;
}

async function round(opened: Opened, setting: Setting, sizes: Sizes): Promise<Round> {
  const engine = new Engine({ store: opened.store, history: false });
  await engine.open();
  try {
    await enqueueAll(engine, sizes, setting === 'grouped');
    await opened.analyze();
    let claimMs = 0;
    let completeMs = 0;
    for (let i = 0; i < sizes.single; i++) {
      const t0 = performance.now();
      const [job] = await engine.claim({ workerId: WORKER, queues: [QUEUE], max: 1 });
      const t1 = performance.now();
      if (job === undefined) throw new Error(`a claim of one found nothing after ${i} claims`);
      await engine.complete({ id: job.id, workerId: WORKER });
      claimMs += t1 - t0;
      completeMs += performance.now() - t1;
    }
    const claimOne = (claimMs * 1000) / sizes.single;
    const completeOne = (completeMs * 1000) / sizes.single;
    // Half the jobs run in all: one per group, so every group still waits with its next one.
    const batchJobs = (sizes.groups * sizes.perGroup) / 2 - sizes.single;
    claimMs = 0;
    completeMs = 0;
    let done = 0;
    while (done < batchJobs) {
      const t0 = performance.now();
      const jobs = await engine.claim({ workerId: WORKER, queues: [QUEUE], max: Math.min(sizes.batch, batchJobs - done) });
      const t1 = performance.now();
      if (jobs.length === 0) throw new Error(`a claim found nothing after ${done} of ${batchJobs} jobs`);
      await engine.completeMany(jobs.map((j) => ({ id: j.id, workerId: WORKER })));
      claimMs += t1 - t0;
      completeMs += performance.now() - t1;
      done += jobs.length;
    }
    if (setting === 'grouped') {
      const waiting = (await engine.getQueue(QUEUE)).counts.queued;
      if (waiting !== sizes.groups * sizes.perGroup - sizes.single - batchJobs) throw new Error(`${waiting} jobs left waiting`);
    }
    return { claimOne, completeOne, claimBatch: (claimMs * 1000) / batchJobs, completeBatch: (completeMs * 1000) / batchJobs };
  } finally {
    await engine.close();
  }
}

const FIGURES: readonly { key: keyof Round; what: string; claim: boolean }[] = [
  { key: 'claimOne', what: 'claim of 1', claim: true },
  { key: 'claimBatch', what: 'claim of up to 50, per job', claim: true },
  { key: 'completeOne', what: 'complete of 1', claim: false },
  { key: 'completeBatch', what: 'completeMany of a claim, per job', claim: false },
];

function us(value: number): string {
  return value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
}

async function measure(name: string, open: () => Promise<Opened>, rounds: number, sizes: Sizes, log: (line: string) => void): Promise<BenchFigure[]> {
  const results: Record<Setting, Round[]> = { grouped: [], plain: [] };
  for (let r = 0; r < rounds; r++) {
    // grouped, plain, plain, grouped, …: neither goes first every time.
    const order: Setting[] = r % 2 === 0 ? ['grouped', 'plain'] : ['plain', 'grouped'];
    for (const setting of order) results[setting].push(await round(await open(), setting, sizes));
  }
  const figures: BenchFigure[] = [];
  for (const { key, what, claim } of FIGURES) {
    const grouped = spread(results.grouped.map((x) => x[key]));
    const plain = spread(results.plain.map((x) => x[key]));
    const ratio = grouped.median / plain.median;
    const perRound = spread(results.grouped.map((x, i) => x[key] / (results.plain[i]?.[key] ?? NaN)));
    log(
      `  ${name} ${what}: ${sizes.groups.toLocaleString('en-US')} groups ${us(grouped.median)} µs (${us(grouped.min)}–${us(grouped.max)}), ` +
        `no groups ${us(plain.median)} µs (${us(plain.min)}–${us(plain.max)}); ${ratio.toFixed(2)}× (rounds ${perRound.min.toFixed(2)}–${perRound.max.toFixed(2)})`,
    );
    figures.push({ name: `${name}: ${what}, grouped / plain`, value: Number(ratio.toFixed(2)), unit: '×', ...(claim ? { target: `<= ${TARGET}`, met: ratio <= TARGET } : {}) });
  }
  return figures;
}

export async function runGroupsBench(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const rounds = Number(process.env['SPOOL_BENCH_ROUNDS'] ?? (options.quick ? 3 : 5));
  const sizes: Sizes = { groups: 10_000, perGroup: 2, single: options.quick ? 200 : 1000, batch: 50 };
  log(
    `Groups: claims in a queue with ${sizes.groups.toLocaleString('en-US')} groups × ${sizes.perGroup} jobs against the same jobs without groups ` +
      `(the engine in-process; ${rounds} interleaved rounds per setting; medians with ranges, µs per job)`,
  );
  const figures: BenchFigure[] = [];
  // SPOOL_BENCH_STORE=sqlite or =postgres measures one store only.
  const only = process.env['SPOOL_BENCH_STORE'];
  if (only !== 'postgres') figures.push(...(await measureSqlite(rounds, sizes, log)));
  if (only !== 'sqlite') figures.push(...(await measurePostgres(rounds, sizes, log)));
  return figures;
}

async function measureSqlite(rounds: number, sizes: Sizes, log: (line: string) => void): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-groups-'));
  try {
    let n = 0;
    const open = async (): Promise<Opened> => {
      // The previous round's file goes first: the rounds do not fill the disk.
      for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { force: true });
      // SQLite's claim statements name their indexes (INDEXED BY): no statistics to wait for.
      return { store: sqliteStore({ dbPath: path.join(dir, `spool-${n++}.db`), walCheckpoints: 'background' }), analyze: async () => undefined };
    };
    figures.push(...(await measure('SQLite', open, rounds, sizes, log)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

async function measurePostgres(rounds: number, sizes: Sizes, log: (line: string) => void): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  let server: PgServer | undefined;
  try {
    // Durable commits, as bench/postgres.ts measures.
    server = await PgServer.start({ fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on', shared_buffers: '256MB', max_wal_size: '2GB' });
  } catch (error) {
    log(`  PostgreSQL: not measured (${errorMessage(error)})`);
  }
  if (server !== undefined) {
    const pgServer = server;
    try {
      let last: string | null = null;
      const open = async (): Promise<Opened> => {
        if (last !== null) await pgServer.admin(`DROP DATABASE IF EXISTS ${last} WITH (FORCE)`);
        const url = await pgServer.database();
        last = new URL(url).pathname.slice(1);
        // The tables as autovacuum leaves them within a minute of the jobs going in: analysed.
        // Before that the planner takes the fresh tables for nearly empty, and sorts every group
        // of the queue for a grouped claim's walk (BENCHMARKS.md, Groups).
        const analyze = async (): Promise<void> => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query('ANALYZE');
          } finally {
            await client.end();
          }
        };
        return { store: postgresStore({ url }), analyze };
      };
      figures.push(...(await measure('PostgreSQL', open, rounds, sizes, log)));
    } finally {
      server.destroy();
    }
  }
  return figures;
}
