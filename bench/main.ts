/**
 * `npm run bench`: prints the versions measured, then the engine benchmark (in-process) and the
 * daemon benchmark (over the socket). SPOOL_BENCH_QUICK=1 makes a fast, smaller run;
 * SPOOL_BENCH_PART=engine or =daemon runs only that part.
 */
import Database from 'better-sqlite3';
import * as os from 'node:os';
import { runDaemonBench } from './daemon';
import { runEngineBench, type BenchFigure } from './engine';

function summary(part: string, figures: BenchFigure[]): string {
  const missed = figures.filter((f) => f.met === false);
  return missed.length === 0 ? `${part}: every target met.` : `${part}: ${missed.length} target(s) missed: ${missed.map((f) => f.name.trim()).join('; ')}`;
}

async function main(): Promise<void> {
  const db = new Database(':memory:');
  const sqlite = db.prepare('SELECT sqlite_version()').pluck().get();
  db.close();
  const cpus = os.cpus();
  console.log(`Node ${process.version}, SQLite ${String(sqlite)}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${os.platform()} ${os.release()}`);
  console.log('Other processes on this machine compete for the same cores; compare figures within one run.\n');
  const part = process.env['SPOOL_BENCH_PART'];
  const lines: string[] = [];
  if (part !== 'daemon') lines.push(summary('Engine', await runEngineBench()));
  if (part === undefined) console.log('');
  if (part !== 'engine') lines.push(summary('Daemon', await runDaemonBench()));
  console.log(`\n${lines.join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
