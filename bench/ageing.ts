/**
 * The cost of priority ageing (`SPOOL_BENCH_PART=ageing`, docs/flow-control.md): on SQLite, in
 * process, a queue with 10,000 waiting jobs of ten priorities. A claim of one job is timed with
 * the queue's ageing off and on (after a pass has raised most of the backlog), in interleaved
 * rounds on one store, and the ageing pass itself is timed when it raises every job and when it
 * finds nothing to change. Ageing leaves the claim statements and their index as they are, so
 * the claim should cost the same (target: at most 1.1× without ageing).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../daemon/engine';
import { sqliteStore } from '../daemon/storage/sqlite';
import type { BenchFigure } from './figure';

const MINUTE = 60_000;

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** Microseconds per claim of one job, over `claims` claims (each job claimed is left running). */
async function claimCost(engine: Engine, queue: string, claims: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < claims; i++) {
    const [job] = await engine.claim({ workerId: 'bench-ageing', queues: [queue] });
    if (job === undefined) throw new Error(`claim ${i} of ${queue} found nothing`);
  }
  return ((performance.now() - started) * 1000) / claims;
}

export async function runAgeingBench(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<BenchFigure[]> {
  const log = options.log ?? console.log;
  const waiting = options.quick ? 2000 : 10_000;
  const rounds = options.quick ? 3 : 7;
  const claims = 200;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-ageing-'));
  let clock = Date.UTC(2030, 0, 1);
  const engine = new Engine({ store: sqliteStore({ dbPath: path.join(dir, 'spool.db') }), now: () => clock, history: false });
  await engine.open();
  try {
    // Two queues alike, one with ageing: each round claims from both, so the machine's load
    // weighs on both alike. Each queue keeps `waiting` jobs waiting: a round claims 200 of the
    // 200 × rounds extra jobs enqueued first.
    for (const queue of ['plain', 'aged']) {
      const jobs = Array.from({ length: waiting + claims * rounds }, (_, i) => ({ kind: 'k', priority: i % 10 }));
      for (let i = 0; i < jobs.length; i += 1000) await engine.enqueueBatch({ jobs: jobs.slice(i, i + 1000).map((j) => ({ queue, ...j })) });
    }
    await engine.configureQueue({ name: 'aged', ageing: '1 per 1m' });
    clock += 30 * MINUTE;
    let started = performance.now();
    const first = await engine.ageWaiting();
    const firstPassMs = performance.now() - started;
    started = performance.now();
    const again = await engine.ageWaiting();
    const idlePassMs = performance.now() - started;
    log(`Ageing: a pass raising ${first.changed} waiting jobs took ${firstPassMs.toFixed(1)} ms; a pass changing ${again.changed} took ${idlePassMs.toFixed(1)} ms`);
    const off: number[] = [];
    const on: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        off.push(await claimCost(engine, 'plain', claims));
        on.push(await claimCost(engine, 'aged', claims));
      } else {
        on.push(await claimCost(engine, 'aged', claims));
        off.push(await claimCost(engine, 'plain', claims));
      }
    }
    const ratio = median(on) / median(off);
    log(`Ageing: a claim of one job among ${waiting} waiting: ${median(off).toFixed(1)} µs without ageing, ${median(on).toFixed(1)} µs with (× ${ratio.toFixed(2)})`);
    return [
      { name: 'claim with ageing / without', value: ratio, unit: '×', target: '<= 1.1', met: ratio <= 1.1 },
      { name: `ageing pass raising ${first.changed} jobs`, value: firstPassMs, unit: 'ms' },
      { name: 'ageing pass changing nothing', value: idlePassMs, unit: 'ms' },
    ];
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
