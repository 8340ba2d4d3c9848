/**
 * A second, independent editor: headless Neovim 0.7.2 (Debian's) drives `spool lsp --stdio`
 * through the CLI — pushed diagnostics at their exact range, hover with the next runs, code lenses
 * with live counts, and Run now through `workspace/executeCommand` — against a real daemon. The
 * Lua side (test/fixtures/lsp-neovim.lua) writes what it got to a file; asserted here.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { marked } from '../helpers/cursor';
import { startDaemon, type TestDaemon } from '../helpers/daemon';

const ROOT = path.resolve(__dirname, '..', '..');
const LUA = path.join(ROOT, 'test', 'fixtures', 'lsp-neovim.lua');
const hasNeovim = spawnSync('nvim', ['--version'], { encoding: 'utf8' }).stdout?.startsWith('NVIM') === true;

const FILE = marked(`{
  "project": "nvim",
  "queues": { "work": {} },
  "templates": { "job": { "queue": "work", "kind": "thumbnail", "payload": 1 } },
  "schedules": {
    "often": { "cron": "*/15 |* * * *", "template": "job" },
    "bad": { "cron": "0 [[25]] * * *", "template": "job" }
  }
}
`);

let daemon: TestDaemon;

before(async () => {
  if (!hasNeovim) return;
  daemon = await startDaemon();
  const client = await daemon.client();
  await client.call('jobs.enqueue', { queue: 'work', kind: 'thumbnail', payload: 0 });
  await client.call('jobs.enqueue', { queue: 'work', kind: 'thumbnail', payload: 0 });
});

after(async () => {
  await daemon?.dispose();
});

/** Runs the Lua script in headless Neovim, with a deadline, and reads its results. */
async function runNeovim(): Promise<Map<string, unknown>> {
  const file = path.join(daemon.dir, 'spool.jsonc');
  const out = path.join(daemon.dir, 'nvim-results.txt');
  fs.writeFileSync(file, FILE.text);
  const env = {
    ...process.env,
    SPOOL_TEST_FILE: file,
    SPOOL_TEST_OUT: out,
    SPOOL_TEST_CMD: JSON.stringify([process.execPath, path.join(ROOT, 'bin', 'spool'), '--socket', daemon.socketPath, 'lsp', '--stdio']),
    SPOOL_TEST_CRON_LINE: String(FILE.position.line),
    SPOOL_TEST_CRON_CHARACTER: String(FILE.position.character),
    // Neovim's own state (shada, swap, logs) goes to the temporary folder.
    XDG_STATE_HOME: daemon.dir,
    XDG_DATA_HOME: daemon.dir,
    XDG_CACHE_HOME: daemon.dir,
  };
  const nvim = spawn('nvim', ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '-c', `luafile ${LUA}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  nvim.stdout.on('data', (d: Buffer) => (output += d.toString()));
  nvim.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => nvim.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => nvim.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.ok(fs.existsSync(out), `Neovim wrote no results (exit ${code}): ${output}`);
  const results = new Map<string, unknown>();
  for (const line of fs.readFileSync(out, 'utf8').split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) results.set(line.slice(0, tab), JSON.parse(line.slice(tab + 1)) as unknown);
  }
  assert.equal(results.get('error'), undefined, String(results.get('error')));
  return results;
}

test('Neovim 0.7 gets diagnostics, hover, code lenses and runs a lens command', { skip: hasNeovim ? false : 'nvim is not installed (.ci/run installs it)' }, async () => {
  const results = await runNeovim();
  assert.equal(results.get('initialized'), true);
  const diagnostics = results.get('diagnostics') as { lnum: number; col: number; end_lnum: number; end_col: number; severity: number; message: string }[];
  assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
  const range = FILE.ranges[0];
  assert.ok(range);
  assert.deepEqual([diagnostics[0]?.lnum, diagnostics[0]?.col, diagnostics[0]?.end_lnum, diagnostics[0]?.end_col], [range.start.line, range.start.character, range.end.line, range.end.character]);
  assert.match(diagnostics[0]?.message ?? '', /hour/);

  const hover = results.get('hover') as { contents: { value: string } };
  assert.match(hover.contents.value, /every 15 minutes/);
  assert.equal(hover.contents.value.split('\n').filter((l) => l.startsWith('- ')).length, 5);

  const lenses = (results.get('lenses') as { command: { title: string } }[]).map((l) => l.command.title);
  // A daemon with project.state adds the Apply lens at the top (its cases: lsp-stdio.test.ts).
  assert.deepEqual(lenses.filter((t) => !t.startsWith('Apply')), ['2 queued', 'Enqueue', 'Run now']);
  const run = results.get('run') as { job: { id: string; queue: string } };
  assert.equal(run.job.queue, 'work');
  const client = await daemon.client();
  assert.equal((await client.call('jobs.get', { id: run.job.id })).job.state, 'queued');
});
