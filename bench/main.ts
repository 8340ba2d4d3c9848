/**
 * `npm run bench`: prints the versions measured, then the engine benchmark (in-process) and the
 * daemon benchmark (over the socket), then the language server's. SPOOL_BENCH_QUICK=1 makes a fast,
 * smaller run; SPOOL_BENCH_PART=engine, =daemon, =apply, =lsp, =dependencies, =groups, =postgres, =bullmq, =shell, =memory, =latency, =history, =ageing, =editor or =dashboard runs only that part.
 *
 * `npm run bench -- compare --old <dir-or-ref> …` compares two builds' daemons instead, in one
 * interleaved run (compare.ts); `npm run bench -- --help` says how.
 */
import { runGroupsBench } from './groups';
import { runHistoryBench } from './history';
import { runAgeingBench } from './ageing';
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { runApplyBench } from './apply';
import { runBullmqBench } from './bullmq';
import { runCompare } from './compare';
import { COMPARE_USAGE, parseCompareArgs, UsageError } from './compareArgs';
import { percentileOf, runDaemonBench } from './daemon';
import { runDependenciesBench } from './dependencies';
import { runEngineBench, type BenchFigure } from './engine';
import { runLatencyBench } from './latency';
import { runLspBench } from './lsp';
import { runMemoryBench } from './memory';
import { runPostgresBench } from './postgres';
import { runShellBench } from './shell';

const USAGE = `Spool's benchmarks.

npm run bench                 (or node dist/bench.js, once built)
  The engine in-process, then the daemon over its socket; every figure against its target.
  SPOOL_BENCH_QUICK=1         a smaller, faster run
  SPOOL_BENCH_PART=engine     only the engine (=daemon: only the daemon, SPOOL_BENCH_DAEMON=<checkout> that build's; =apply: only spool apply; =lsp: only the language server;
                              =dependencies: job graphs on SQLite and PostgreSQL, in-process;
                              =groups: claims in a queue with 10,000 groups against the same jobs without groups,
                                SQLite and PostgreSQL, in-process (SPOOL_BENCH_ROUNDS=N sets the rounds, default 5;
                                SPOOL_BENCH_STORE=sqlite or =postgres measures one store);
                              =postgres: Spool on PostgreSQL beside graphile-worker and pg-boss, on a throwaway server;
                              =bullmq: Spool on SQLite beside BullMQ, on a throwaway redis-server (skipped without one);
                                in both, every contender first drains SPOOL_BENCH_WARMUP=N jobs unmeasured (default 5,000);
                                SPOOL_BENCH_BASELINE=<checkout> adds that build's daemon to the same rounds,
                                SPOOL_BENCH_ROUNDS=N sets the rounds (default 5);
                              =shell: \`true\` shell jobs run by the built-in executors, and enqueue → command start;
                              =memory: the daemon's memory with 1,000,000 waiting jobs and while they drain;
                              =latency: enqueue → waiting claim on SQLite, and across two daemons on PostgreSQL alone and
                                under a drain; SPOOL_BENCH_BASELINE=<checkout> measures that build too, in turn
                                (SPOOL_BENCH_ROUNDS=N, default 4; SPOOL_BENCH_LATENCY_STORES=sqlite: SQLite only;
                                SPOOL_BENCH_LATENCY_WARMUP=N: jobs each SQLite daemon takes unmeasured first, default 3,000);
                              =history: enqueue and drain with the queue history on and off, interleaved, SQLite and PostgreSQL;
                              =ageing: a claim among 10,000 waiting jobs with priority ageing on and off, and the ageing pass, SQLite;
                              =editor: the Queues view and a job page in VS Code (needs bash scripts/e2e-setup.sh once);
                              =dashboard: the dashboard's first paint in VS Code with 7 days of history for 20 queues (the same))
  SPOOL_BENCH_CHECKPOINTS=auto  the engine with SQLite's automatic checkpoints
  SPOOL_BENCH_CPU_PROFILE=<dir> a V8 CPU profile of each benchmark daemon, written there

${COMPARE_USAGE}

See BENCHMARKS.md for the figures and how to read them.`;

function summary(part: string, figures: BenchFigure[]): string {
  const missed = figures.filter((f) => f.met === false);
  return missed.length === 0 ? `${part}: every target met.` : `${part}: ${missed.length} target(s) missed: ${missed.map((f) => f.name.trim()).join('; ')}`;
}

/**
 * The Queues view and the job page in a real VS Code, driven by the e2e tests' helpers: run from
 * its TypeScript source with tsx (a dev dependency, like the browser driver), so it is not bundled.
 */
function runEditorBench(name: 'Editor' | 'Dashboard', script: 'editor.ts' | 'dashboard.ts'): string {
  const root = path.resolve(__dirname, '..');
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench', script)], { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status === 0) return `${name}: every target met.`;
  if (result.status === 2) return `${name}: a target missed (see MISSED above).`;
  if (result.status === 3) return `${name}: skipped (code-server or Chromium missing; bash scripts/e2e-setup.sh installs them).`;
  return `${name}: the benchmark failed (exit status ${String(result.status ?? result.signal)}).`;
}

async function runAll(): Promise<void> {
  const db = new Database(':memory:');
  const sqlite = db.prepare('SELECT sqlite_version()').pluck().get();
  db.close();
  const cpus = os.cpus();
  console.log(`Node ${process.version}, SQLite ${String(sqlite)}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${os.platform()} ${os.release()}`);
  const now = await machineNow();
  console.log(`This machine now: SHA-256 of 32 MiB in ${now.hashMs.toFixed(1)} ms (median of 5); a byte to another process and back p50 ${(now.roundTrip.p50 * 1000).toFixed(0)} µs, p99 ${(now.roundTrip.p99 * 1000).toFixed(0)} µs (1,000 trips)`);
  console.log('Other processes on this machine compete for the same cores; compare figures within one run.\n');
  const part = process.env['SPOOL_BENCH_PART'];
  const lines: string[] = [];
  if (part === undefined || part === 'engine') lines.push(summary('Engine', await runEngineBench()));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'daemon') lines.push(summary('Daemon', await runDaemonBench()));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'apply') lines.push(summary('Jobs as code', await runApplyBench()));
  if (part === undefined || part === 'lsp') lines.push(summary('Language server', runLspBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'dependencies') lines.push(summary('Dependencies', await runDependenciesBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'groups') lines.push(summary('Groups', await runGroupsBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'postgres') lines.push(summary('PostgreSQL', await runPostgresBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'bullmq') lines.push(summary('SQLite beside BullMQ', await runBullmqBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'history') lines.push(summary('History', await runHistoryBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined || part === 'ageing') lines.push(summary('Ageing', await runAgeingBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'shell') lines.push(summary('Shell jobs', await runShellBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'memory') lines.push(summary('Memory', await runMemoryBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'latency') lines.push(summary('Wake latency', await runLatencyBench({ quick: process.env['SPOOL_BENCH_QUICK'] === '1' })));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'editor') lines.push(runEditorBench('Editor', 'editor.ts'));
  if (part === undefined) console.log('');
  if (part === undefined || part === 'dashboard') lines.push(runEditorBench('Dashboard', 'dashboard.ts'));
  console.log(`\n${lines.join('\n')}`);
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const [command, ...rest] = argv;
  if (command === undefined) return runAll();
  if (command === 'compare') return runCompare(parseCompareArgs(rest));
  throw new UsageError(`unknown command '${command}': run it without arguments, or with compare (see --help).`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const text = error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`bench failed: ${text}`);
  process.exit(1);
});

/**
 * How this machine runs now, so that runs made at different times can be compared as far as
 * that goes (on a shared virtual machine both move from one hour to the next): the time to hash
 * 32 MiB (native code, no JIT), and the round trip of one byte to another process and back over
 * pipes (the wake-ups every latency figure is made of).
 */
async function machineNow(): Promise<{ hashMs: number; roundTrip: { p50: number; p99: number } }> {
  const data = Buffer.alloc(32 * 1024 * 1024, 7);
  const hashes: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    crypto.createHash('sha256').update(data).digest();
    hashes.push(performance.now() - started);
  }
  const echo = spawn(process.execPath, ['-e', 'process.stdin.on("data", (d) => process.stdout.write(d))'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const trips: number[] = [];
    let answered: (() => void) | null = null;
    echo.stdout.on('data', () => answered?.());
    for (let i = 0; i < 1100; i += 1) {
      const started = performance.now();
      await new Promise<void>((resolve) => {
        answered = resolve;
        echo.stdin.write('x');
      });
      // The first 100 warm both processes up.
      if (i >= 100) trips.push(performance.now() - started);
    }
    hashes.sort((a, b) => a - b);
    trips.sort((a, b) => a - b);
    return { hashMs: percentileOf(hashes, 0.5), roundTrip: { p50: percentileOf(trips, 0.5), p99: percentileOf(trips, 0.99) } };
  } finally {
    echo.kill();
  }
}
