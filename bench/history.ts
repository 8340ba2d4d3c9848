/**
 * The cost of the queue history (`SPOOL_BENCH_PART=history`, docs/history.md): enqueue and drain
 * throughput of the engine in-process with history on and off, on SQLite (a file, WAL
 * checkpointed in the background as the daemon does) and on PostgreSQL (a throwaway server, when
 * one can be started). Rounds are interleaved (on, off, off, on, …) on fresh stores, so that a
 * machine busy with other work slows both alike; medians with their ranges are reported, and the
 * cost is the median's difference (target ≤ 3%). With history on, the tally is written every 5 s
 * as the daemon does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../daemon/engine';
import { sqliteStore } from '../daemon/storage/sqlite';
import { postgresStore } from '../daemon/storage/postgres';
import type { StoreFactory } from '../daemon/storage/store';
import { PgServer } from '../scripts/pgServer';
import { errorMessage } from '../shared/protocol/errors';
import type { BenchFigure } from './figure';

const WORKER = 'bench-worker';

interface Round {
  enqueue: number;
  drain: number;
}

async function round(store: StoreFactory, history: boolean, jobs: number): Promise<Round> {
  const engine = new Engine({ store, history: history ? undefined : false });
  await engine.open();
  const timer = history ? setInterval(() => void engine.flushHistory(), 5000) : null;
  try {
    let started = performance.now();
    // One enqueue per transaction, 20 in flight: the path of single enqueues.
    for (let i = 0; i < jobs; i += 20) await Promise.all(Array.from({ length: Math.min(20, jobs - i) }, () => engine.enqueue({ queue: 'bench', kind: 'k' })));
    const enqueue = jobs / ((performance.now() - started) / 1000);
    started = performance.now();
    let done = 0;
    while (done < jobs) {
      const claimed = await engine.claim({ workerId: WORKER, queues: ['bench'], max: 50 });
      if (claimed.length === 0) throw new Error(`the drain found nothing to claim after ${done} of ${jobs}`);
      await engine.completeMany(claimed.map((j) => ({ id: j.id, workerId: WORKER })));
      done += claimed.length;
    }
    const drain = jobs / ((performance.now() - started) / 1000);
    await engine.flushHistory();
    return { enqueue, drain };
  } finally {
    if (timer !== null) clearInterval(timer);
    await engine.close();
  }
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

async function measure(name: string, open: () => Promise<StoreFactory>, rounds: number, jobs: number, log: (line: string) => void): Promise<BenchFigure[]> {
  const on: Round[] = [];
  const off: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    // on, off, off, on, …: neither goes first every time.
    const order = r % 2 === 0 ? [true, false] : [false, true];
    for (const history of order) (history ? on : off).push(await round(await open(), history, jobs));
  }
  const figures: BenchFigure[] = [];
  for (const what of ['enqueue', 'drain'] as const) {
    const a = on.map((x) => x[what]);
    const b = off.map((x) => x[what]);
    const cost = (1 - median(a) / median(b)) * 100;
    const range = (v: number[]) => `${Math.round(Math.min(...v))}–${Math.round(Math.max(...v))}`;
    log(`  ${name} ${what}: history on ${Math.round(median(a))} jobs/s (${range(a)}), off ${Math.round(median(b))} jobs/s (${range(b)}); cost ${cost.toFixed(1)}%`);
    figures.push({ name: `${name} ${what} cost of history`, value: Number(cost.toFixed(1)), unit: '%', target: '<= 3', met: cost <= 3 });
  }
  return figures;
}

export async function runHistoryBench(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const rounds = options.quick ? 3 : 7;
  log(`The cost of the queue history (the engine in-process; ${rounds} interleaved rounds per setting, medians with ranges)`);
  const figures: BenchFigure[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-history-'));
  try {
    let n = 0;
    const open = async (): Promise<StoreFactory> => sqliteStore({ dbPath: path.join(dir, `spool-${n++}.db`), walCheckpoints: 'background' });
    figures.push(...(await measure('SQLite', open, rounds, options.quick ? 5000 : 20_000, log)));
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
    const pg = server;
    try {
      figures.push(...(await measure('PostgreSQL', async () => postgresStore({ url: await pg.database() }), rounds, options.quick ? 1000 : 4000, log)));
    } finally {
      server.destroy();
    }
  }
  return figures;
}
