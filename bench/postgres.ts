/**
 * `SPOOL_BENCH_PART=postgres`: Spool on PostgreSQL beside graphile-worker and pg-boss, on one
 * throwaway PostgreSQL server in one run, with durable commits (fsync and synchronous_commit on).
 * Each scenario gets a fresh database; the rounds are interleaved (each round runs every
 * scenario, in a rotating order) so that the machine's moods fall on all of them alike; the
 * figures are the medians over the rounds, with their range.
 *
 * The same work for each: 20,000 no-op jobs enqueued in bulk, then drained.
 * - Spool, one daemon: a real daemon process (`--store`), filled with `jobs.enqueueBatch` of 500,
 *   drained by three worker processes, each claiming 200 at a time and completing them in one batch.
 * - Spool, three daemons on the same database: the same fill through one of them, then the same
 *   three workers, one on each daemon; the figure is the total.
 * - graphile-worker: `addJobs` in batches of 500, drained by its runner (concurrency 32).
 * - pg-boss: `insert` in batches of 500, drained by four loops of `fetch` (200) and `complete`.
 * - Latency: a worker long-polling on daemon B, one job enqueued on daemon A every 10 ms: from
 *   the enqueue call to the claim's answer, through LISTEN/NOTIFY; alone, and again while two
 *   more workers drain another queue (latency.ts).
 * graphile-worker and pg-boss run inside this process, as an application embeds them.
 * For each drain the CPU time it cost is measured too, per job: the database server's (the
 * postmaster and every backend, from /proc), the clients' (this process and the worker processes
 * it ran) and, for Spool, its daemons' (all of them), so that three daemons compare with one, and
 * Spool with its peers, by work as well as by wall-clock rate.
 * SPOOL_BENCH_PG_STATEMENTS=1 loads pg_stat_statements in the server and prints, after each drain,
 * its statements per job and the costliest ones.
 *
 * Warm contenders, as in the BullMQ part: every Spool daemon first drains WARMUP jobs of another
 * queue, unmeasured, with the same workers; graphile-worker and pg-boss, which run in this
 * process and so stay warm from one round to the next, each drain once unmeasured before the
 * first round. Without it every Spool daemon (fresh in each round) spent part of its drain in
 * V8's unoptimised code and compiling, while the peers did so only in their first round; three
 * daemons paid it three times. SPOOL_BENCH_WARMUP=N sets the jobs (default 5,000); 0 measures
 * cold daemons and peers.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { PgServer, pgBin } from '../scripts/pgServer';
import { VERSION } from '../shared/protocol/version';
import { CLOCK_TICKS, benchPipelined, benchWarmup, cpuTicks, drainUnmeasured, killBenchProcesses, launchDaemon, runClient, writeClientScript, type BenchClient, type BenchDaemon } from './daemon';
import { crossDaemonLatency } from './latency';
import type { BenchFigure } from './figure';
import { errorMessage } from '../shared/protocol/errors';

const JOBS = 20_000;
const BATCH = 500;
/** See the top of the file. */
const WARMUP = benchWarmup();
/**
 * In the issue's shapes (SPOOL_BENCH_PG_SHAPES=1) each Spool worker sends its next claim behind
 * each completion without waiting for its answer, as Spool's worker library claims for the slots
 * its finished handlers free while their completions are on their way, and as the BullMQ part's
 * workers do. SPOOL_BENCH_PIPELINED=0 waits for each completion's answer first (pg-boss's loops
 * always do: its `work()` completes before it fetches again).
 */
const PIPELINED = benchPipelined();

interface Options {
  quick?: boolean;
  log?: (line: string) => void;
}

/** Whether PostgreSQL's server programs are here (Debian's package); the part is skipped without them. */
export function postgresAvailable(): string | null {
  try {
    pgBin();
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function packageVersion(name: string): string {
  try {
    const file = require.resolve(`${name}/package.json`);
    return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version);
  } catch {
    return 'not installed';
  }
}

async function count(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(sql);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what} after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The CPU time of the database server so far, in clock ticks: the postmaster's own and its ended
 * children's (a backend's time is added to the postmaster's when it exits), and its live
 * children's (backends, the WAL writer, the checkpointer).
 */
function serverCpuTicks(server: PgServer): number {
  const postmaster = Number(fs.readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    if (pid === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

/**
 * This process's CPU time so far and its ended children's, in clock ticks: the clients' side of a
 * drain (pg-boss and graphile-worker run here; Spool's worker processes are children that ended).
 */
function clientCpuTicks(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

/** One drain: its rate, and the CPU it cost per job (µs): the database server's, the clients' and, for Spool, its daemons'. */
interface Drain {
  rate: number;
  databaseUs: number;
  clientUs: number;
  daemonUs: number | null;
}

/**
 * One round of one scenario. `drainStarts` is called just before the drain's clock starts (with
 * SPOOL_BENCH_PG_STATEMENTS=1 it clears pg_stat_statements, so that the statements counted are
 * the drain's alone) with the daemons' pids; the drain's end is measured by `drainEnds`.
 */
type Scenario = (url: string, drainStarts: (daemons?: readonly number[]) => Promise<void>, drainEnds: (jobs: number) => Drain) => Promise<Drain>;

export async function runPostgresBench(options: Options = {}): Promise<BenchFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const missing = postgresAvailable();
  if (missing !== null) {
    log(`PostgreSQL: skipped (${missing})`);
    return [];
  }
  const rounds = options.quick ? 1 : Number(process.env['SPOOL_BENCH_ROUNDS'] ?? 3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-pg-'));
  const statements = process.env['SPOOL_BENCH_PG_STATEMENTS'] === '1';
  const settings: Record<string, string> = { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on', shared_buffers: '256MB', max_wal_size: '2GB' };
  if (statements) Object.assign(settings, { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' });
  const server = await PgServer.start(settings);
  const script = writeClientScript(dir);
  const client: BenchClient = (config) => runClient(script, config);
  const daemonScript = path.resolve(__dirname, 'daemon.js');
  const started: BenchDaemon[] = [];
  let names = 0;
  const daemonsOn = async (url: string, n: number, script = daemonScript): Promise<BenchDaemon[]> => {
    const list: BenchDaemon[] = [];
    for (let i = 0; i < n; i += 1) {
      names += 1;
      const d = await launchDaemon({ daemonScript: script, dir, name: `pg-${names}`, extraArgs: ['--store', url] });
      started.push(d);
      list.push(d);
    }
    return list;
  };
  const stopAll = async (list: BenchDaemon[]): Promise<void> => {
    await Promise.all(list.map((d) => d.stop()));
  };

  /**
   * Each daemon drains WARMUP jobs of its own queue through `workers` workers claiming `max`
   * (lanes: as the measured drain), unmeasured, before the measured work.
   */
  const warmUp = (list: readonly BenchDaemon[], workers: number, max: number, lanes?: number): Promise<unknown> =>
    Promise.all(
      list.map((d, i) =>
        drainUnmeasured(client, d.socketPath, `warm-up-${i}`, WARMUP, Array.from({ length: workers }, () => ({ socket: d.socketPath, max, ...(lanes === undefined ? {} : { lanes }) }))),
      ),
    );

  const spool = (daemons: number): Scenario => async (url, drainStarts, drainEnds) => {
    const list = await daemonsOn(url, daemons);
    try {
      // One worker per daemon in the warm-up, as in the drain with three; three with one.
      await warmUp(list, daemons === 1 ? 3 : 1, 200);
      await client({ role: 'enqueue', socket: (list[0] as BenchDaemon).socketPath, n: JOBS, window: 4, batch: BATCH, queue: 'bench' });
      await drainStarts(list.map((d) => d.pid));
      // Three workers either way: all on the one daemon, or one on each of three.
      const drained = (await Promise.all([0, 1, 2].map((i) => client({ role: 'drain', socket: (list[i % list.length] as BenchDaemon).socketPath, max: 200, queue: 'bench', workerId: `w${i}` })))) as { completed: number }[];
      const drain = drainEnds(JOBS);
      const total = drained.reduce((a, r) => a + r.completed, 0);
      if (total !== JOBS) throw new Error(`Spool drained ${total} jobs of ${JOBS}`);
      return drain;
    } finally {
      await stopAll(list);
    }
  };

  /**
   * The issue's shapes: one daemon (of `script`'s build), `consumers` worker processes of one
   * lane each, claiming `max` at a time and completing each claim in one batch (the next claim
   * sent behind it: PIPELINED).
   */
  const spoolShape = (consumers: number, max: number, script = daemonScript): Scenario => async (url, drainStarts, drainEnds) => {
    const list = await daemonsOn(url, 1, script);
    try {
      const socket = (list[0] as BenchDaemon).socketPath;
      await warmUp(list, consumers, max, 1);
      await client({ role: 'enqueue', socket, n: JOBS, window: 4, batch: BATCH, queue: 'bench' });
      await drainStarts(list.map((d) => d.pid));
      const drained = (await Promise.all(Array.from({ length: consumers }, (_, i) => client({ role: 'drain', socket, max, lanes: 1, queue: 'bench', workerId: `w${i}`, pipelined: PIPELINED })))) as { completed: number }[];
      const drain = drainEnds(JOBS);
      const total = drained.reduce((a, r) => a + r.completed, 0);
      if (total !== JOBS) throw new Error(`Spool drained ${total} jobs of ${JOBS}`);
      return drain;
    } finally {
      await stopAll(list);
    }
  };

  const graphile: Scenario = async (url, drainStarts, drainEnds) => {
    const { makeWorkerUtils, run } = await import('graphile-worker');
    const utils = await makeWorkerUtils({ connectionString: url });
    try {
      await utils.migrate();
      for (let i = 0; i < JOBS; i += BATCH) await utils.addJobs(Array.from({ length: BATCH }, () => ({ identifier: 'noop', payload: {} })));
      let done = 0;
      await drainStarts();
      const runner = await run({ connectionString: url, concurrency: 32, noHandleSignals: true, pollInterval: 1000, logger: quietGraphileLogger(), taskList: { noop: async () => void (done += 1) } });
      await until('graphile-worker to finish its jobs', async () => done >= JOBS && (await count(url, 'SELECT count(*) AS n FROM graphile_worker._private_jobs')) === 0);
      const drain = drainEnds(JOBS);
      await runner.stop();
      return drain;
    } finally {
      await utils.release();
    }
  };

  const pgBoss = (consumers: number, batchSize: number): Scenario => async (url, drainStarts, drainEnds) => {
    const { default: PgBoss } = await import('pg-boss');
    const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      await boss.createQueue('noop');
      for (let i = 0; i < JOBS; i += BATCH) await boss.insert(Array.from({ length: BATCH }, () => ({ name: 'noop', data: {} })));
      // fetch and complete in batches, four loops at once: its fastest way to drain (its work()
      // sleeps a polling interval after every batch).
      let done = 0;
      await drainStarts();
      const loop = async (): Promise<void> => {
        for (;;) {
          const jobs = await boss.fetch('noop', { batchSize });
          if (jobs.length === 0) return;
          await boss.complete('noop', jobs.map((j) => j.id));
          done += jobs.length;
        }
      };
      await Promise.all(Array.from({ length: consumers }, loop));
      const drain = drainEnds(JOBS);
      if (done !== JOBS) throw new Error(`pg-boss drained ${done} jobs of ${JOBS}`);
      return drain;
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  };

  // SPOOL_BENCH_PG_SHAPES=1: the issue's shapes instead (consumers × batch, 2 × 100 and 4 × 200),
  // Spool beside pg-boss, and with SPOOL_BENCH_BASELINE=<checkout> that build's daemon too.
  const shapes = process.env['SPOOL_BENCH_PG_SHAPES'] === '1';
  const baseline = process.env['SPOOL_BENCH_BASELINE'];
  const scenarios: [string, Scenario][] = shapes
    ? [
        ...([[2, 100], [4, 200]] as const).flatMap(([n, max]): [string, Scenario][] => [
          [`Spool ${n} × ${max}`, spoolShape(n, max)],
          ...(baseline ? [[`baseline ${n} × ${max}`, spoolShape(n, max, path.resolve(baseline, 'dist', 'daemon.js'))] as [string, Scenario]] : []),
          [`pg-boss ${n} × ${max}`, pgBoss(n, max)],
        ]),
      ]
    : [
        ['Spool, one daemon', spool(1)],
        ['Spool, three daemons', spool(3)],
        ['graphile-worker', graphile],
        ['pg-boss', pgBoss(4, 200)],
      ];
  const rates = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  const databaseCpu = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  const daemonCpu = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  const clientCpu = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  const latencies: number[][] = [];
  /** The same, taken while two more workers drain another queue (see latency.ts). */
  const busyLatencies: number[][] = [];
  try {
    const version = (await server.admin('SHOW server_version')).rows[0] as { server_version: string };
    log(`PostgreSQL ${version.server_version} (${Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(', ')}), on loopback, this machine`);
    log(`Spool ${VERSION}, graphile-worker ${packageVersion('graphile-worker')}, pg-boss ${packageVersion('pg-boss')}, Node ${process.version}`);
    log(`${JOBS.toLocaleString('en-US')} no-op jobs enqueued in batches of ${BATCH}, then drained; ${rounds} interleaved round(s)\n`);
    if (shapes) log(`Spool's workers ${PIPELINED ? 'send the next claim behind each completion' : 'wait for each completion before claiming again'} (SPOOL_BENCH_PIPELINED); pg-boss's loops complete, then fetch\n`);
    if (statements) await server.admin('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // The peers run in this process: one unmeasured drain each leaves them as warm in round 1 as
    // in the later rounds (Spool's daemons warm up inside their scenario).
    const peers = scenarios.filter(([name]) => name.startsWith('pg-boss') || name === 'graphile-worker');
    if (WARMUP > 0) {
      log(`Each Spool daemon first drains ${WARMUP.toLocaleString('en-US')} jobs of another queue unmeasured; ${peers.map(([name]) => name).join(', ')} each drain once unmeasured before the first round (SPOOL_BENCH_WARMUP)\n`);
      for (const [, scenario] of peers) await scenario(await server.database(), async () => undefined, (jobs) => ({ rate: jobs, databaseUs: 0, clientUs: 0, daemonUs: null }));
    } else log('No warm-up (SPOOL_BENCH_WARMUP=0): each Spool daemon starts cold, and so do the peers in the first round\n');
    let drainStart = { at: 0, database: 0, client: 0, daemons: [] as readonly number[], daemonTicks: 0 };
    const daemonTicks = (pids: readonly number[]): number => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
    const drainStarts = async (daemons: readonly number[] = []): Promise<void> => {
      if (statements) await server.admin('SELECT pg_stat_statements_reset()');
      drainStart = { at: performance.now(), database: serverCpuTicks(server), client: clientCpuTicks(), daemons, daemonTicks: daemonTicks(daemons) };
    };
    const perJobUs = (ticks: number, jobs: number): number => ((ticks / CLOCK_TICKS) * 1e6) / jobs;
    const drainEnds = (jobs: number): Drain => ({
      rate: (jobs / (performance.now() - drainStart.at)) * 1000,
      databaseUs: perJobUs(serverCpuTicks(server) - drainStart.database, jobs),
      clientUs: perJobUs(clientCpuTicks() - drainStart.client, jobs),
      daemonUs: drainStart.daemons.length === 0 ? null : perJobUs(daemonTicks(drainStart.daemons) - drainStart.daemonTicks, jobs),
    });
    for (let round = 0; round < rounds; round += 1) {
      for (let i = 0; i < scenarios.length; i += 1) {
        const [name, scenario] = scenarios[(i + round) % scenarios.length] as [string, Scenario];
        const url = await server.database();
        const drain = await scenario(url, drainStarts, drainEnds);
        rates.get(name)?.push(drain.rate);
        databaseCpu.get(name)?.push(drain.databaseUs);
        clientCpu.get(name)?.push(drain.clientUs);
        if (drain.daemonUs !== null) daemonCpu.get(name)?.push(drain.daemonUs);
        const cpu = `CPU µs/job: database ${Math.round(drain.databaseUs)}${drain.daemonUs === null ? '' : `, daemons ${Math.round(drain.daemonUs)}`}, clients ${Math.round(drain.clientUs)}`;
        log(`  round ${round + 1}: ${name.padEnd(22)} ${Math.round(drain.rate).toLocaleString('en-US')} jobs/s (${cpu})`);
        if (statements) log(await drainStatements(server, url));
      }
      if (!shapes) {
        latencies.push((await crossDaemonLatency(await server.database(), daemonsOn, stopAll, client, options.quick ? 100 : 300)).samples);
        busyLatencies.push((await crossDaemonLatency(await server.database(), daemonsOn, stopAll, client, options.quick ? 100 : 300, { underDrain: true })).samples);
      }
    }
  } finally {
    await stopAll(started);
    killBenchProcesses();
    server.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const figures: BenchFigure[] = [];
  log('');
  const cpuOf = (name: string): string => {
    const database = databaseCpu.get(name) ?? [];
    const daemon = daemonCpu.get(name) ?? [];
    const clients = clientCpu.get(name) ?? [];
    return `CPU per job: database ${Math.round(median(database))} µs${daemon.length === 0 ? '' : `, daemons ${Math.round(median(daemon))} µs`}, clients ${Math.round(median(clients))} µs`;
  };
  if (shapes) return shapeFigures(rates, cpuOf, log);
  const graphileRate = median(rates.get('graphile-worker') ?? []);
  for (const [name] of scenarios) {
    const list = rates.get(name) ?? [];
    const m = median(list);
    const range = `${Math.round(Math.min(...list)).toLocaleString('en-US')}–${Math.round(Math.max(...list)).toLocaleString('en-US')}`;
    log(`  ${name.padEnd(22)} median ${Math.round(m).toLocaleString('en-US')} jobs/s (range ${range}), ${(m / graphileRate).toFixed(1)}× graphile-worker; ${cpuOf(name)}`);
  }
  const one = median(rates.get('Spool, one daemon') ?? []);
  const three = median(rates.get('Spool, three daemons') ?? []);
  figures.push({ name: 'PostgreSQL drain, one daemon', value: Math.round(one), unit: 'jobs/s', target: '>= 3000', met: one >= 3000 });
  figures.push({ name: 'PostgreSQL drain vs graphile-worker', value: Number((one / graphileRate).toFixed(1)), unit: '×', target: '>= 5', met: one / graphileRate >= 5 });
  figures.push({ name: 'PostgreSQL drain, three daemons vs one', value: Number((three / one).toFixed(2)), unit: '×', target: '>= 1', met: three >= one });
  for (const [when, list] of [['alone', latencies], ['under a drain', busyLatencies]] as const) {
    const all = list.flat().sort((a, b) => a - b);
    const p = (q: number): number => all[Math.min(all.length - 1, Math.floor(q * all.length))] ?? NaN;
    log(`  enqueue on daemon A → claim on daemon B (LISTEN/NOTIFY), ${when}: p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms (${all.length} samples)`);
    figures.push({ name: `PostgreSQL enqueue-to-claim p99 across daemons, ${when}`, value: Number(p(0.99).toFixed(1)), unit: 'ms', target: '< 20', met: p(0.99) < 20 });
  }
  for (const f of figures) log(`  ${f.met ? 'met   ' : 'MISSED'} ${f.name}: ${f.value} ${f.unit} (target ${f.target})`);
  return figures;
}

/** The shapes' medians with ranges, and Spool's ratio to pg-boss (and to the baseline) per shape. */
function shapeFigures(rates: Map<string, number[]>, cpuOf: (name: string) => string, log: (line: string) => void): BenchFigure[] {
  const summary = (list: number[]): string =>
    `median ${Math.round(median(list)).toLocaleString('en-US')} jobs/s (range ${Math.round(Math.min(...list)).toLocaleString('en-US')}–${Math.round(Math.max(...list)).toLocaleString('en-US')})`;
  for (const [name, list] of rates) log(`  ${name.padEnd(22)} ${summary(list)}; ${cpuOf(name)}`);
  const figures: BenchFigure[] = [];
  for (const shape of ['2 × 100', '4 × 200']) {
    const spool = median(rates.get(`Spool ${shape}`) ?? []);
    const boss = median(rates.get(`pg-boss ${shape}`) ?? []);
    const base = rates.get(`baseline ${shape}`);
    if (base) log(`  ${shape}: this build ${(spool / median(base)).toFixed(2)}× the baseline`);
    figures.push({ name: `PostgreSQL drain ${shape} vs pg-boss`, value: Number((spool / boss).toFixed(2)), unit: '×', target: '>= 1.5', met: spool / boss >= 1.5 });
  }
  for (const f of figures) log(`  ${f.met ? 'met   ' : 'MISSED'} ${f.name}: ${f.value} ${f.unit} (target ${f.target})`);
  return figures;
}

/**
 * The drain's statements in `url`'s database, from pg_stat_statements (cleared when the drain
 * started; nested statements, such as those of functions and triggers, included): the total per
 * job, and the top ones by total execution time with their calls per job. Outside a pipeline each
 * top-level statement is one round trip. Execution time is the server's (COMMIT's includes the WAL flush).
 */
async function drainStatements(server: PgServer, url: string): Promise<string> {
  const database = new URL(url).pathname.slice(1);
  const { rows } = await server.admin(
    `SELECT s.query, s.toplevel, s.calls::float8 AS calls, s.total_exec_time AS ms, s.rows::float8 AS rows
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = $1 ORDER BY s.total_exec_time DESC`,
    [database],
  );
  const list = rows as { query: string; toplevel: boolean; calls: number; ms: number; rows: number }[];
  const top = list.filter((r) => r.toplevel);
  const calls = top.reduce((a, r) => a + r.calls, 0);
  const ms = top.reduce((a, r) => a + r.ms, 0);
  const lines = [`      top-level statements: ${(calls / JOBS).toFixed(3)} per job, ${((ms * 1000) / JOBS).toFixed(1)} µs server time per job; by total time:`];
  for (const r of list.slice(0, 10)) {
    const text = r.query.replace(/\s+/g, ' ').slice(0, 110);
    lines.push(`      ${((r.ms / Math.max(ms, 1e-9)) * 100).toFixed(0).padStart(4)} % ${(r.calls / JOBS).toFixed(3).padStart(7)}/job ${(r.rows / Math.max(r.calls, 1)).toFixed(0).padStart(4)} rows/call ${r.toplevel ? '' : '(nested) '}${text}`);
  }
  return lines.join('\n');
}

/** graphile-worker logs every job at info level; the benchmark wants its own lines only. */
function quietGraphileLogger(): import('graphile-worker').Logger {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Logger } = require('graphile-worker') as typeof import('graphile-worker');
  return new Logger(() => (level: string, message: string) => {
    if (level === 'error') console.error(`graphile-worker: ${message}`);
  });
}
