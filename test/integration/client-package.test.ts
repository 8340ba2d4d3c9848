/**
 * The spool-client package as another project gets it: built (`npm run build:client`), packed
 * with `npm pack`, installed into a temporary project, type-checked by a TypeScript consumer, and
 * run by a plain Node program against a real daemon (enqueue, a worker that completes the job).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { ROOT } from './cli-run';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

describe('the spool-client package', () => {
  let daemon: TestDaemon;
  let dir: string;

  before(async () => {
    daemon = await startDaemon();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-client-pkg-'));
    execFileSync(NPM, ['run', 'build:client'], { cwd: ROOT, stdio: 'pipe', timeout: 300_000 });
    const packed = execFileSync(NPM, ['pack', '--json', '--pack-destination', dir], { cwd: path.join(ROOT, 'packages', 'client'), encoding: 'utf8', timeout: 120_000 });
    const [{ filename, files }] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
    assert.ok(files.some((f) => f.path === 'dist/index.js'), 'the package carries its JavaScript');
    assert.ok(files.some((f) => f.path === 'dist/types/packages/client/index.d.ts'), 'and its declarations');
    assert.ok(!files.some((f) => f.path.endsWith('.ts') && !f.path.endsWith('.d.ts')), 'and no TypeScript source');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    execFileSync(NPM, ['install', '--offline', '--no-audit', '--no-fund', path.join(dir, filename)], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
  });

  after(async () => {
    await daemon?.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('its declarations type-check a consumer, and refuse a wrong method', () => {
    fs.writeFileSync(
      path.join(dir, 'consumer.ts'),
      `import { SpoolClient, runWorker, type Job } from 'spool-client';
export async function main(): Promise<Job> {
  const client = await SpoolClient.connect();
  const { job } = await client.call('jobs.enqueue', { queue: 'q', kind: 'k', priority: 1 });
  await runWorker({ queues: ['q'], kinds: ['k'], handler: async (j: Job) => j.id });
  return job;
}
`,
    );
    const flags = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types')];
    const ok = spawnSync(process.execPath, [TSC, ...flags, 'consumer.ts'], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    fs.writeFileSync(path.join(dir, 'wrong.ts'), `import { SpoolClient } from 'spool-client';\nexport const p = SpoolClient.connect().then((c) => c.call('jobs.enqueue', { queue: 'q', kind: 'k', priority: 'high' }));\n`);
    const wrong = spawnSync(process.execPath, [TSC, ...flags, 'wrong.ts'], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
    assert.notEqual(wrong.status, 0, 'a wrong type is refused');
    assert.match(wrong.stdout, /wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  });

  test('a Node program installed from the package enqueues and works a job on a real daemon', () => {
    fs.writeFileSync(
      path.join(dir, 'run.js'),
      `const { SpoolClient, runWorker } = require('spool-client');
(async () => {
  const client = await SpoolClient.connect();
  const status = await client.handshake();
  const { job } = await client.call('jobs.enqueue', { queue: 'pkg', kind: 'double', payload: { n: 21 } });
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const worker = await runWorker({ queues: ['pkg'], kinds: ['double'], handler: async (j) => { setImmediate(done); return { n: j.payload.n * 2 }; } });
  await finished;
  await worker.stop();
  let got;
  for (let i = 0; i < 200; i++) {
    got = (await client.call('jobs.get', { id: job.id })).job;
    if (got.state === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(JSON.stringify({ version: status.version, state: got.state, result: got.result }));
  client.close();
})().catch((e) => { console.error(e); process.exit(1); });
`,
    );
    const r = spawnSync(process.execPath, ['run.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, SPOOL_SOCKET: daemon.socketPath }, timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { version: string; state: string; result: unknown };
    assert.equal(out.state, 'completed');
    assert.deepEqual(out.result, { n: 42 });
    assert.equal(typeof out.version, 'string');
  });
});
