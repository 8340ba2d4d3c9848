/**
 * The daemon benchmark: a real daemon process, driven over its Unix socket by separate client
 * processes (so client and daemon do not share a core's event loop), measured the way the daemon
 * issue states its targets:
 *
 * - pipelined single `jobs.enqueue` on one connection, with and without group commit, and from
 *   4 client processes at once;
 * - end to end: a producer enqueuing while a remote worker claims and completes in batches;
 * - latency from an enqueue to a waiting worker's claim (p50, p99);
 * - idle CPU (the steady state after a drain; the first seconds after the start apart), and RSS
 *   with 1,000,000 jobs in the database.
 *
 * The clients are deliberately minimal (raw newline-delimited JSON over node:net, no client
 * library), so the figures measure the daemon. SPOOL_BENCH_QUICK=1 shrinks every count.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as net from 'node:net';
import { DAEMON_NODE_FLAGS } from '../daemon/lifecycle/control';
import type { BenchFigure } from './figure';

export interface DaemonBenchOptions {
  quick?: boolean;
  log?: (line: string) => void;
}

/**
 * The client program, run with `node client.js '<json config>'`. Plain JavaScript so that it
 * starts fast and adds nothing between the socket and the measurement. Prints one JSON line.
 */
const CLIENT_SOURCE = String.raw`
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const cfg = JSON.parse(process.argv[2]);
const now = () => performance.timeOrigin + performance.now();
const socket = net.createConnection(cfg.socket);
let buffer = '';
let nextId = 1;
const pending = new Map();
socket.on('data', (data) => {
  const lines = (buffer + data.toString('utf8')).split('\n');
  buffer = lines.pop();
  for (const line of lines) {
    const msg = JSON.parse(line);
    const list = Array.isArray(msg) ? msg : [msg];
    const first = list[0];
    const resolve = pending.get(first.id);
    if (!resolve) continue;
    pending.delete(first.id);
    if (resolve.raw) { resolve(first); continue; }
    for (const m of list) if (m.error) { console.error(JSON.stringify(m.error)); process.exit(2); }
    resolve(Array.isArray(msg) ? list : first.result);
  }
});
let corked = false;
function write(line) {
  if (!corked) { corked = true; socket.cork(); setImmediate(() => { corked = false; socket.uncork(); }); }
  socket.write(line);
}
function call(method, params) {
  const id = nextId++;
  write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  return new Promise((resolve) => pending.set(id, resolve));
}
/** The whole answer, an error included: to ask what the daemon has. */
function ask(method, params) {
  const id = nextId++;
  write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  return new Promise((resolve) => { resolve.raw = true; pending.set(id, resolve); });
}
function batch(calls) {
  const first = nextId;
  const body = calls.map(([method, params]) => ({ jsonrpc: '2.0', id: nextId++, method, params }));
  write(JSON.stringify(body) + '\n');
  return new Promise((resolve) => pending.set(first, resolve));
}
const done = (result) => { process.stdout.write(JSON.stringify(result) + '\n'); socket.end(); process.exit(0); };
socket.on('connect', async () => {
  if (cfg.role === 'enqueue') {
    // A producer keeps only the ids of what it enqueued; a daemon older than jobs.enqueueBatch's
    // fields refuses the field (an empty batch is refused either way, for its jobs or its fields).
    const lean = cfg.batch && (await ask('jobs.enqueueBatch', { jobs: [], fields: ['id'] })).error?.data?.field !== 'fields' ? { fields: ['id'] } : {};
    const started = now();
    let sent = 0;
    const lane = async () => {
      while (sent < cfg.n) {
        const size = Math.min(cfg.batch || 1, cfg.n - sent);
        sent += size;
        if (cfg.batch) await call('jobs.enqueueBatch', { jobs: Array.from({ length: size }, () => ({ queue: cfg.queue, kind: 'noop' })), ...lean });
        else await call('jobs.enqueue', { queue: cfg.queue, kind: 'noop' });
      }
    };
    await Promise.all(Array.from({ length: cfg.window }, lane));
    done({ ms: now() - started });
  } else if (cfg.role === 'worker') {
    const started = now();
    let completed = 0;
    const inFlight = [];
    // Two claim loops share the connection, so one claim is always on its way while the other's
    // jobs are being completed.
    // As the drain below: the fields a worker reads and jobs.completeMany, or an older daemon's way.
    const each = (await ask('jobs.completeMany', {})).error?.code === -32601;
    const lean = each ? {} : { fields: ['kind', 'payload', 'attempts'] };
    const lane = async () => {
      while (completed < cfg.n) {
        const { jobs } = await call('jobs.claim', { workerId: cfg.workerId, queues: [cfg.queue], max: cfg.max, waitMs: 200, ...lean });
        if (jobs.length === 0) continue;
        // Completing and claiming again go out together; one connection's requests run in order.
        if (each) inFlight.push(batch(jobs.map((j) => ['jobs.complete', { id: j.id, workerId: cfg.workerId }])));
        else inFlight.push(call('jobs.completeMany', { workerId: cfg.workerId, jobs: jobs.map((j) => ({ id: j.id })) }));
        completed += jobs.length;
      }
    };
    await Promise.all([lane(), lane()]);
    await Promise.all(inFlight);
    done({ ms: now() - started });
  } else if (cfg.role === 'drain') {
    // Several of these share one queue (through several daemons): each claims and completes until
    // its claims come back empty, and says how many it completed.
    let completed = 0;
    // A daemon older than jobs.completeMany (and jobs.claim's fields) does not know the method: its
    // workers could only claim whole jobs and complete them with a batch of jobs.complete calls.
    const each = cfg.each || (await ask('jobs.completeMany', {})).error?.code === -32601;
    const lane = async () => {
      for (let empty = 0; empty < 2; ) {
        // cfg.waitMs 0 ends a lane at its first empty claim: the others hold what is left.
        // What a worker reads to run a job: its kind, payload and attempt (an older daemon sends every field).
        const lean = each ? {} : { fields: ['kind', 'payload', 'attempts'] };
        const { jobs } = await call('jobs.claim', { workerId: cfg.workerId, queues: [cfg.queue], max: cfg.max, waitMs: cfg.waitMs ?? 100, ...lean });
        if (jobs.length === 0) { empty += cfg.waitMs === 0 ? 2 : 1; continue; }
        empty = 0;
        // An older daemon: a batch of jobs.complete calls.
        const completing = each
          ? batch(jobs.map((j) => ['jobs.complete', { id: j.id, workerId: cfg.workerId }])).then((answers) => answers.length)
          : call('jobs.completeMany', { workerId: cfg.workerId, jobs: jobs.map((j) => ({ id: j.id })) }).then((r) => r.completed);
        // cfg.pipelined: the next claim goes out behind the completion without waiting for its
        // answer, as BullMQ's worker takes its next job in the call that completes one (the
        // daemon runs one connection's requests in order, so the claim sees the completion).
        if (cfg.pipelined) completions.push(completing);
        else {
          // Awaited before the sum is read: the lanes share it.
          const n = await completing;
          completed += n;
        }
      }
    };
    const completions = [];
    await Promise.all(Array.from({ length: cfg.lanes || 2 }, lane));
    for (const n of await Promise.all(completions)) completed += n;
    done({ completed });
  } else if (cfg.role === 'latency-worker') {
    // Takes whatever is waiting (cfg.max, default 1) so that a slow commit never builds a backlog
    // that the latency would then measure instead.
    // With each sample, when it was taken (ats), to keep those taken while something else ran.
    // cfg.warmup: the first jobs (payload.warmup) are claimed and completed but not counted.
    // Their latencies are returned apart (warmup), as the figure of a daemon just started.
    const samples = [];
    const ats = [];
    const warmup = [];
    while (samples.length < cfg.n) {
      const { jobs } = await call('jobs.claim', { workerId: 'latency', queues: [cfg.queue], max: cfg.max || 1, waitMs: 10000 });
      const at = now();
      for (const j of jobs) {
        if (j.payload.warmup) warmup.push(at - j.payload.t);
        else { samples.push(at - j.payload.t); ats.push(at); }
      }
      if (jobs.length > 0) await batch(jobs.map((j) => ['jobs.complete', { id: j.id, workerId: 'latency' }]));
    }
    done({ samples, ats, warmup });
  } else if (cfg.role === 'latency-producer') {
    // cfg.warmup jobs first, at the same pace, marked so that the worker does not count them.
    const warmup = cfg.warmup || 0;
    for (let i = 0; i < warmup + cfg.n; i++) {
      await new Promise((r) => setTimeout(r, cfg.gapMs));
      await call('jobs.enqueue', { queue: cfg.queue, kind: 'ping', payload: i < warmup ? { t: now(), warmup: true } : { t: now() } });
    }
    done({});
  }
});
socket.on('error', (e) => { console.error(e.message); process.exit(3); });
`;

/** A daemon process started for a benchmark, on its own socket and database. */
export interface BenchDaemon {
  socketPath: string;
  pid: number;
  /** Asks it to shut down (SIGTERM) and waits until it has exited. */
  stop(): Promise<void>;
}

/** Runs one client process with this configuration and resolves with the JSON line it printed. */
export type BenchClient = (config: Record<string, unknown>) => Promise<unknown>;

export async function runDaemonBench(options: DaemonBenchOptions = {}): Promise<BenchFigure[]> {
  const quick = options.quick ?? process.env['SPOOL_BENCH_QUICK'] === '1';
  const log = options.log ?? ((line: string) => console.log(line));
  const scale = quick ? 0.2 : 1;
  const n = (count: number): number => Math.max(1000, Math.round(count * scale));
  const figures: BenchFigure[] = [];
  const report = (f: BenchFigure): void => {
    figures.push(f);
    const fmt = (v: number): string => (f.unit === 'jobs/s' ? Math.round(v).toLocaleString('en-US') : v.toFixed(v < 10 ? 2 : 1));
    const cpu = f.cpuValue === undefined ? '' : `  [${fmt(f.cpuValue)} per daemon CPU-second]`;
    const target = f.target ? `  (target ${f.target}: ${f.met ? 'met' : 'MISSED'})` : '';
    log(`  ${f.name.padEnd(58)} ${fmt(f.value).padStart(12)} ${f.unit}${cpu}${target}`);
  };
  /**
   * A rate by the wall clock (what the target is about) and per second of the daemon's own CPU
   * time, which other processes on a shared machine do not distort.
   */
  const atLeast = (name: string, jobs: number, span: Span, target: number): void =>
    report({ name, value: jobs / span.wall, cpuValue: jobs / span.daemonCpu, unit: 'jobs/s', target: `>= ${target.toLocaleString('en-US')}`, met: jobs / span.wall >= target });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-daemon-bench-'));
  const clientScript = writeClientScript(dir);
  const client: BenchClient = (config) => runClient(clientScript, config);
  let daemonIndex = 0;
  // SPOOL_BENCH_DAEMON=<checkout> measures that build's daemon (its dist/daemon.js) instead, with
  // these clients: run it in turn with this one's for a before-and-after.
  const other = process.env['SPOOL_BENCH_DAEMON'];
  const daemonScript = other ? path.resolve(other, 'dist', 'daemon.js') : path.join(__dirname, 'daemon.js');
  const startDaemon = (extraArgs: string[] = []): Promise<BenchDaemon> => launchDaemon({ daemonScript, dir, name: `d${daemonIndex++}`, extraArgs });

  try {
    log(`Daemon (over the Unix socket, separate client processes${quick ? ', QUICK' : ''})`);

    // Pipelined single enqueues on one connection, with and without group commit.
    const single = n(100_000);
    for (const groupCommit of [true, false]) {
      const daemon = await startDaemon(groupCommit ? [] : ['--no-group-commit']);
      try {
        const result = await pipelinedEnqueue(client, daemon, single);
        if (groupCommit) atLeast('jobs.enqueue pipelined, 1 connection (group commit)', single, result, 30_000);
        else report({ name: '  the same without group commit (--no-group-commit)', value: single / result.wall, cpuValue: single / result.daemonCpu, unit: 'jobs/s' });
      } finally {
        await daemon.stop();
      }
    }

    // Four client processes at once.
    {
      const daemon = await startDaemon();
      try {
        const each = Math.round(single / 4);
        const span = measure(daemon.pid);
        await Promise.all(Array.from({ length: 4 }, (_, i) => client({ role: 'enqueue', socket: daemon.socketPath, n: each, window: 128, queue: `multi-${i}` })));
        atLeast('jobs.enqueue pipelined, 4 client processes', each * 4, span.end(), 30_000);
      } finally {
        await daemon.stop();
      }
    }

    // End to end: a producer and a remote worker at the same time.
    {
      const daemon = await startDaemon();
      try {
        const total = n(100_000);
        atLeast('end to end: enqueue + remote worker claim/complete (batches)', total, await endToEnd(client, daemon, total), 20_000);
      } finally {
        await daemon.stop();
      }
    }

    // The other reading of "enqueue then process": fill the queue first, then time a remote
    // worker working through the backlog alone (claims of 200, completes sent as one batch).
    {
      const daemon = await startDaemon();
      try {
        const total = n(100_000);
        const { filled, drained } = await fillThenDrain(client, daemon, total);
        report({ name: '  (filled with enqueueBatch of 500 first)', value: total / filled.wall, cpuValue: total / filled.daemonCpu, unit: 'jobs/s' });
        report({ name: '  then a remote worker works through the backlog', value: total / drained.wall, cpuValue: total / drained.daemonCpu, unit: 'jobs/s' });
      } finally {
        await daemon.stop();
      }
    }

    // Latency from an enqueue to a waiting worker's claim.
    {
      const daemon = await startDaemon();
      try {
        const { p50, p99 } = await claimLatency(client, daemon, quick ? 300 : 1000, quick ? 0 : latencyWarmup());
        report({ name: 'enqueue → waiting claim latency p50', value: p50, unit: 'ms', target: '< 2', met: p50 < 2 });
        report({ name: 'enqueue → waiting claim latency p99', value: p99, unit: 'ms', target: '< 2', met: p99 < 2 });
      } finally {
        await daemon.stop();
      }
    }

    // Idle CPU, then RSS with a large database.
    {
      const daemon = await startDaemon();
      try {
        // The first seconds after a start are not idle: the checkpointer thread loads its own
        // bundle and SQLite after the daemon answers, and V8 still compiles. They are reported
        // apart; idle is the steady state after them, with the work a daemon in service has
        // done behind it (a backlog filled and drained).
        const startup = quick ? 3 : 10;
        let before = cpuNanoseconds(daemon.pid);
        await new Promise((resolve) => setTimeout(resolve, startup * 1000));
        const first = cpuShare(cpuNanoseconds(daemon.pid) - before, startup);
        report({ name: `  (CPU over the first ${startup} s after the start)`, value: first, unit: '%' });
        await fillThenDrain(client, daemon, n(20_000));
        const settle = quick ? 2 : 10;
        const seconds = quick ? 5 : 30;
        await new Promise((resolve) => setTimeout(resolve, settle * 1000));
        before = cpuNanoseconds(daemon.pid);
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        const share = cpuShare(cpuNanoseconds(daemon.pid) - before, seconds);
        report({ name: `idle CPU over ${seconds} s (${settle} s after a drain)`, value: share, unit: '%', target: '< 1', met: share < 1 });

        const big = quick ? 200_000 : 1_000_000;
        const span = measure(daemon.pid);
        await client({ role: 'enqueue', socket: daemon.socketPath, n: big, window: 4, batch: 1000, queue: 'big' });
        const loaded = span.end();
        report({ name: `  (loaded ${big.toLocaleString('en-US')} jobs with enqueueBatch of 1,000)`, value: big / loaded.wall, cpuValue: big / loaded.daemonCpu, unit: 'jobs/s' });
        const rss = rssMegabytes(daemon.pid);
        report({ name: `daemon RSS with ${big.toLocaleString('en-US')} jobs`, value: rss, unit: 'MB', target: '< 150', met: rss < 150 });
      } finally {
        await daemon.stop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

// The scenarios, shared by this benchmark and `bench compare` (compare.ts), so that both measure
// the same thing the same way. Each takes a freshly started daemon.

/** Pipelined single `jobs.enqueue` on one connection (256 in flight), after 2,000 to warm up. */
export async function pipelinedEnqueue(client: BenchClient, daemon: BenchDaemon, jobs: number): Promise<Span> {
  await client({ role: 'enqueue', socket: daemon.socketPath, n: 2000, window: 64, queue: 'warmup' });
  const span = measure(daemon.pid);
  await client({ role: 'enqueue', socket: daemon.socketPath, n: jobs, window: 256, queue: 'single' });
  return span.end();
}

/**
 * End to end: a producer (`jobs.enqueueBatch` of 500, 4 in flight) and a remote worker (claims
 * of 200, completes sent as one batch) at the same time, until the worker has completed them all.
 */
export async function endToEnd(client: BenchClient, daemon: BenchDaemon, jobs: number): Promise<Span> {
  const span = measure(daemon.pid);
  await Promise.all([
    client({ role: 'enqueue', socket: daemon.socketPath, n: jobs, window: 4, batch: 500, queue: 'e2e' }),
    client({ role: 'worker', socket: daemon.socketPath, n: jobs, max: 200, queue: 'e2e', workerId: 'bench-worker' }),
  ]);
  return span.end();
}

/** The queue filled first (as in `endToEnd`), then the same remote worker works through the backlog alone. */
export async function fillThenDrain(client: BenchClient, daemon: BenchDaemon, jobs: number): Promise<{ filled: Span; drained: Span }> {
  let span = measure(daemon.pid);
  await client({ role: 'enqueue', socket: daemon.socketPath, n: jobs, window: 4, batch: 500, queue: 'backlog' });
  const filled = span.end();
  span = measure(daemon.pid);
  await client({ role: 'worker', socket: daemon.socketPath, n: jobs, max: 200, queue: 'backlog', workerId: 'bench-worker' });
  return { filled, drained: span.end() };
}

/**
 * How many jobs each contender of the BullMQ and PostgreSQL parts drains first, unmeasured
 * (SPOOL_BENCH_WARMUP, default 5,000; 0 measures cold daemons): a daemon in service is past V8's
 * first, unoptimised runs of its code and its compiling.
 */
export function benchWarmup(): number {
  return jobCount('SPOOL_BENCH_WARMUP', 5_000);
}

/**
 * Whether the drains' workers send their next claim behind each completion without waiting for
 * its answer (SPOOL_BENCH_PIPELINED, default on; 0 waits), as Spool's worker library claims for
 * the slots its finished handlers free while their completions are on their way.
 */
export function benchPipelined(): boolean {
  return process.env['SPOOL_BENCH_PIPELINED'] !== '0';
}

/** A whole number of jobs from an environment variable, or `fallback` when it is not set. */
function jobCount(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 1_000_000) throw new Error(`${name}: expected a whole number of jobs from 0 to 1,000,000, got '${text}'.`);
  return Number(text);
}

/**
 * How many jobs a latency run sends through first, unmeasured (SPOOL_BENCH_LATENCY_WARMUP,
 * default 3,000: 15 s at one job every 5 ms). A daemon just started spends its first seconds in
 * V8's unoptimised code and compiling the optimised code on the other core: the p99 of its first
 * 1,000 samples was twice that of samples 3,000–4,000 of the same run (BENCHMARKS.md, "Wake
 * latency"). A daemon in service has long been past that, so the figure is taken after it; the
 * warm-up's own latencies are reported beside it, as the figure of a daemon just started.
 */
export function latencyWarmup(): number {
  return jobCount('SPOOL_BENCH_LATENCY_WARMUP', 3_000);
}

/** A latency run's figures (ms), of the measured samples and, apart, of the warm-up's. */
export interface ClaimLatency {
  p50: number;
  p99: number;
  /** The measured samples, sorted. */
  samples: number[];
  /** The warm-up's samples (a daemon just started), in the order taken; empty without a warm-up. */
  warmup: number[];
  /** The whole run, warm-up included. */
  span: Span;
}

/**
 * Latency from an enqueue to a waiting worker's claim: a producer enqueues one job every 5 ms,
 * a worker waits in `jobs.claim` for each, first `warmup` jobs unmeasured, then `samples`.
 * Milliseconds.
 */
export async function claimLatency(client: BenchClient, daemon: BenchDaemon, samples: number, warmup: number = latencyWarmup()): Promise<ClaimLatency> {
  const span = measure(daemon.pid);
  const [worker] = await Promise.all([
    client({ role: 'latency-worker', socket: daemon.socketPath, n: samples, queue: 'latency' }),
    client({ role: 'latency-producer', socket: daemon.socketPath, n: samples, warmup, queue: 'latency', gapMs: 5 }),
  ]);
  const measured = span.end();
  const sorted = latencySamples(worker).sort((a, b) => a - b);
  const warm = (worker as { warmup?: number[] }).warmup ?? [];
  return { p50: percentileOf(sorted, 0.5), p99: percentileOf(sorted, 0.99), span: measured, samples: sorted, warmup: warm };
}

/**
 * Unmeasured work that warms daemons up: `jobs` enqueued into `queue` through `enqueueOn` (a
 * socket), then drained by one drain client per entry of `workers` (its socket and claim
 * options). Nothing when `jobs` is 0.
 */
export async function drainUnmeasured(client: BenchClient, enqueueOn: string, queue: string, jobs: number, workers: readonly Record<string, unknown>[]): Promise<void> {
  if (jobs === 0) return;
  await client({ role: 'enqueue', socket: enqueueOn, n: jobs, window: 4, batch: 500, queue });
  await Promise.all(workers.map((worker, i) => client({ role: 'drain', queue, workerId: `warm-up-${i}`, ...worker })));
}

/** The q-quantile of sorted samples (NaN for none). */
export function percentileOf(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** Writes the client program into `dir`; returns its path. */
export function writeClientScript(dir: string): string {
  const script = path.join(dir, 'client.js');
  fs.writeFileSync(script, CLIENT_SOURCE);
  return script;
}

/**
 * Every daemon and client process a benchmark has started and not yet seen exit, so that an
 * interrupted run (Ctrl-C) can end them: see `killBenchProcesses`.
 */
const liveProcesses = new Set<ChildProcess>();

/** Adds a process to those `killBenchProcesses` ends (until it exits). */
export function trackBenchProcess(child: ChildProcess): void {
  liveProcesses.add(child);
  child.once('exit', () => liveProcesses.delete(child));
}

/** Kills (SIGKILL) every daemon, client or build process still running; for an interrupted run. */
export function killBenchProcesses(): void {
  for (const child of liveProcesses) child.kill('SIGKILL');
  liveProcesses.clear();
}

/** What `launchDaemon` starts: which build's daemon, in which folder, under which name. */
export interface LaunchOptions {
  /** A build's `dist/daemon.js`. */
  daemonScript: string;
  /** The socket and database go here, named after `name`. */
  dir: string;
  name: string;
  /** Daemon flags beyond `--socket` and `--db`. */
  extraArgs?: string[];
}

/** Starts a daemon on a socket and database of its own and waits until it answers `daemon.status`. */
export async function launchDaemon({ daemonScript, dir, name, extraArgs = [] }: LaunchOptions): Promise<BenchDaemon> {
  const socketPath = path.join(dir, `${name}.sock`);
  // Started the way `spool daemon --detach` starts it (startDetached), node flags included.
  // SPOOL_BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of each daemon there when it stops.
  const profile = process.env['SPOOL_BENCH_CPU_PROFILE'];
  const profileFlags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...profileFlags, daemonScript, '--socket', socketPath, '--db', path.join(dir, `${name}.db`), ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  trackBenchProcess(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The daemon exited during start-up:\n${stderr}`);
    if (fs.existsSync(socketPath) && (await statusOverSocket(socketPath)) !== null) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The daemon did not answer within 30 s:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    socketPath,
    pid: child.pid ?? -1,
    stop: async () => {
      // A daemon ended by a signal has a signalCode and no exitCode; either way it will send no 'exit' again.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      // A daemon that does not finish its graceful shutdown would otherwise hold the benchmark forever.
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Runs the client program written by `writeClientScript`; see `BenchClient`. */
export function runClient(script: string, config: Record<string, unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    trackBenchProcess(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench client (${String(config.role)}) exited with ${code}: ${err}`));
      try {
        resolve(JSON.parse(out));
      } catch (error) {
        reject(new Error(`bench client (${String(config.role)}) printed no result: ${out}${err} (${String(error)})`));
      }
    });
  });
}

/** What one measured stretch of a benchmark took. */
export interface Span {
  /** Seconds by the wall clock. */
  wall: number;
  /** Seconds of CPU time (user + system) the daemon process used. */
  daemonCpu: number;
}

/**
 * Waits until the daemon has used no more than one clock tick (10 ms) of CPU over 100 ms, or 5 s
 * have passed: its start-up continues after it first answers (the checkpointer thread loads its
 * own bundle and SQLite), and a measurement started at once would count that too.
 */
export async function settled(pid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  let before = cpuTicks(pid);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpuTicks(pid);
    if (now - before <= 1) return;
    before = now;
  }
}

/** Starts measuring; `end()` returns the wall-clock and daemon CPU seconds since. */
export function measure(pid: number): { end(): Span } {
  const wall = performance.now();
  const ticks = cpuTicks(pid);
  return {
    end: () => ({ wall: (performance.now() - wall) / 1000, daemonCpu: Math.max(0.01, (cpuTicks(pid) - ticks) / CLOCK_TICKS) }),
  };
}

/**
 * A process's CPU time so far over all its threads, in nanoseconds (/proc/<pid>/task/<tid>/schedstat,
 * which the scheduler counts exactly: /proc/<pid>/stat's clock ticks charge a whole 10 ms tick to
 * whatever runs when it fires, too coarse for a process that wakes for a millisecond at a time).
 * A thread that ended since is not counted.
 */
export function cpuNanoseconds(pid: number): number {
  let total = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return total;
}

/** CPU time `ns` over `seconds` of wall time, as a percentage of one core. */
function cpuShare(ns: number, seconds: number): number {
  return (ns / 1e9 / seconds) * 100;
}

/** USER_HZ: the unit of /proc/<pid>/stat's times; 100 on every Linux build Node supports. */
export const CLOCK_TICKS = 100;

/** The latencies a latency-worker client printed, in ms. */
function latencySamples(result: unknown): number[] {
  const samples: unknown = typeof result === 'object' && result !== null && 'samples' in result ? result.samples : null;
  if (!Array.isArray(samples)) throw new Error(`the latency worker printed no samples: ${JSON.stringify(result)}`);
  return samples.filter((n): n is number => typeof n === 'number');
}

/** A process's own CPU time so far (user and system), in clock ticks (CLOCK_TICKS a second). */
export function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export function rssMegabytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/**
 * The daemon's answer to `daemon.status` at the socket, or null when none comes within
 * `timeoutMs`. Raw JSON-RPC rather than the client library, so that any build's daemon that speaks
 * the protocol can be benchmarked (`bench compare` starts older builds too).
 */
export function statusOverSocket(socketPath: string, timeoutMs = 2000): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    let buffer = '';
    const finish = (status: Record<string, unknown> | null): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.on('connect', () => socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'daemon.status' })}\n`));
    socket.on('data', (data) => {
      buffer += data.toString('utf8');
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      let answer: unknown;
      try {
        answer = JSON.parse(buffer.slice(0, end));
      } catch {
        return finish(null);
      }
      const result: unknown = typeof answer === 'object' && answer !== null && 'result' in answer ? answer.result : null;
      finish(typeof result === 'object' && result !== null ? { ...result } : null);
    });
    socket.on('error', () => finish(null));
  });
}
