/**
 * `bench compare` (bench/compare.ts) as a process: the built `dist/bench.js` comparing this
 * checkout's build with itself on real daemons, with small sizes, and cleaning up after itself
 * whether it finishes, fails or is interrupted. Each run gets its own TMPDIR, so that what it
 * leaves behind (or not) can be seen. Run `npm run build` first (`npm test` does).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { waitFor } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '..', '..');
const BENCH = path.join(ROOT, 'dist', 'bench.js');

const started = new Set<ChildProcess>();
const folders: string[] = [];
after(() => {
  for (const child of started) child.kill('SIGKILL');
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  tmp: string;
  output(): string;
  exited: Promise<number | null>;
}

function compare(args: string[]): Run {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-compare-'));
  folders.push(tmp);
  const child = spawn(process.execPath, [BENCH, 'compare', ...args], { env: { ...process.env, TMPDIR: tmp, SPOOL_BENCH_LATENCY_WARMUP: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, tmp, output: () => out, exited };
}

/** Processes whose command line names the folder: the daemons and clients of a run under it. */
function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // The process ended while the list was read.
    }
  }
  return found;
}

// Its sizes are the smallest compare accepts (--blocks 2, --jobs 1,000, --samples 20), and still
// it takes about 20 s of CPU: some 20 s on two idle cores, longer beside another test file, and
// past two minutes on a machine loaded far beyond its cores (where the other tests here ran ten
// times slower than alone). The limit is only there to end a hang.
test('compares a build with itself: every figure for both builds, then no process or temporary file left', { timeout: 300_000 }, async () => {
  const run = compare(['--old', ROOT, '--new', ROOT, '--blocks', '2', '--jobs', '1000', '--samples', '20']);
  assert.equal(await run.exited, 0, run.output());
  const out = run.output();
  assert.match(out, new RegExp(`^old: ${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*; Spool \\S+, protocol \\d+; SQLite \\d`, 'm'));
  assert.match(out, /^new: .*; Spool \S+, protocol \d+; SQLite \d/m);
  assert.match(out, /block 1\/2 \(old first, then new\)/);
  assert.match(out, /block 2\/2 \(new first, then old\)/);
  const rows = out.split('\n').filter((line) => /^\| (?!figure)[^-]/.test(line) || /^\| — /.test(line));
  const figures = ['jobs.enqueue pipelined, 1 connection', 'end to end: producer and worker at once', 'fill a queue', 'then drain it', 'latency p50', 'latency p99'];
  for (const figure of figures) assert.ok(rows.some((row) => row.includes(figure)), `a row for ${figure} in:\n${out}`);
  assert.equal(rows.filter((row) => row.includes('daemon CPU per job')).length, 5, 'one CPU row under each rate, one for the latency run');
  for (const row of rows) assert.match(row, /\| +\d[\d,.]* \(\d[\d,.]*–\d[\d,.]*\) \| +\d[\d,.]* \(\d[\d,.]*–\d[\d,.]*\) \| +\d+\.\d{3} \|/, `numbers for both builds in: ${row}`);
  assert.match(out, /^Figures where new is more than 5 % worse than old \(medians\): /m);
  assert.deepEqual(fs.readdirSync(run.tmp), [], 'the temporary folder is removed');
  assert.deepEqual(processesUnder(run.tmp), []);
});

test('an --old that is neither a folder nor a git ref fails naming it, and leaves nothing behind', { timeout: 60_000 }, async () => {
  const run = compare(['--old', 'no-such-ref-anywhere', '--blocks', '2']);
  assert.equal(await run.exited, 1);
  assert.match(run.output(), /^bench failed: --old: 'no-such-ref-anywhere' is neither a folder nor a git ref of the repository at /m);
  assert.doesNotMatch(run.output(), /    at /, 'a usage error has no stack');
  assert.deepEqual(fs.readdirSync(run.tmp), []);
});

test('interrupted (SIGINT to the bench process alone), it ends its daemons and clients and removes its temporary folder', { timeout: 120_000 }, async () => {
  // Big enough that it is still measuring when interrupted.
  const run = compare(['--old', ROOT, '--new', ROOT, '--blocks', '2', '--jobs', '2000000']);
  const socket = await waitFor('a benchmark daemon\'s socket', () => {
    for (const work of fs.readdirSync(run.tmp)) {
      const dir = path.join(run.tmp, work);
      for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
        const runDir = path.join(dir, entry);
        if (!entry.startsWith('run-') || !fs.existsSync(runDir)) continue;
        const sock = fs.readdirSync(runDir).find((name) => name.endsWith('.sock'));
        if (sock) return path.join(runDir, sock);
      }
    }
    return undefined;
  }, 60_000);
  assert.notDeepEqual(processesUnder(run.tmp), [], `a daemon runs on ${socket}`);
  run.child.kill('SIGINT');
  assert.equal(await run.exited, 130, run.output());
  assert.match(run.output(), /bench compare: interrupted \(SIGINT\)/);
  assert.deepEqual(fs.readdirSync(run.tmp), []);
  await waitFor('the run\'s daemons and clients to be gone', () => processesUnder(run.tmp).length === 0, 10_000);
});

test('a folder without a build, or whose daemon lacks a flag the comparison passes, fails naming the option', { timeout: 60_000 }, async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-compare-build-'));
  folders.push(folder);
  const unbuilt = compare(['--old', folder, '--blocks', '2']);
  assert.equal(await unbuilt.exited, 1);
  assert.match(unbuilt.output(), new RegExp(`^bench failed: --old: ${folder} has no dist/daemon\\.js\\. Build that checkout first`, 'm'));
  assert.deepEqual(fs.readdirSync(unbuilt.tmp), []);

  // A build from before --socket existed: its help lists only --db.
  fs.mkdirSync(path.join(folder, 'dist'));
  fs.writeFileSync(path.join(folder, 'dist', 'daemon.js'), "console.log('Usage: spoold [options]\\n  --db <path>  SQLite database file');\n");
  const older = compare(['--old', ROOT, '--new', folder, '--blocks', '2']);
  assert.equal(await older.exited, 1);
  assert.match(older.output(), /^bench failed: --new: .*dist\/daemon\.js does not know --socket, which the comparison needs\.$/m);
  assert.deepEqual(fs.readdirSync(older.tmp), []);
});
