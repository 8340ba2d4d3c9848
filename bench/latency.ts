/**
 * `SPOOL_BENCH_PART=latency`: how long a job waits between its enqueue and a worker that is
 * already waiting for it (a long-polling `jobs.claim`), measured from the producer's call to the
 * moment the worker has read the claim's answer.
 *
 * - SQLite: one daemon, a producer enqueuing one job every 5 ms, a worker waiting in `jobs.claim`
 *   (bench/daemon.ts `claimLatency`), measured after 3,000 jobs that warm the daemon up
 *   (SPOOL_BENCH_LATENCY_WARMUP=N, 0 for none); the warm-up's first samples are shown apart.
 * - PostgreSQL, across daemons: two daemons on one database, the producer on A, the worker on B,
 *   which hears of the job through LISTEN/NOTIFY; one job every 10 ms. Measured twice: with
 *   nothing else running, and while two more workers (one on each daemon) drain 40,000 jobs of
 *   another queue from the same database — the issue's "under the drain load"; of that run only
 *   the samples taken before the drain ended count. Each pair of daemons is warmed up first
 *   (SPOOL_BENCH_WARMUP jobs drained, then 300 of the run's own; SPOOL_BENCH_WARMUP=0: none).
 *
 * SPOOL_BENCH_BASELINE=<checkout> measures that build's daemon in the same run too, each round
 * taking turns (this build first in odd rounds, the baseline first in even ones), so that the
 * machine's load falls on both alike. SPOOL_BENCH_ROUNDS=N sets the rounds (default 4; 1 with
 * SPOOL_BENCH_QUICK=1). Skips PostgreSQL when its server programs are missing, or with
 * SPOOL_BENCH_LATENCY_STORES=sqlite.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PgServer, pgBin } from '../scripts/pgServer';
import { errorMessage } from '../shared/protocol/errors';
import { benchWarmup, claimLatency, drainUnmeasured, killBenchProcesses, latencyWarmup, launchDaemon, percentileOf, runClient, settled, writeClientScript, type BenchClient, type BenchDaemon } from './daemon';
import type { BenchFigure } from './figure';

interface Options {
  quick?: boolean;
  log?: (line: string) => void;
}

/** The drain that runs beside the PostgreSQL latency measured "under the drain load". */
const DRAIN_JOBS = 40_000;

/** PostgreSQL as the postgres part runs it: durable commits. */
export const PG_BENCH_SETTINGS: Readonly<Record<string, string>> = { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on', shared_buffers: '256MB', max_wal_size: '2GB' };

/** Starts `n` daemons of one build on one PostgreSQL database. */
export type DaemonsOn = (url: string, n: number, script?: string) => Promise<BenchDaemon[]>;

/** One latency run across daemons: its samples (ms); under the drain load, only those taken before the drain ended. */
export interface CrossDaemonRun {
  samples: number[];
  /** Under the drain load: the samples taken after the drain had ended, left out of `samples`. */
  afterDrain?: number;
}

/**
 * Enqueue on daemon A → claim on daemon B, one job every 10 ms, through LISTEN/NOTIFY. With
 * `underDrain`, a queue of DRAIN_JOBS is filled first, and two drain workers (one on A, one on
 * B, each with two claim loops of 200) work through it while the samples are taken; those taken
 * after it ended are left out.
 */
export async function crossDaemonLatency(url: string, daemonsOn: DaemonsOn, stopAll: (list: BenchDaemon[]) => Promise<void>, client: BenchClient, samples: number, options: { underDrain?: boolean; script?: string } = {}): Promise<CrossDaemonRun> {
  const [a, b] = (await daemonsOn(url, 2, options.script)) as [BenchDaemon, BenchDaemon];
  try {
    await warmPair(a, b, client);
    const latency = (): Promise<{ samples: number[]; ats: number[] }> =>
      Promise.all([
        client({ role: 'latency-worker', socket: b.socketPath, n: samples, queue: 'latency', max: 50 }),
        client({ role: 'latency-producer', socket: a.socketPath, n: samples, queue: 'latency', gapMs: 10 }),
      ]).then(([worker]) => worker as { samples: number[]; ats: number[] });
    if (options.underDrain !== true) return { samples: (await latency()).samples };
    await client({ role: 'enqueue', socket: a.socketPath, n: DRAIN_JOBS, window: 4, batch: 500, queue: 'drain' });
    // The clients' clock: performance.timeOrigin + performance.now(), as the latency worker's.
    let drainEnded = Infinity;
    const drain = Promise.all([a, b].map((d, i) => client({ role: 'drain', socket: d.socketPath, max: 200, queue: 'drain', workerId: `drain-${i}` }))).then(() => {
      drainEnded = performance.timeOrigin + performance.now();
    });
    const measured = await latency();
    await drain;
    const during = measured.samples.filter((_, i) => (measured.ats[i] ?? Infinity) <= drainEnded);
    return { samples: during, afterDrain: measured.samples.length - during.length };
  } finally {
    await stopAll([a, b]);
  }
}

/**
 * Warms two fresh daemons up, unmeasured, as the other parts warm theirs: SPOOL_BENCH_WARMUP jobs
 * (default 5,000) enqueued on A and drained by a worker on each, then WARM_SAMPLES of the latency
 * run's own traffic (enqueue on A, a waiting claim on B) on another queue. In one run each way
 * (BENCHMARKS.md, "Wake latency") the p99 under the drain was 70–79 ms warm against 99–119 cold.
 */
async function warmPair(a: BenchDaemon, b: BenchDaemon, client: BenchClient): Promise<void> {
  const jobs = benchWarmup();
  if (jobs === 0) return;
  await drainUnmeasured(client, a.socketPath, 'warm-up', jobs, [a, b].map((d) => ({ socket: d.socketPath, max: 200 })));
  await Promise.all([
    client({ role: 'latency-worker', socket: b.socketPath, n: WARM_SAMPLES, queue: 'warm-up-latency', max: 50 }),
    client({ role: 'latency-producer', socket: a.socketPath, n: WARM_SAMPLES, queue: 'warm-up-latency', gapMs: 10 }),
  ]);
}

/** Jobs of the latency run's own kind that warm a pair of daemons up (3 s at one every 10 ms). */
const WARM_SAMPLES = 300;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Per-round p50 and p99 of one build in one scenario, and every sample of its rounds. */
class Figures {
  readonly p50: number[] = [];
  readonly p99: number[] = [];
  readonly all: number[] = [];

  add(samples: readonly number[]): [number, number] {
    const sorted = [...samples].sort((x, y) => x - y);
    const p50 = percentileOf(sorted, 0.5);
    const p99 = percentileOf(sorted, 0.99);
    this.p50.push(p50);
    this.p99.push(p99);
    this.all.push(...samples);
    return [p50, p99];
  }

  /** "p50 0.71 ms (0.65–0.80), p99 1.90 ms (1.52–2.60); all 4,000 samples: p50 0.72, p99 1.95" */
  describe(): string {
    const range = (list: number[]): string => `${Math.min(...list).toFixed(2)}–${Math.max(...list).toFixed(2)}`;
    const sorted = [...this.all].sort((x, y) => x - y);
    return (
      `p50 ${median(this.p50).toFixed(2)} ms (${range(this.p50)}), p99 ${median(this.p99).toFixed(2)} ms (${range(this.p99)}); ` +
      `all ${sorted.length.toLocaleString('en-US')} samples: p50 ${percentileOf(sorted, 0.5).toFixed(2)}, p99 ${percentileOf(sorted, 0.99).toFixed(2)}`
    );
  }
}

/** Why PostgreSQL cannot be measured here (its server programs are missing), or null. */
function postgresMissing(): string | null {
  if (process.env['SPOOL_BENCH_LATENCY_STORES'] === 'sqlite') return 'SPOOL_BENCH_LATENCY_STORES=sqlite';
  try {
    pgBin();
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

const load = (): string => os.loadavg()[0]?.toFixed(1) ?? '?';

export async function runLatencyBench(options: Options = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const quick = options.quick ?? false;
  const rounds = quick ? 1 : Number(process.env['SPOOL_BENCH_ROUNDS'] ?? 4);
  const baseline = process.env['SPOOL_BENCH_BASELINE'];
  const builds: [string, string][] = [['this build', path.join(__dirname, 'daemon.js')]];
  if (baseline) builds.push(['baseline', path.resolve(baseline, 'dist', 'daemon.js')]);
  /** This build first in odd rounds, the baseline first in even ones. */
  const order = (round: number): [string, string][] => (round % 2 === 0 ? builds : [...builds].reverse());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-latency-'));
  const script = writeClientScript(dir);
  const client: BenchClient = (config) => runClient(script, config);
  const started: BenchDaemon[] = [];
  let names = 0;
  const figures: BenchFigure[] = [];
  const report = (name: string, byBuild: Map<string, Figures>, target: number): void => {
    for (const [build] of builds) log(`  ${name}, ${build}: ${byBuild.get(build)?.describe() ?? ''}`);
    const own = byBuild.get('this build');
    if (own === undefined) return;
    const p99 = median(own.p99);
    figures.push({ name: `${name} p99`, value: Number(p99.toFixed(2)), unit: 'ms', target: `< ${target}`, met: p99 < target });
  };
  log(`Wake latency: enqueue → a waiting claim's answer; ${rounds} round(s)${baseline ? `, interleaved with the baseline ${baseline}` : ''}; load ${load()} at the start`);
  let server: PgServer | null = null;
  // Interrupted (Ctrl-C, SIGTERM): no daemon, client, server or folder of this run is left behind.
  const onSignal = (signal: NodeJS.Signals): void => {
    killBenchProcesses();
    server?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(128 + (os.constants.signals[signal] ?? 2));
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.once(signal, onSignal);
  try {
    // SQLite.
    const sqlite = new Map<string, Figures>(builds.map(([name]) => [name, new Figures()]));
    // The warm-up's first samples: the same daemon, just started (bench/daemon.ts latencyWarmup).
    const justStarted = new Map<string, Figures>(builds.map(([name]) => [name, new Figures()]));
    const sqliteSamples = quick ? 300 : 1000;
    const warmup = quick ? 0 : latencyWarmup();
    log(
      warmup > 0
        ? `  SQLite: each daemon first takes ${warmup.toLocaleString('en-US')} jobs unmeasured, at the same pace (SPOOL_BENCH_LATENCY_WARMUP); the first ${Math.min(warmup, sqliteSamples).toLocaleString('en-US')} of them are shown apart, as "just started"`
        : '  SQLite: no warm-up, each daemon is measured from its start',
    );
    for (let round = 0; round < rounds; round += 1) {
      for (const [build, daemonScript] of order(round)) {
        names += 1;
        const daemon = await launchDaemon({ daemonScript, dir, name: `sqlite-${names}` });
        started.push(daemon);
        try {
          await settled(daemon.pid);
          const run = await claimLatency(client, daemon, sqliteSamples, warmup);
          const [p50, p99] = sqlite.get(build)?.add(run.samples) ?? [NaN, NaN];
          const first = run.warmup.slice(0, sqliteSamples);
          const cold = first.length > 0 ? justStarted.get(build)?.add(first) : undefined;
          const coldNote = cold === undefined ? '' : `; just started p50 ${cold[0].toFixed(2)} ms, p99 ${cold[1].toFixed(2)} ms`;
          log(`  round ${round + 1}: SQLite, ${build.padEnd(10)} p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms${coldNote} (load ${load()})`);
        } finally {
          await daemon.stop();
        }
      }
    }
    if (warmup > 0) for (const [build] of builds) log(`  SQLite enqueue → waiting claim, just started, ${build}: ${justStarted.get(build)?.describe() ?? ''}`);
    report('SQLite enqueue → waiting claim', sqlite, 2);

    // PostgreSQL, across two daemons, idle and under a drain.
    const missing = postgresMissing();
    if (missing !== null) {
      log(`  PostgreSQL: skipped (${missing})`);
    } else {
      const pgServer = await PgServer.start({ ...PG_BENCH_SETTINGS });
      server = pgServer;
      try {
        const daemonsOn: DaemonsOn = async (url, n, daemonScript) => {
          const list: BenchDaemon[] = [];
          for (let i = 0; i < n; i += 1) {
            names += 1;
            const d = await launchDaemon({ daemonScript: daemonScript ?? path.join(__dirname, 'daemon.js'), dir, name: `pg-${names}`, extraArgs: ['--store', url] });
            started.push(d);
            list.push(d);
          }
          return list;
        };
        const stopAll = async (list: BenchDaemon[]): Promise<void> => void (await Promise.all(list.map((d) => d.stop())));
        const idle = new Map<string, Figures>(builds.map(([name]) => [name, new Figures()]));
        const busy = new Map<string, Figures>(builds.map(([name]) => [name, new Figures()]));
        const pgSamples = quick ? 100 : 300;
        let afterDrain = 0;
        for (let round = 0; round < rounds; round += 1) {
          for (const [build, daemonScript] of order(round)) {
            const quiet = await crossDaemonLatency(await pgServer.database(), daemonsOn, stopAll, client, pgSamples, { script: daemonScript });
            const [q50, q99] = idle.get(build)?.add(quiet.samples) ?? [NaN, NaN];
            const loaded = await crossDaemonLatency(await pgServer.database(), daemonsOn, stopAll, client, pgSamples, { script: daemonScript, underDrain: true });
            const [b50, b99] = busy.get(build)?.add(loaded.samples) ?? [NaN, NaN];
            afterDrain += loaded.afterDrain ?? 0;
            log(
              `  round ${round + 1}: PostgreSQL A → B, ${build.padEnd(10)} alone p50 ${q50.toFixed(1)} ms, p99 ${q99.toFixed(1)} ms; ` +
                `under the drain p50 ${b50.toFixed(1)} ms, p99 ${b99.toFixed(1)} ms (${loaded.samples.length} samples taken before the drain ended) (load ${load()})`,
            );
          }
        }
        report('PostgreSQL enqueue on A → waiting claim on B, alone', idle, 20);
        report('PostgreSQL enqueue on A → waiting claim on B, under the drain', busy, 20);
        if (afterDrain > 0) log(`  ${afterDrain} sample(s) came after their drain had ended and are left out of the figures under the drain.`);
      } finally {
        pgServer.destroy();
        server = null;
      }
    }
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    await Promise.all(started.map((d) => d.stop()));
    killBenchProcesses();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const f of figures) log(`  ${f.met ? 'met   ' : 'MISSED'} ${f.name}: ${f.value} ${f.unit} (target ${f.target})`);
  return figures;
}
