/**
 * Priority ageing through the `spool` command as a real process against a real daemon:
 * `queue set --ageing` and `off`, `queue` and `job` showing it, the daemon's upkeep raising a
 * waiting job's claim priority while it waits so that a claim takes it before a newer job of
 * higher priority, a refusal that names the option and the form, and a queue's "ageing" (with
 * its group settings, and a template's group) in spool.jsonc applied by `spool apply`.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job, Queue } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
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

test('queue set --ageing raises a waiting job while it waits, so a claim takes it before a newer job of higher priority; off clears it', async () => {
  const set = await spool(['queue', 'age-cli', 'set', '--ageing', '1 per 1s', '--json']);
  assert.equal(set.code, 0, set.stderr);
  assert.equal((JSON.parse(set.stdout) as { queue: Queue }).queue.ageing, '1 per 1s');
  const shown = await spool(['queue', 'age-cli']);
  assert.match(shown.stdout, /priority ageing: +1 per 1s/);

  const old = await spool(['enqueue', 'age-cli', '--kind', 'report', '--priority', '0']);
  assert.equal(old.code, 0, old.stderr);
  const oldId = old.stdout.trim();
  // The upkeep's passes come every second for this queue: wait until three steps are counted.
  const raised = await waitFor('the waiting job to count three steps higher', async () => {
    const { job } = await client.call('jobs.get', { id: oldId });
    return (job.agedPriority ?? 0) >= 3 ? job : undefined;
  }, 20_000);
  assert.equal(raised.priority, 0, 'the priority shown stays the one set');
  const job = await spool(['job', oldId]);
  assert.match(job.stdout, /priority: +0 \(counts as \d+ after its wait: its queue's ageing\)/);

  const newer = await spool(['enqueue', 'age-cli', '--kind', 'report', '--priority', '2']);
  assert.equal(newer.code, 0, newer.stderr);
  const [claimed] = (await client.call('jobs.claim', { workerId: 'age-worker', queues: ['age-cli'], kinds: ['report'] })).jobs;
  assert.equal(claimed?.id, oldId, 'the job that waited is claimed first');

  const off = await spool(['queue', 'age-cli', 'set', '--ageing', 'off']);
  assert.equal(off.code, 0, off.stderr);
  assert.match((await spool(['queue', 'age-cli'])).stdout, /priority ageing: +off/);
  const left: Job = (await client.call('jobs.get', { id: newer.stdout.trim() })).job;
  assert.equal(left.agedPriority ?? null, null);
});

test('a bad --ageing is refused naming the option and the accepted form', async () => {
  for (const bad of ['1/10m', '0 per 10m', '1 per 10']) {
    const r = await spool(['queue', 'age-bad', 'set', '--ageing', bad]);
    assert.notEqual(r.code, 0, bad);
    assert.match(r.stderr, /--ageing .* is not valid: .*N per DURATION, like 1 per 10m/, bad);
  }
  const help = await spool(['queue', '--help']);
  assert.match(help.stdout, /--ageing <ageing\|off>/);
});

test('a queue\'s "ageing" and group settings and a template\'s group in spool.jsonc are applied, and plan unchanged the second time', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-ageing-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(
    path.join(dir, 'spool.jsonc'),
    `{
  "project": "age-proj",
  "queues": { "age-proj-q": { "ageing": "2 per 1h", "groupConcurrency": 1, "groupRate": "5/s", "groupWeights": { "customer:1": 3 } } },
  "templates": { "age-proj-export": { "queue": "age-proj-q", "kind": "export", "payload": {}, "params": { "customer": {} }, "group": "customer:{{customer}}" } }
}
`,
  );
  const inDir = (args: string[]) => runCli(args, { socketPath: daemon.socketPath, cwd: dir });
  const applied = await inDir(['apply', '--yes']);
  assert.equal(applied.code, 0, applied.stderr);
  const { queue } = await client.call('queues.get', { name: 'age-proj-q' });
  assert.deepEqual([queue.ageing, queue.groupConcurrency, queue.groupRate, queue.groupWeights], ['2 per 1h', 1, { perSecond: 5, burst: 5 }, { 'customer:1': 3 }]);
  const run = await inDir(['run', 'age-proj-export', '--param', 'customer=42', '--json']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal((JSON.parse(run.stdout) as { job: Job }).job.group, 'customer:42');
  const plan = await inDir(['plan', '--json']);
  const changes: unknown = Reflect.get(JSON.parse(plan.stdout) as object, 'changes');
  assert.ok(Array.isArray(changes) && changes.every((c: unknown) => c && typeof c === 'object' && Reflect.get(c, 'action') === 'unchanged'), plan.stdout);
});
