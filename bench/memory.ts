/**
 * `SPOOL_BENCH_PART=memory`: the daemon's resident memory (VmRSS) with 1,000,000 waiting jobs
 * (200,000 with SPOOL_BENCH_QUICK=1), enqueued with enqueueBatch of 1,000, and its peak while two
 * workers drain them over the socket (claims of 100, completions in one batch), sampled every
 * 100 ms from /proc/<pid>/status.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { killBenchProcesses, launchDaemon, measure, rssMegabytes, runClient, writeClientScript } from './daemon';
import type { BenchFigure } from './figure';

interface Options {
  quick?: boolean;
  log?: (line: string) => void;
}

export async function runMemoryBench(options: Options = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const big = options.quick ? 200_000 : 1_000_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-memory-'));
  const script = writeClientScript(dir);
  const daemon = await launchDaemon({ daemonScript: path.resolve(__dirname, 'daemon.js'), dir, name: 'memory' });
  try {
    log(`Daemon memory (VmRSS) with ${big.toLocaleString('en-US')} waiting jobs, and its peak while 2 workers drain them (claims of 100)\n`);
    const started = rssMegabytes(daemon.pid);
    const loading = measure(daemon.pid);
    await runClient(script, { role: 'enqueue', socket: daemon.socketPath, n: big, window: 4, batch: 1000, queue: 'big' });
    const loaded = loading.end();
    const waiting = rssMegabytes(daemon.pid);
    log(`  at start ${started.toFixed(0)} MB; loaded at ${Math.round(big / loaded.wall).toLocaleString('en-US')} jobs/s; with ${big.toLocaleString('en-US')} waiting ${waiting.toFixed(0)} MB`);
    let peak = waiting;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMegabytes(daemon.pid))), 100);
    const draining = measure(daemon.pid);
    try {
      await Promise.all([0, 1].map((i) => runClient(script, { role: 'drain', socket: daemon.socketPath, max: 100, queue: 'big', workerId: `w${i}`, lanes: 1, waitMs: 0 })));
    } finally {
      clearInterval(sampler);
    }
    const drained = draining.end();
    const after = rssMegabytes(daemon.pid);
    log(`  drained at ${Math.round(big / drained.wall).toLocaleString('en-US')} jobs/s; peak during the drain ${peak.toFixed(0)} MB; after it ${after.toFixed(0)} MB`);
    const figures: BenchFigure[] = [
      { name: `daemon RSS with ${big.toLocaleString('en-US')} waiting jobs`, value: Math.round(waiting), unit: 'MB', target: '< 150', met: waiting < 150 },
      { name: 'daemon RSS peak during their drain', value: Math.round(peak), unit: 'MB', target: '< 200', met: peak < 200 },
    ];
    for (const f of figures) log(`  ${f.met ? 'met   ' : 'MISSED'} ${f.name}: ${f.value} ${f.unit} (target ${f.target})`);
    return figures;
  } finally {
    await daemon.stop();
    killBenchProcesses();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
