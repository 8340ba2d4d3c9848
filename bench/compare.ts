/**
 * `bench compare`: two builds' daemons measured in one run, interleaved, so that the machine's
 * drift (±10–15 % between runs minutes apart on a shared VM) hits both alike. In each block, every
 * scenario runs on old and on new one after the other (the order alternating block by block,
 * see `blockOrder`), each time on a freshly started daemon with its own socket and database, with
 * the same client code (this checkout's): only the daemon differs. The scenarios are the daemon
 * benchmark's own (daemon.ts). Every process, socket and temporary folder is removed at the end,
 * also when the run is interrupted (Ctrl-C, SIGTERM).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError, type CompareOptions } from './compareArgs';
import { prepareBuild, type Build } from './compareBuilds';
import { blockOrder, compareFigure, comparisonTable, type FigureSamples, type FigureSpec, type Side } from './compareStats';
import {
  claimLatency,
  endToEnd,
  fillThenDrain,
  killBenchProcesses,
  launchDaemon,
  pipelinedEnqueue,
  runClient,
  settled,
  statusOverSocket,
  writeClientScript,
  type BenchClient,
  type BenchDaemon,
  type Span,
} from './daemon';

/** The figures, in the order the table prints them. */
const FIGURES = {
  enqueue: { name: 'jobs.enqueue pipelined, 1 connection', unit: 'jobs/s', higherIsBetter: true },
  enqueueCpu: { name: '— daemon CPU per job', unit: 'µs/job', higherIsBetter: false },
  endToEnd: { name: 'end to end: producer and worker at once', unit: 'jobs/s', higherIsBetter: true },
  endToEndCpu: { name: '— daemon CPU per job', unit: 'µs/job', higherIsBetter: false },
  fill: { name: 'fill a queue: enqueueBatch of 500', unit: 'jobs/s', higherIsBetter: true },
  fillCpu: { name: '— daemon CPU per job', unit: 'µs/job', higherIsBetter: false },
  drain: { name: 'then drain it: one worker, claims of 200', unit: 'jobs/s', higherIsBetter: true },
  drainCpu: { name: '— daemon CPU per job', unit: 'µs/job', higherIsBetter: false },
  latencyP50: { name: 'enqueue → waiting claim latency p50', unit: 'ms', higherIsBetter: false },
  latencyP99: { name: 'enqueue → waiting claim latency p99', unit: 'ms', higherIsBetter: false },
  latencyCpu: { name: 'latency run: daemon CPU per job', unit: 'µs/job', higherIsBetter: false },
} satisfies Record<string, FigureSpec>;

type FigureKey = keyof typeof FIGURES;

const FIGURE_KEYS = Object.keys(FIGURES) as FigureKey[];

/** One scenario: runs on a fresh daemon and gives its figures' values. */
interface Scenario {
  name: string;
  run(client: BenchClient, daemon: BenchDaemon, options: CompareOptions): Promise<Partial<Record<FigureKey, number>>>;
}

/** Jobs per second by the wall clock, and the daemon's CPU microseconds per job. */
function rateAndCost(jobs: number, span: Span): [number, number] {
  return [jobs / span.wall, (span.daemonCpu / jobs) * 1e6];
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'enqueue',
    run: async (client, daemon, { jobs }) => {
      const [enqueue, enqueueCpu] = rateAndCost(jobs, await pipelinedEnqueue(client, daemon, jobs));
      return { enqueue, enqueueCpu };
    },
  },
  {
    name: 'end to end',
    run: async (client, daemon, { jobs }) => {
      const [endToEndRate, endToEndCpu] = rateAndCost(jobs, await endToEnd(client, daemon, jobs));
      return { endToEnd: endToEndRate, endToEndCpu };
    },
  },
  {
    name: 'fill, drain',
    run: async (client, daemon, { jobs }) => {
      const { filled, drained } = await fillThenDrain(client, daemon, jobs);
      const [fill, fillCpu] = rateAndCost(jobs, filled);
      const [drain, drainCpu] = rateAndCost(jobs, drained);
      return { fill, fillCpu, drain, drainCpu };
    },
  },
  {
    name: 'latency',
    run: async (client, daemon, { samples }) => {
      const { p50, p99, span, warmup } = await claimLatency(client, daemon, samples);
      return { latencyP50: p50, latencyP99: p99, latencyCpu: (span.daemonCpu / (samples + warmup.length)) * 1e6 };
    },
  },
];

/** Runs the comparison and prints its setup, its progress and the table. */
export async function runCompare(options: CompareOptions, log: (line: string) => void = (line) => console.log(line)): Promise<void> {
  if (process.platform !== 'linux') throw new UsageError('bench compare reads the daemon\'s CPU time from /proc/<pid>/stat: Linux only.');
  // dist/bench.js (or bench/compare.ts under tsx): the checkout is one folder up.
  const repoRoot = path.resolve(__dirname, '..');
  const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-bench-compare-'));
  const cleanUp = (): void => {
    killBenchProcesses();
    fs.rmSync(workRoot, { recursive: true, force: true });
  };
  // Ctrl-C reaches this process (and, from a terminal, its children); whatever is running, end
  // every process it started and remove the temporary folder (sockets, databases, builds) before
  // exiting with the signal's conventional status.
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanUp();
    console.error(`\nbench compare: interrupted (${signal}); its daemons, clients and temporary folder ${workRoot} are gone.`);
    process.exit(128 + (os.constants.signals[signal] ?? 2));
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.once(signal, onSignal);
  try {
    const builds: Record<Side, Build> = {
      old: await prepareBuild('old', options.old, repoRoot, workRoot, log),
      new: await prepareBuild('new', options.new ?? repoRoot, repoRoot, workRoot, log),
    };
    await measureBuilds(builds, options, workRoot, log);
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    cleanUp();
  }
}

async function measureBuilds(builds: Record<Side, Build>, options: CompareOptions, workRoot: string, log: (line: string) => void): Promise<void> {
  const clientScript = writeClientScript(workRoot);
  const client: BenchClient = (config) => runClient(clientScript, config);
  const samples = new Map<FigureKey, FigureSamples>(FIGURE_KEYS.map((key) => [key, { spec: FIGURES[key], old: [], new: [] }]));
  const valuesOf = (key: FigureKey, side: Side): number[] => samples.get(key)?.[side] ?? [];
  const versions: Partial<Record<Side, string>> = {};
  const started = Date.now();
  const loadBefore = os.loadavg();

  log(
    `Comparing two daemon builds, interleaved: ${options.blocks} blocks (A B B A …), ${options.jobs.toLocaleString('en-US')} jobs per rate, ` +
      `${options.samples.toLocaleString('en-US')} latency samples, per build and block.`,
  );
  let run = 0;
  for (let block = 0; block < options.blocks; block++) {
    const order = blockOrder(block);
    const blockStarted = Date.now();
    for (const scenario of SCENARIOS) {
      for (const side of order) {
        // A folder per daemon, removed once it has stopped: a run of many blocks would otherwise
        // keep every database it filled.
        const dir = path.join(workRoot, `run-${run++}`);
        fs.mkdirSync(dir);
        const daemon = await launchDaemon({ daemonScript: builds[side].daemonScript, dir, name: side });
        try {
          versions[side] ??= describeStatus(await statusOverSocket(daemon.socketPath));
          await settled(daemon.pid);
          const values = await scenario.run(client, daemon, options);
          for (const key of FIGURE_KEYS) {
            const value = values[key];
            if (value !== undefined) valuesOf(key, side).push(value);
          }
        } finally {
          await daemon.stop();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    const last = (key: FigureKey, side: Side): string => Math.round(valuesOf(key, side).at(-1) ?? NaN).toLocaleString('en-US');
    log(
      `  block ${block + 1}/${options.blocks} (${order.join(' first, then ')}), ${((Date.now() - blockStarted) / 1000).toFixed(0)} s: ` +
        `enqueue ${last('enqueue', 'old')} / ${last('enqueue', 'new')}, end to end ${last('endToEnd', 'old')} / ${last('endToEnd', 'new')}, ` +
        `drain ${last('drain', 'old')} / ${last('drain', 'new')} jobs/s (old / new)`,
    );
  }

  const cpus = os.cpus();
  log('');
  for (const side of ['old', 'new'] as const) {
    log(`${side}: ${builds[side].description}; ${versions[side] ?? 'version unknown'}; ${builds[side].sqlite}`);
  }
  log(`Node ${process.version} for both daemons and the clients; ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${os.platform()} ${os.release()}`);
  log(
    `${((Date.now() - started) / 1000).toFixed(0)} s; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ` +
      `${os.loadavg().map((l) => l.toFixed(2)).join(' ')} after (other work on the machine slows both builds alike; the per-block range shows how much).`,
  );
  log('');
  const compared = [...samples.values()].map(compareFigure);
  for (const line of comparisonTable(compared)) log(line);
  const worse = compared.filter((f) => f.worsePercent > 5);
  log('');
  log(`Figures where new is more than 5 % worse than old (medians): ${worse.length === 0 ? 'none' : worse.map((f) => figureLabel(f.spec)).join('; ')}.`);
}

/** "Spool 0.4.0, protocol 1" from a daemon's `daemon.status` answer. */
function describeStatus(status: Record<string, unknown> | null): string {
  if (status === null) return 'version unknown (no daemon.status answer)';
  return `Spool ${String(status['version'])}, protocol ${String(status['protocolVersion'])}`;
}

/** A CPU row's name alone ("— daemon CPU per job") does not say which figure it belongs to. */
function figureLabel(spec: FigureSpec): string {
  const index = FIGURE_KEYS.findIndex((key) => FIGURES[key] === spec);
  if (!spec.name.startsWith('—') || index <= 0) return spec.name;
  return `${FIGURES[FIGURE_KEYS[index - 1]].name} ${spec.name}`;
}
