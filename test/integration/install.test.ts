/**
 * Spool installed as any other tool: `npm pack` of this checkout, `npm install -g` of the tarball
 * into a temporary prefix (its native SQLite module built on the spot), then the installed `spool`
 * alone, from a folder with no repository around, with a PATH of the prefix's bin and a folder
 * holding only `node`: its version, a daemon in the background, a shell job run to the end, the
 * completion script asking the daemon for names through the spool that wrote it, the language
 * server and the MCP server, and a service unit that names the installed daemon. The tarball is
 * made from the build (`npm test` builds first), with --ignore-scripts so that its prepack does
 * not rebuild dist/ under the other tests.
 *
 * The install fetches the package's dependencies through npm's cache (--prefer-offline) and
 * builds better-sqlite3 from source, which takes minutes on a busy machine. The test is skipped,
 * saying so, only when the install fails and the npm registry does not answer `npm ping`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { startLsp } from '../helpers/lsp';
import { processAlive } from '../helpers/daemon';
import { waitFor } from '../helpers/wait';
import { ROOT } from './cli-run';

const INSTALL_TIMEOUT_MS = 20 * 60_000;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to the end (killed at the deadline) without blocking the test's own timers. */
function run(program: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; input?: string }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(options.input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: signal === 'SIGKILL' ? `${stderr}\n(killed after ${options.timeoutMs} ms)` : stderr });
    });
  });
}

test('npm pack gives a package that npm install -g puts on the PATH with its daemon, native module, completion, language server and MCP server', { timeout: INSTALL_TIMEOUT_MS + 5 * 60_000 }, async (t) => {
  const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-install-'));
  const dirs = { pack: 'pack', prefix: 'prefix', node: 'node', home: 'home', work: 'work', run: 'run' };
  for (const [key, name] of Object.entries(dirs)) {
    dirs[key as keyof typeof dirs] = path.join(base, name);
    fs.mkdirSync(path.join(base, name), { mode: 0o700 });
  }
  let daemonPid: number | null = null;
  t.after(async () => {
    if (daemonPid !== null && processAlive(daemonPid)) {
      process.kill(daemonPid, 'SIGTERM');
      const pid = daemonPid;
      await waitFor('the installed daemon to exit', () => !processAlive(pid), 30_000).catch(() => process.kill(pid, 'SIGKILL'));
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  // npm pack, from the build, as the package is published.
  const npmEnv: NodeJS.ProcessEnv = { ...process.env };
  // better-sqlite3 builds against the local Node headers when it finds no prebuilt module for this Node.
  if (!npmEnv['npm_config_nodedir'] && fs.existsSync('/usr/include/node/node_version.h')) npmEnv['npm_config_nodedir'] = '/usr';
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dirs.pack], { cwd: ROOT, env: npmEnv, timeoutMs: 120_000 });
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = `spool-${version}.tgz`;
  const listing = spawnSync('tar', ['-tzf', path.join(dirs.pack, tarball)], { encoding: 'utf8' });
  const files = listing.stdout.split('\n').filter((f) => f !== '').map((f) => f.replace(/^package\//, ''));
  for (const needed of ['package.json', 'README.md', 'bin/spool', 'dist/cli.js', 'dist/daemon.js', 'dist/checkpointer.js', 'dist/launcher.js', 'dist/lsp.js', 'dist/mcp.js', 'dist/top.js', 'docs/cli.md', 'docs/operations.md', 'schema/spool.schema.json']) {
    assert.ok(files.includes(needed), `the package holds ${needed}: ${files.join(', ')}`);
  }
  const extra = files.filter((f) => /^(test|e2e|cli|daemon|shared|extension|scripts|node_modules|packages)\//.test(f) || f.endsWith('.map') || f.endsWith('.ts') || f === 'dist/extension.js' || f === 'dist/bench.js');
  assert.deepEqual(extra, [], 'no tests, sources, source maps, editor or benchmark bundles');

  // npm install -g into the temporary prefix.
  const installed = await run(
    'npm',
    ['install', '-g', '--prefix', dirs.prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=better-sqlite3', `./${tarball}`],
    { cwd: dirs.pack, env: npmEnv, timeoutMs: INSTALL_TIMEOUT_MS },
  );
  if (installed.code !== 0) {
    const ping = await run('npm', ['ping'], { cwd: dirs.pack, env: npmEnv, timeoutMs: 60_000 });
    if (ping.code !== 0) {
      t.skip(`the npm registry cannot be reached (npm ping: ${(ping.stderr.trim().split('\n').pop() ?? '').slice(0, 200)}), so the package's dependencies cannot be installed`);
      return;
    }
    assert.fail(`npm install -g failed while the registry answers:\n${installed.stderr.slice(-4000)}`);
  }

  // From here on: the installed spool alone. PATH is the prefix's bin and a folder with node only.
  const bin = path.join(dirs.prefix, 'bin');
  fs.symlinkSync(process.execPath, path.join(dirs.node, 'node'));
  const socketPath = path.join(dirs.run, 'spool.sock');
  const env: NodeJS.ProcessEnv = { HOME: dirs.home, PATH: `${bin}:${dirs.node}`, SPOOL_SOCKET: socketPath, NO_COLOR: '1' };
  const spool = (args: string[], timeoutMs = 60_000) => run(path.join(bin, 'spool'), args, { cwd: dirs.work, env, timeoutMs });
  const packageDir = path.join(dirs.prefix, 'lib', 'node_modules', 'spool');

  const shown = await spool(['--version']);
  assert.deepEqual([shown.code, shown.stdout.trim()], [0, version], shown.stderr);

  const started = await spool(['daemon', '--detach', '--db', path.join(dirs.run, 'spool.db')]);
  assert.equal(started.code, 0, started.stderr);
  daemonPid = Number(/Started the Spool daemon \(pid (\d+)\)/.exec(started.stdout)?.[1]);
  assert.ok(daemonPid > 0, started.stdout);
  // The daemon that answers is the installed one, with its own native module.
  const daemonCommand = fs.readFileSync(`/proc/${daemonPid}/cmdline`, 'utf8').split('\0');
  assert.ok(daemonCommand.includes(path.join(packageDir, 'dist', 'daemon.js')), daemonCommand.join(' '));

  const job = await spool(['enqueue', 'builds', '--shell', 'echo built by the installed spool', '--wait']);
  assert.equal(job.code, 0, job.stderr);
  assert.match(job.stdout, /^built by the installed spool$/m);

  // Completion: the script calls the spool that printed it, by its path, for the queue names.
  const script = await spool(['completion', 'bash']);
  assert.equal(script.code, 0, script.stderr);
  assert.ok(script.stdout.includes(`_spool_script='${path.join(bin, 'spool')}'`), script.stdout.slice(0, 600));
  fs.writeFileSync(path.join(dirs.work, 'spool.bash'), script.stdout);
  const complete = async (words: string[]): Promise<string[]> => {
    const line = `source ./spool.bash; COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _spool; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const asked = await run('/bin/bash', ['--norc', '-c', line], { cwd: dirs.work, env, timeoutMs: 30_000 });
    assert.equal(asked.code, 0, asked.stderr);
    return asked.stdout.split('\n').filter((w) => w !== '');
  };
  assert.deepEqual(await complete(['spool', 'enqueue', 'bu']), ['builds']);
  assert.deepEqual(await complete(['spool', 'daemon', 'inst']), ['install-service']);

  // The language server, through the installed CLI: a mistake in spool.jsonc gets a diagnostic.
  const lsp = await startLsp({ command: [path.join(bin, 'spool'), 'lsp', '--stdio'], env });
  try {
    const uri = `file://${path.join(dirs.work, 'spool.jsonc')}`;
    await lsp.open(uri, '{ "queues": { "builds": { "concurrency": "many" } } }');
    const diagnostics = await lsp.diagnosticsOf(uri, (d) => d.length > 0);
    assert.match(JSON.stringify(diagnostics.map((d) => d.message)), /concurrency/);
  } finally {
    await lsp.close();
  }

  // The MCP server, through the installed CLI: it lists the daemon's queues.
  const transport = new StdioClientTransport({ command: path.join(bin, 'spool'), args: ['mcp'], cwd: dirs.work, env: env as Record<string, string>, stderr: 'pipe' });
  const agent = new Client({ name: 'spool-install-test', version: '1.0.0' });
  await agent.connect(transport);
  try {
    const queues = (await agent.callTool({ name: 'list_queues', arguments: {} })) as { content: { type: string; text?: string }[] };
    assert.match(queues.content[0]?.text ?? '', /builds/);
  } finally {
    await agent.close();
  }

  // A service unit for the installed daemon (printed, not written).
  const unit = await spool(['daemon', 'install-service', '--print']);
  assert.equal(unit.code, 0, unit.stderr);
  assert.ok(unit.stdout.includes(`ExecStart=${process.execPath} --max-semi-space-size=8 ${path.join(packageDir, 'dist', 'daemon.js')} --socket ${socketPath}`), unit.stdout);

  const stopped = await spool(['daemon', 'stop']);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, /^Stopped the Spool daemon/);
  assert.equal(processAlive(daemonPid), false);
});
