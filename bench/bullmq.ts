/**
 * `SPOOL_BENCH_PART=bullmq`: Spool on SQLite beside BullMQ on Redis, in one run, the rounds
 * interleaved (each round runs both, in a rotating order) so that the machine's moods fall on
 * both alike; the figures are the medians over the rounds, with their range.
 *
 * The same work for each: 20,000 no-op jobs enqueued in batches of 500, then drained.
 * - Spool: a real daemon process on a fresh SQLite file (its defaults: WAL, group commit), filled
 *   with `jobs.enqueueBatch`, drained by two worker processes over its socket, each claiming 100
 *   at a time (asking for the fields a worker runs a job with: kind, payload, attempts) and
 *   completing them with one `jobs.completeMany`.
 * - BullMQ: `addBulk` of 500 into a fresh Redis (`redis-server` the benchmark starts on a free
 *   port without persistence: no RDB snapshots, no append-only file, as a queue's Redis often
 *   runs), drained by one `Worker` with concurrency 10 in this process, as an application runs it.
 *   Completed jobs are kept, as Spool keeps them.
 * - Before it is measured, each contender drains WARMUP jobs the same way, unmeasured.
 * - Spool's workers send the next claim behind each completion (PIPELINED), as BullMQ's worker
 *   takes its next job in the call that completes one.
 *
 * BullMQ is a dev dependency; `redis-server` is Debian's package (`apt-get install redis-server`),
 * which `.ci/run` does not install: without it the part says so and is skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { VERSION } from '../shared/protocol/version';
import { benchPipelined, benchWarmup, drainUnmeasured, killBenchProcesses, launchDaemon, measure, runClient, settled, writeClientScript, type BenchClient } from './daemon';
import type { BenchFigure } from './figure';

const JOBS = 20_000;
const BATCH = 500;
/**
 * Jobs each contender drains, unmeasured, before it is measured: a daemon in use, like the
 * benchmark process that runs BullMQ's worker from its second round on, is past V8's first,
 * unoptimised runs of its code. Without it each fresh daemon spent part of its drain in them
 * (and BullMQ's first round was its slowest). SPOOL_BENCH_WARMUP=0 measures cold daemons.
 */
const WARMUP = benchWarmup();
/**
 * Spool's workers send each claim behind the previous claim's completion, without waiting for
 * its answer, as BullMQ's worker gets its next job from the call that completes one.
 * SPOOL_BENCH_PIPELINED=0 waits for each completion's answer before claiming again.
 */
const PIPELINED = benchPipelined();

interface Options {
  quick?: boolean;
  log?: (line: string) => void;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function packageVersion(name: string): string {
  try {
    return String((JSON.parse(fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version?: unknown }).version);
  } catch {
    return 'not installed';
  }
}

/** `redis-server --version`'s version, or null when it is not installed. */
function redisVersion(): string | null {
  const run = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (run.error || run.status !== 0) return null;
  return /v=([\d.]+)/.exec(run.stdout)?.[1] ?? run.stdout.trim();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A throwaway Redis on a free loopback port, without persistence; `stop()` ends it. */
async function startRedis(dir: string): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 15_000;
  while (!output.includes('Ready to accept connections')) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start within 15 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** A round's rate, and for a Spool daemon its CPU per job while draining (from /proc, which the machine's load moves less than the rate). */
type Scenario = (round: number) => Promise<{ rate: number; cpuUsPerJob?: number }>;

export async function runBullmqBench(options: Options = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const redis = redisVersion();
  if (redis === null) {
    log('SQLite beside BullMQ: skipped (redis-server is not installed; apt-get install redis-server)');
    return [];
  }
  const rounds = Number(process.env['SPOOL_BENCH_ROUNDS'] ?? (options.quick ? 1 : 5));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-bullmq-'));
  const script = writeClientScript(dir);
  const client: BenchClient = (config) => runClient(script, config);
  const daemonScript = path.resolve(__dirname, 'daemon.js');
  const server = await startRedis(dir);

  const spoolWith = (daemonProgram: string, label: string): Scenario => async (round) => {
    const daemon = await launchDaemon({ daemonScript: daemonProgram, dir, name: `${label}-${round}` });
    try {
      await drainUnmeasured(client, daemon.socketPath, 'warm-up', WARMUP, [0, 1].map(() => ({ socket: daemon.socketPath, max: 100, lanes: 1, waitMs: 0 })));
      await client({ role: 'enqueue', socket: daemon.socketPath, n: JOBS, window: 4, batch: BATCH, queue: 'bench' });
      await settled(daemon.pid);
      const cpu = measure(daemon.pid);
      const t0 = performance.now();
      const drained = (await Promise.all([0, 1].map((i) => client({ role: 'drain', socket: daemon.socketPath, max: 100, queue: 'bench', workerId: `w${i}`, lanes: 1, waitMs: 0, pipelined: PIPELINED })))) as { completed: number }[];
      const ms = performance.now() - t0;
      const total = drained.reduce((a, r) => a + r.completed, 0);
      if (total !== JOBS) throw new Error(`Spool drained ${total} jobs of ${JOBS}`);
      return { rate: (JOBS / ms) * 1000, cpuUsPerJob: (cpu.end().daemonCpu / JOBS) * 1e6 };
    } finally {
      await daemon.stop();
    }
  };
  const spool = spoolWith(daemonScript, 'sqlite');

  const bullmqDrain = async (name: string, jobs: number): Promise<{ rate: number }> => {
    const { Queue, Worker } = await import('bullmq');
    const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
    const queue = new Queue(name, { connection });
    try {
      for (let i = 0; i < jobs; i += BATCH) await queue.addBulk(Array.from({ length: Math.min(BATCH, jobs - i) }, () => ({ name: 'noop', data: {} })));
      let done = 0;
      let finished: () => void = () => undefined;
      const allDone = new Promise<void>((resolve) => (finished = resolve));
      const t0 = performance.now();
      const worker = new Worker(name, async () => undefined, { connection, concurrency: 10 });
      worker.on('completed', () => {
        done += 1;
        if (done === jobs) finished();
      });
      worker.on('error', () => undefined);
      await allDone;
      const ms = performance.now() - t0;
      await worker.close();
      return { rate: (jobs / ms) * 1000 };
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  };
  const bullmq: Scenario = (round) => bullmqDrain(`bench-${round}`, JOBS);

  const scenarios: [string, Scenario][] = [
    ['Spool on SQLite', spool],
    ['BullMQ on Redis', bullmq],
  ];
  // SPOOL_BENCH_BASELINE=<checkout> adds that build's daemon (its dist/daemon.js) as a third
  // contender in the same interleaved rounds: a before-and-after beside the peer.
  const baseline = process.env['SPOOL_BENCH_BASELINE'];
  if (baseline) scenarios.push(['Spool baseline', spoolWith(path.resolve(baseline, 'dist', 'daemon.js'), 'baseline')]);
  const rates = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  const cpus = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  try {
    log(`Spool ${VERSION} on SQLite; BullMQ ${packageVersion('bullmq')} on Redis ${redis} (no persistence), loopback, Node ${process.version}`);
    log(`${JOBS.toLocaleString('en-US')} no-op jobs enqueued in batches of ${BATCH}, then drained (Spool: 2 workers claiming 100, completing each claim with jobs.completeMany${PIPELINED ? ' and claiming again behind it' : ', then claiming again'}; BullMQ: 1 worker, concurrency 10); ${rounds} interleaved round(s)`);
    log(WARMUP > 0 ? `Each contender first drains ${WARMUP.toLocaleString('en-US')} jobs unmeasured (each Spool daemon, and BullMQ's worker once, in this process)\n` : 'No warm-up (SPOOL_BENCH_WARMUP=0): each Spool daemon, and BullMQ in its first round, start cold\n');
    if (WARMUP > 0) await bullmqDrain('warm-up', WARMUP);
    for (let round = 0; round < rounds; round += 1) {
      for (let i = 0; i < scenarios.length; i += 1) {
        const [name, scenario] = scenarios[(i + round) % scenarios.length] as [string, Scenario];
        const { rate, cpuUsPerJob } = await scenario(round);
        rates.get(name)?.push(rate);
        if (cpuUsPerJob !== undefined) cpus.get(name)?.push(cpuUsPerJob);
        const cpuNote = cpuUsPerJob === undefined ? '' : `, daemon CPU ${cpuUsPerJob.toFixed(1)} µs a job`;
        log(`  round ${round + 1}: ${name.padEnd(16)} ${Math.round(rate).toLocaleString('en-US')} jobs/s${cpuNote}`);
      }
    }
  } finally {
    killBenchProcesses();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  log('');
  for (const [name] of scenarios) {
    const list = rates.get(name) ?? [];
    const cpu = cpus.get(name) ?? [];
    const cpuNote = cpu.length === 0 ? '' : `; daemon CPU median ${median(cpu).toFixed(1)} µs a job (${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)})`;
    log(`  ${name.padEnd(16)} median ${Math.round(median(list)).toLocaleString('en-US')} jobs/s (range ${Math.round(Math.min(...list)).toLocaleString('en-US')}–${Math.round(Math.max(...list)).toLocaleString('en-US')})${cpuNote}`);
  }
  const ours = median(rates.get('Spool on SQLite') ?? []);
  const theirs = median(rates.get('BullMQ on Redis') ?? []);
  const figures: BenchFigure[] = [
    { name: 'SQLite drain', value: Math.round(ours), unit: 'jobs/s', target: '>= 30000', met: ours >= 30_000 },
    { name: 'SQLite drain vs BullMQ', value: Number((ours / theirs).toFixed(2)), unit: '×', target: '>= 1.5', met: ours / theirs >= 1.5 },
  ];
  for (const f of figures) log(`  ${f.met ? 'met   ' : 'MISSED'} ${f.name}: ${f.value} ${f.unit} (target ${f.target})`);
  return figures;
}
