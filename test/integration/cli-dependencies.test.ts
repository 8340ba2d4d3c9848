/**
 * Dependencies through the `spool` command as a real process against a real daemon:
 * `enqueue --after` (with :failed and :finished), `spool jobs --state blocked`, `spool job`
 * listing dependencies and dependents with their states and results, the bulk cancel's default
 * taking blocked jobs, and `delete` refusing a job unfinished jobs depend on unless `--cascade`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

async function enqueued(args: string[]): Promise<string> {
  const result = await spool(['enqueue', ...args]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim();
}

test('enqueue --after makes a blocked job; spool jobs --state blocked lists it; spool job shows both ends with states and results', async () => {
  const build = await enqueued(['cli-deps', '--kind', 'build']);
  const deploy = await enqueued(['cli-deps', '--kind', 'deploy', '--after', build]);
  const cleanup = await enqueued(['cli-deps', '--kind', 'cleanup', '--after', `${deploy}:finished`, '--after', `${build}:failed`]);
  const blocked = await spool(['jobs', '--queue', 'cli-deps', '--state', 'blocked']);
  assert.equal(blocked.code, 0, blocked.stderr);
  assert.match(blocked.stdout, new RegExp(deploy.slice(-8)));
  assert.match(blocked.stdout, new RegExp(cleanup.slice(-8)));
  assert.doesNotMatch(blocked.stdout, new RegExp(build.slice(-8)));

  const [claimed] = (await client.call('jobs.claim', { workerId: 'w', kinds: ['build'] })).jobs;
  assert.equal(claimed?.id, build);
  await client.call('jobs.complete', { id: build, workerId: 'w', result: { artifact: 'app.tar.gz' } });

  const shown = await spool(['job', deploy]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /DEPENDS ON/);
  assert.match(shown.stdout, new RegExp(`${build}\\s+succeeded\\s+completed\\s+cli-deps\\s+-\\s+\\{"artifact":"app.tar.gz"\\}`));
  assert.match(shown.stdout, /DEPENDED ON BY/);
  assert.match(shown.stdout, new RegExp(`${cleanup}\\s+finished\\s+cancelled`));
  const parent = await spool(['job', build]);
  assert.match(parent.stdout, new RegExp(`${deploy}\\s+succeeded\\s+queued`));
  assert.match(parent.stdout, new RegExp(`${cleanup}\\s+failed\\s+cancelled`), 'the build succeeded: the job that ran only on its failure was cancelled');
  const json = JSON.parse((await spool(['job', cleanup, '--json'])).stdout) as { job: { state: string; lastError: string } };
  assert.equal(json.job.state, 'cancelled');
  assert.match(json.job.lastError, new RegExp(`^dependency ${build} succeeded`));
});

test('enqueue --after refuses a condition it does not know and a job that does not exist, naming them', async () => {
  const bad = await spool(['enqueue', 'cli-deps-bad', '--kind', 'k', '--after', '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b:sometimes']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--after 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b:sometimes: write a job id, optionally followed by :succeeded \(the default\), :failed or :finished/);
  const missing = await spool(['enqueue', 'cli-deps-bad', '--kind', 'k', '--after', '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b']);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /dependsOn\[0\] names job 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b, which does not exist/i);
});

test('the bulk cancel takes blocked jobs by default; delete refuses a job unfinished jobs depend on unless --cascade', async () => {
  const root = await enqueued(['cli-deps-bulk', '--kind', 'k']);
  const child = await enqueued(['cli-deps-bulk', '--kind', 'k', '--after', root]);
  const grandchild = await enqueued(['cli-deps-bulk', '--kind', 'k', '--after', child]);
  const refused = await spool(['delete', root]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /jobs that have not ended depend on it\. Delete them first, or delete with cascade/);
  const cascaded = await spool(['delete', root, '--cascade']);
  assert.equal(cascaded.code, 0, cascaded.stderr);
  assert.match(cascaded.stdout, /Deleted 3 jobs\./);
  for (const id of [root, child, grandchild]) assert.notEqual((await spool(['job', id])).code, 0);

  const other = await enqueued(['cli-deps-bulk', '--kind', 'k']);
  await enqueued(['cli-deps-bulk', '--kind', 'k', '--after', other]);
  const cancelled = await spool(['cancel', '--queue', 'cli-deps-bulk']);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.match(cancelled.stdout, /Cancelled 2 jobs\./, 'the default states are blocked, queued and retrying');
});
