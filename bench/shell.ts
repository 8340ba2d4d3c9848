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

/** utime+stime and cutime+cstime (the children it reaped) of a process, in seconds; zeros once it is gone. */
function processCpu(pid: number): { own: number; reaped: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    return { own: ((f[11] ?? 0) + (f[12] ?? 0)) / 100, reaped: ((f[13] ?? 0) + (f[14] ?? 0)) / 100 };
  } catch {
    return { own: 0, reaped: 0 };
  }
}

/**
 * The CPU of the daemon, of its launcher of shell jobs (a child whose command line names
 * launcher.js, in builds that have one) and of the processes either reaped: the jobs' shells.
 */
function shellCpu(daemonPid: number): { daemon: number; launcher: number; jobs: number } {
  const daemon = processCpu(daemonPid);
  let launcher = { own: 0, reaped: 0 };
  try {
    for (const child of fs.readFileSync(`/proc/${daemonPid}/task/${daemonPid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)) {
      if (fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('launcher.js')) launcher = processCpu(child);
    }
  } catch {
    // Not Linux, or the daemon is gone: the daemon's own figure stands alone.
  }
  return { daemon: daemon.own, launcher: launcher.own, jobs: daemon.reaped + launcher.reaped };
}

async function completedCount(client: SpoolClient, queue: string): Promise<number> {
  const stats = await client.call('stats.get', {});
  const counts = stats.queues.find((q) => q.name === queue)?.counts;
  return (counts?.completed ?? 0) + (counts?.dead ?? 0);
}

/**
 * Polls `stats.get` until `n` jobs of `queue` finished. Each poll is daemon work the figures
 * count, so while many jobs are left it looks about twice per the time they should take at the
 * rate seen so far (at most every 200 ms), and every 10 ms near the end: the last completion is
 * still seen within 10 ms.
 */
async function waitForCompleted(client: SpoolClient, queue: string, n: number, timeoutMs: number): Promise<void> {
  const start = Date.now();
  const deadline = start + timeoutMs;
  for (;;) {
    const done = await completedCount(client, queue);
    if (done >= n) return;
    if (Date.now() > deadline) throw new Error(`${queue}: fewer than ${n} shell jobs finished within ${timeoutMs} ms`);
    const msPerJob = done > 0 ? (Date.now() - start) / done : 0;
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, Math.max(10, ((n - done) * msPerJob) / 2))));
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
    const cpu0 = shellCpu(daemon.pid);
    const t0 = performance.now();
    for (let i = 0; i < jobs; i += 500) {
      const size = Math.min(500, jobs - i);
      await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: size }, () => ({ queue: 'shell-rate', kind: 'shell', payload: { command: 'true' } })) });
    }
    await waitForCompleted(client, 'shell-rate', jobs, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    const used = span.end();
    const cpu1 = shellCpu(daemon.pid);
    const perJob = (seconds: number): string => `${((seconds / jobs) * 1e3).toFixed(1)} ms`;
    const rate = jobs / seconds;
    log(`  \`true\` jobs: ${Math.round(rate).toLocaleString('en-US')} jobs/s (daemon CPU ${((used.daemonCpu / jobs) * 1e6).toFixed(0)} µs/job)`);
    log(`  CPU per job: daemon ${perJob(cpu1.daemon - cpu0.daemon)}, launcher ${perJob(cpu1.launcher - cpu0.launcher)}, the jobs' processes ${perJob(cpu1.jobs - cpu0.jobs)}`);

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
      { name: 'shell `true` jobs', value: Math.round(rate), unit: 'jobs/s', target: '>= 100', met: rate >= 100 },
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
