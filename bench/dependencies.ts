/**
 * The dependencies benchmark (`SPOOL_BENCH_PART=dependencies`): the engine in-process, on SQLite
 * (a file database in a temporary folder) and on PostgreSQL (a throwaway server, when one can be
 * started), measuring the three figures the job-graph issue asks for:
 *
 * - a 3-step pipeline's throughput as a fraction of a plain drain: the same number of jobs, as
 *   chains of three (each step enqueued with `dependsOn` the one before), drained by the same
 *   loop (claim up to 50, completeMany) as jobs that depend on nothing (target >= 0.5);
 * - the time from a parent's completion to its child's claim: from the start of the parent's
 *   `complete` to the claim that returns the child, one pair at a time, after a warm-up (p50 and
 *   p99; target p99 < 5 ms on SQLite, whose WAL is checkpointed in the background as the
 *   daemon's is);
 * - a fan-out of 10,000 made ready: the one `complete` of a job 10,000 jobs depend on, which
 *   queues them all in its transaction (target < 1 s).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../daemon/engine';
import { sqliteStore } from '../daemon/storage/sqlite';
import { postgresStore } from '../daemon/storage/postgres';
import type { StoreFactory } from '../daemon/storage/store';
import type { EnqueueParams } from '../shared/protocol';
import { PgServer } from '../scripts/pgServer';
import { errorMessage } from '../shared/protocol/errors';
import type { BenchFigure } from './figure';

const WORKER = 'bench-worker';
/** Parent/child pairs run before the latency is counted. */
const WARM_UP = 100;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Drains `queue` with claims of up to 50 and completeMany until `total` jobs have completed; jobs per second. */
async function drain(engine: Engine, queue: string, total: number): Promise<number> {
  const started = performance.now();
  let done = 0;
  while (done < total) {
    const jobs = await engine.claim({ workerId: WORKER, queues: [queue], max: 50 });
    if (jobs.length === 0) throw new Error(`the drain of ${queue} found nothing to claim after ${done} of ${total} jobs`);
    await engine.completeMany(jobs.map((j) => ({ id: j.id, workerId: WORKER })));
    done += jobs.length;
  }
  return total / ((performance.now() - started) / 1000);
}

async function enqueueAll(engine: Engine, jobs: EnqueueParams[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < jobs.length; i += 1000) for (const r of (await engine.enqueueBatch({ jobs: jobs.slice(i, i + 1000) })).results) ids.push(r.job.id);
  return ids;
}

interface Sizes {
  jobs: number;
  pairs: number;
  fanOut: number;
}

async function measure(store: string, open: () => StoreFactory, sizes: Sizes, log: (line: string) => void, latencyTarget: string | undefined): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const engine = new Engine({ store: open() });
  try {
    // Plain drain.
    await enqueueAll(engine, Array.from({ length: sizes.jobs }, (_, n) => ({ queue: 'plain', kind: 'work', payload: { n } })));
    const plain = await drain(engine, 'plain', sizes.jobs);
    // The same number of jobs as 3-step chains: each chain's steps enqueued one after the other.
    const chains = Math.floor(sizes.jobs / 3);
    let previous = await enqueueAll(engine, Array.from({ length: chains }, (_, n) => ({ queue: 'pipeline', kind: 'step1', payload: { n } })));
    for (const kind of ['step2', 'step3']) {
      previous = await enqueueAll(engine, previous.map((id, n) => ({ queue: 'pipeline', kind, payload: { n }, dependsOn: [id] })));
    }
    const pipeline = await drain(engine, 'pipeline', chains * 3);
    const fraction = pipeline / plain;
    log(`  ${store}: plain drain ${Math.round(plain)} jobs/s, 3-step pipeline ${Math.round(pipeline)} jobs/s`);
    figures.push({ name: `${store}: 3-step pipeline throughput / plain drain`, value: fraction, unit: '×', target: '>= 0.5', met: fraction >= 0.5 });

    // Parent completion → child claim, one pair at a time; the first WARM_UP pairs are not
    // counted (a daemon that has run a while has its code compiled).
    const pairs = sizes.pairs + WARM_UP;
    const parents = await enqueueAll(engine, Array.from({ length: pairs }, () => ({ queue: 'parents', kind: 'parent' })));
    await enqueueAll(engine, parents.map((id) => ({ queue: 'children', kind: 'child', dependsOn: [id] })));
    const latencies: number[] = [];
    const cpuTimes: number[] = [];
    for (let i = 0; i < pairs; i += 1) {
      const [parent] = await engine.claim({ workerId: WORKER, queues: ['parents'], max: 1 });
      if (parent === undefined) throw new Error('no parent to claim');
      const cpu = process.cpuUsage();
      const started = performance.now();
      await engine.complete({ id: parent.id, workerId: WORKER });
      const [child] = await engine.claim({ workerId: WORKER, queues: ['children'], max: 1 });
      if (i >= WARM_UP) {
        latencies.push(performance.now() - started);
        const used = process.cpuUsage(cpu);
        cpuTimes.push((used.user + used.system) / 1000);
      }
      if (child === undefined) throw new Error('the child was not ready after its parent completed');
      await engine.complete({ id: child.id, workerId: WORKER });
    }
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    figures.push({ name: `${store}: parent complete → child claim, p50`, value: p50, unit: 'ms' });
    figures.push({ name: `${store}: parent complete → child claim, p99`, value: p99, unit: 'ms', ...(latencyTarget === undefined ? {} : { target: latencyTarget, met: p99 < 5 }) });
    // The same pairs in CPU time of this process: what the code costs, apart from the time the
    // process waited for a core (on a shared machine, most of the wall-clock tail).
    cpuTimes.sort((a, b) => a - b);
    figures.push({ name: `${store}: parent complete → child claim, CPU time p99`, value: percentile(cpuTimes, 99), unit: 'ms' });

    // Fan-out: one complete makes 10,000 jobs ready.
    const [root] = await enqueueAll(engine, [{ queue: 'root', kind: 'root' }]);
    await enqueueAll(engine, Array.from({ length: sizes.fanOut }, () => ({ queue: 'fan', kind: 'leaf', dependsOn: [root ?? ''] })));
    const [claimed] = await engine.claim({ workerId: WORKER, queues: ['root'], max: 1 });
    if (claimed === undefined) throw new Error('no root to claim');
    const started = performance.now();
    await engine.complete({ id: claimed.id, workerId: WORKER });
    const fanOutMs = performance.now() - started;
    const ready = (await engine.getQueue('fan')).counts.queued;
    if (ready !== sizes.fanOut) throw new Error(`the fan-out made ${ready} of ${sizes.fanOut} jobs ready`);
    figures.push({ name: `${store}: fan-out of ${sizes.fanOut.toLocaleString('en')} made ready`, value: fanOutMs, unit: 'ms', target: '< 1000', met: fanOutMs < 1000 });
  } finally {
    await engine.close();
  }
  for (const f of figures) log(`  ${f.name}: ${f.value.toFixed(f.unit === '×' ? 2 : 1)} ${f.unit}${f.target ? ` (target ${f.target}${f.met === false ? ', MISSED' : ''})` : ''}`);
  return figures;
}

export async function runDependenciesBench(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const sizes: Sizes = options.quick ? { jobs: 3000, pairs: 200, fanOut: 10_000 } : { jobs: 30_000, pairs: 1000, fanOut: 10_000 };
  log('Dependencies between jobs (the engine in-process)');
  const figures: BenchFigure[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-deps-'));
  try {
    // WAL checkpoints in the background, as the daemon runs the store: with 'auto', every
    // thousandth page of WAL makes one commit copy it back, a pause of several ms that the
    // daemon never pays.
    figures.push(...(await measure('SQLite', () => sqliteStore({ dbPath: path.join(dir, 'spool.db'), walCheckpoints: 'background' }), sizes, log, '< 5')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  let server: PgServer | undefined;
  try {
    server = await PgServer.start();
  } catch (error) {
    log(`  PostgreSQL: not measured (${errorMessage(error)})`);
  }
  if (server !== undefined) {
    try {
      const url = await server.database();
      const pgSizes: Sizes = { ...sizes, jobs: Math.floor(sizes.jobs / 5), pairs: Math.floor(sizes.pairs / 2) };
      figures.push(...(await measure('PostgreSQL', () => postgresStore({ url }), pgSizes, log, undefined)));
    } finally {
      server.destroy();
    }
  }
  return figures;
}
