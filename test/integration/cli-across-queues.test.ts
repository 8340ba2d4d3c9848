/**
 * Bulk actions across every queue and by git branch, through the `spool` command as a real
 * process against a real daemon: `spool retry|cancel|delete` with filters and no --queue, and
 * `spool jobs --branch` / `--branch` on the bulk commands, the branch being the one the CLI
 * records when it enqueues from a git work tree.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { ListJobsResult } from '../../shared/protocol';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { parseJson, runCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
const spool = (args: string[], cwd?: string) => runCli(args, { socketPath: daemon.socketPath, ...(cwd !== undefined ? { cwd } : {}) });

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

/** A folder that reads as a git work tree on `branch` (HEAD only: what the CLI reads). */
function checkout(branch: string): string {
  const dir = fs.mkdtempSync(path.join(daemon.dir, 'repo-'));
  fs.mkdirSync(path.join(dir, '.git'));
  fs.writeFileSync(path.join(dir, '.git', 'HEAD'), `ref: refs/heads/${branch}\n`);
  return dir;
}

async function enqueued(queue: string, cwd: string): Promise<string> {
  const r = await spool(['enqueue', queue, '--kind', 'k', '--delay', '1h'], cwd);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

async function stateOf(id: string): Promise<string> {
  return (await client.call('jobs.get', { id })).job.state;
}

test('jobs --branch and the bulk commands with --branch and --state work across every queue', async () => {
  const feature = checkout('feature/login');
  const main = checkout('main');
  const ours = [await enqueued('across-a', feature), await enqueued('across-b', feature)];
  const theirs = await enqueued('across-a', main);

  const listed = parseJson<ListJobsResult>((await spool(['jobs', '--branch', 'feature/login', '--json'])).stdout);
  assert.deepEqual(listed.jobs.map((j) => j.id).sort(), [...ours].sort());
  assert.match((await spool(['jobs', '--branch', 'feature/login'])).stdout, /across-a[\s\S]*across-b|across-b[\s\S]*across-a/);

  const cancelled = await spool(['cancel', '--branch', 'feature/login']);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.equal(cancelled.stdout, 'Cancelled 2 jobs.\n');
  assert.deepEqual(await Promise.all([...ours, theirs].map(stateOf)), ['cancelled', 'cancelled', 'queued']);

  const retried = await spool(['retry', '--state', 'cancelled']);
  assert.equal(retried.code, 0, retried.stderr);
  assert.equal(retried.stdout, 'Retried 2 jobs.\n', 'no --queue: every queue');
  assert.deepEqual(await Promise.all(ours.map(stateOf)), ['queued', 'queued']);

  const deleted = await spool(['delete', '--state', 'queued', '--branch', 'main']);
  assert.equal(deleted.stdout, 'Deleted 1 job.\n');
  assert.equal((await spool(['job', theirs])).code, 1, 'the deleted job is gone');
  assert.deepEqual(await Promise.all(ours.map(stateOf)), ['queued', 'queued']);
});

test('--queue takes a comma list, as --state does: spool jobs lists the queues named, newest first; a bulk action acts on each', async () => {
  const ids: Record<string, string[]> = { 'qa-one': [], 'qa-two': [], 'qa-three': [] };
  for (const queue of ['qa-one', 'qa-two', 'qa-three', 'qa-one', 'qa-two']) ids[queue]?.push((await client.call('jobs.enqueue', { queue, kind: 'k', delayMs: 3_600_000 })).job.id);
  const listed = parseJson<ListJobsResult>((await spool(['jobs', '--queue', 'qa-one,qa-two', '--json'])).stdout);
  assert.deepEqual(
    listed.jobs.map((j) => j.id),
    [...(ids['qa-one'] ?? []), ...(ids['qa-two'] ?? [])].sort().reverse(),
    'both queues, newest first, and nothing of the third',
  );
  const limited = await spool(['jobs', '--queue', 'qa-one', '--queue', 'qa-two', '--limit', '3']);
  assert.equal(limited.code, 0, limited.stderr);
  assert.equal(limited.stdout.trim().split('\n').length, 4, 'a heading and three jobs');
  assert.match(limited.stderr, /More jobs: raise --limit, or list one queue at a time/);
  assert.match((await spool(['jobs', '--queue', 'qa-one,qa-two', '--cursor', 'x'])).stderr, /--cursor continues a listing of one queue/);

  const cancelled = await spool(['cancel', '--queue', 'qa-one,qa-three', '--state', 'queued']);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.equal(cancelled.stdout, 'Cancelled 3 jobs.\n');
  assert.equal((await client.call('queues.get', { name: 'qa-two' })).queue.counts.queued, 2, 'the queue not named is untouched');
  const unknown = await spool(['retry', '--queue', 'qa-one,qa-nowhere']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /qa-nowhere/);
});
