/**
 * `SPOOL_BENCH_PART=shell`: shell jobs run by the daemon's built-in executors, over its socket.
 *
 * - Rate: N jobs whose command is `true`, enqueued at once (enqueueBatch), run by the default
 *   executors (`--max-executors`, default 2); processes started and finished per second, from the
 *   first enqueue to the last completion seen by polling `stats.get` every 10 ms.
 * - Start latency: one job at a time (each enqueued after the previous one completed), whose
 *   command appends `<enqueue time> <its own start time>` to a file; the start is `date +%s%N`,
 *   the first program the shell runs, so the figure is enqueue → claim → `/bin/sh` started →
 *   `date` started. p50 and p99 over the samples.
 *
 * SPOOL_BENCH_DAEMON=<checkout> runs another build's daemon instead (see below).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SpoolClient } from '../shared/client/client';
import { killBenchProcesses, launchDaemon, measure } from './daemon';
import type { BenchFigure } from './figure';

interface Options {
  quick?: boolean;
  log?: (line: string) => void;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function completedCount(client: SpoolClient, queue: string): Promise<number> {
  const stats = await client.call('stats.get', {});
  const counts = stats.queues.find((q) => q.name === queue)?.counts;
  return (counts?.completed ?? 0) + (counts?.dead ?? 0);
}

async function waitForCompleted(client: SpoolClient, queue: string, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await completedCount(client, queue)) >= n) return;
    if (Date.now() > deadline) throw new Error(`${queue}: fewer than ${n} shell jobs finished within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function runShellBench(options: Options = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const jobs = options.quick ? 200 : 1000;
  const samples = options.quick ? 50 : 200;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-shell-'));
  // SPOOL_BENCH_DAEMON=<checkout> measures that build's daemon (its dist/daemon.js) instead: run
  // it in turn with this one's for a before-and-after.
  const other = process.env['SPOOL_BENCH_DAEMON'];
  const daemonScript = other ? path.resolve(other, 'dist', 'daemon.js') : path.resolve(__dirname, 'daemon.js');
  const daemon = await launchDaemon({ daemonScript, dir, name: 'shell' });
  const client = await SpoolClient.connect({ socketPath: daemon.socketPath });
  try {
    log(`Shell jobs run by the built-in executors (default --max-executors), ${jobs.toLocaleString('en-US')} \`true\` jobs; ${samples} start-latency samples\n`);
    const span = measure(daemon.pid);
    const t0 = performance.now();
    for (let i = 0; i < jobs; i += 500) {
      const size = Math.min(500, jobs - i);
      await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: size }, () => ({ queue: 'shell-rate', kind: 'shell', payload: { command: 'true' } })) });
    }
    await waitForCompleted(client, 'shell-rate', jobs, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    const used = span.end();
    const rate = jobs / seconds;
    log(`  \`true\` jobs: ${Math.round(rate).toLocaleString('en-US')} jobs/s (daemon CPU ${((used.daemonCpu / jobs) * 1e6).toFixed(0)} µs/job)`);

    const file = path.join(dir, 'starts.txt');
    for (let i = 0; i < samples; i += 1) {
      const at = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
      await client.call('jobs.enqueue', { queue: 'shell-latency', kind: 'shell', payload: { command: `echo ${at} $(date +%s%N) >> ${file}` } });
      await waitForCompleted(client, 'shell-latency', i + 1, 60_000);
    }
    const delays = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [enqueued, started] = line.split(' ').map((v) => BigInt(v));
        return Number((started as bigint) - (enqueued as bigint)) / 1e6;
      })
      .sort((a, b) => a - b);
    const p50 = percentile(delays, 50);
    const p99 = percentile(delays, 99);
    log(`  enqueue → command started: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`);
    const figures: BenchFigure[] = [
      { name: 'shell `true` jobs', value: Math.round(rate), unit: 'jobs/s', target: '>= 150', met: rate >= 150 },
      { name: 'shell enqueue → start p50', value: Number(p50.toFixed(2)), unit: 'ms', target: '< 10', met: p50 < 10 },
      { name: 'shell enqueue → start p99', value: Number(p99.toFixed(2)), unit: 'ms', target: '< 30', met: p99 < 30 },
    ];
    for (const f of figures) log(`  ${f.met ? 'met   ' : 'MISSED'} ${f.name}: ${f.value} ${f.unit} (target ${f.target})`);
    return figures;
  } finally {
    client.close();
    await daemon.stop();
    killBenchProcesses();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
