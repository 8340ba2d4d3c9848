/**
 * Retry rules, expiry and deadlines through the `spool` command as a real process against a
 * real daemon: `enqueue --retry-on-exit/--retry-never-exit` deciding real shell jobs' failures,
 * `--expire-after` and `--deadline` stored with the job, `queue set` with a rule and a default
 * expiry and their removal, refusals that name the option, the help text, and a spool.jsonc
 * template's rule, expiry and deadline carried by the job `spool run` enqueues.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job } from '../../shared/protocol/types';
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

async function ended(id: string): Promise<Job> {
  return waitFor(`job ${id} to end`, async () => {
    const { job } = await client.call('jobs.get', { id });
    return job.state === 'dead' || job.state === 'completed' ? job : undefined;
  });
}

test('a shell job exiting 75 is retried and one exiting 2 is dead at once, by the rule given to enqueue', async () => {
  const rule = ['--retry-on-exit', '75', '--retry-never-exit', '2', '--attempts', '3', '--backoff', 'fixed:100ms:100ms'];
  const temporary = await spool(['enqueue', 'rr-cli', '--shell', 'exit 75', ...rule]);
  assert.equal(temporary.code, 0, temporary.stderr);
  const usage = await spool(['enqueue', 'rr-cli', '--shell', 'exit 2', ...rule]);
  assert.equal(usage.code, 0, usage.stderr);
  const retried = await ended(temporary.stdout.trim());
  assert.equal(retried.attempts, 3, 'exit 75 was retried until the attempts ran out');
  assert.deepEqual(retried.retry, { on: { exitCodes: [75] }, never: { exitCodes: [2] } });
  const dead = await ended(usage.stdout.trim());
  assert.equal(dead.attempts, 1);
  assert.match(dead.lastError ?? '', /not retried: the retry rule never retries exit code 2/);
  const shown = await spool(['job', dead.id]);
  assert.match(shown.stdout, /never retries exit code 2/);
});

test('enqueue --expire-after and --deadline are stored with the job, counted from its enqueue', async () => {
  const r = await spool(['enqueue', 'rr-expiry', '--kind', 'k', '--expire-after', '1h', '--deadline', '+6h', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const { job } = JSON.parse(r.stdout) as { job: Job };
  assert.equal(job.expiresAt, job.createdAt + 3_600_000);
  assert.equal(job.deadlineAt, job.createdAt + 6 * 3_600_000);
  const later = Math.ceil(Date.now() / 1000) * 1000 + 2 * 3_600_000;
  const at = await spool(['enqueue', 'rr-expiry', '--kind', 'k', '--deadline', new Date(later).toISOString(), '--json']);
  assert.equal(at.code, 0, at.stderr);
  assert.equal((JSON.parse(at.stdout) as { job: Job }).job.deadlineAt, later);
});

test('queue set gives a queue a retry rule and a default expiry, and none removes them', async () => {
  const set = await spool(['queue', 'rr-queue', 'set', '--retry-never-exit', '2,3', '--retry-on-error', 'Timeout*', '--expire-after', '30m', '--json']);
  assert.equal(set.code, 0, set.stderr);
  const { queue } = (await client.call('queues.get', { name: 'rr-queue' }));
  assert.deepEqual(queue.retry, { on: { errors: ['Timeout*'] }, never: { exitCodes: [2, 3] } });
  assert.equal(queue.defaultExpireAfterMs, 30 * 60_000);
  const shown = await spool(['queue', 'rr-queue']);
  assert.match(shown.stdout, /retry rule: +retries only errors matching "Timeout\*"; never retries exit codes 2, 3/);
  assert.match(shown.stdout, /expire after: +30m unless started/);
  const job = (await client.call('jobs.enqueue', { queue: 'rr-queue', kind: 'k' })).job;
  assert.deepEqual(job.retry, queue.retry, "a job takes its queue's rule");
  const cleared = await spool(['queue', 'rr-queue', 'set', '--retry-rule', 'none', '--expire-after', 'none']);
  assert.equal(cleared.code, 0, cleared.stderr);
  const after = (await client.call('queues.get', { name: 'rr-queue' })).queue;
  assert.equal(after.retry ?? null, null);
  assert.equal(after.defaultExpireAfterMs ?? null, null);
});

test('bad retry, expiry and deadline options are refused naming the option; --help lists them', async () => {
  for (const [args, pattern] of [
    [['--retry-on-exit', 'seventy'], /--retry-on-exit/],
    [['--retry-never-status', '42'], /--retry-never-status/],
    [['--expire-after', '0'], /--expire-after must be longer than 0/],
    [['--expire-after', '10'], /--expire-after/],
    [['--deadline', '+soon'], /--deadline/],
  ] as const) {
    const r = await spool(['enqueue', 'rr-bad', '--kind', 'k', ...args]);
    assert.equal(r.code, 1, `${args.join(' ')} was refused`);
    assert.match(r.stderr, pattern);
  }
  const both = await spool(['queue', 'rr-bad', 'set', '--retry-rule', 'none', '--retry-on-exit', '75']);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /not both/);
  const help = await spool(['enqueue', '--help']);
  for (const option of ['--retry-on-exit', '--retry-never-exit', '--retry-on-status', '--retry-on-error', '--expire-after', '--deadline']) assert.match(help.stdout, new RegExp(option));
  const queueHelp = await spool(['queue', '--help']);
  assert.match(queueHelp.stdout, /--expire-after <duration\|none>/);
});

test('a template in spool.jsonc with retry, expireAfter and deadline gives them to the job spool run enqueues', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-template-retry-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(
    path.join(dir, 'spool.jsonc'),
    `{
  "project": "rr-proj",
  "queues": { "rr-proj-q": { "retry": { "never": { "exitCodes": [3] } } } },
  "templates": {
    "rr-proj-sync": { "queue": "rr-proj-q", "kind": "sync", "payload": {},
                      "retry": { "on": { "exitCodes": [75] }, "never": { "exitCodes": [2] } }, "expireAfter": "1h", "deadline": "6h" }
  }
}
`,
  );
  const inDir = (args: string[]) => runCli(args, { socketPath: daemon.socketPath, cwd: dir });
  const applied = await inDir(['apply', '--yes']);
  assert.equal(applied.code, 0, applied.stderr);
  const run = await inDir(['run', 'rr-proj-sync', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const { job } = JSON.parse(run.stdout) as { job: Job };
  assert.deepEqual(job.retry, { on: { exitCodes: [75] }, never: { exitCodes: [2] } }, "the template's rule replaces its queue's");
  assert.equal(job.expiresAt, job.createdAt + 3_600_000);
  assert.equal(job.deadlineAt, job.createdAt + 6 * 3_600_000);
  const plan = await inDir(['plan', '--json']);
  const changes: unknown = Reflect.get(JSON.parse(plan.stdout) as object, 'changes');
  assert.ok(Array.isArray(changes) && changes.every((c: unknown) => c && typeof c === 'object' && Reflect.get(c, 'action') === 'unchanged'), plan.stdout);

  // A bad rule or duration in the template is refused by the file's checks before anything is applied.
  fs.writeFileSync(path.join(dir, 'spool.jsonc'), `{ "project": "rr-proj", "queues": { "rr-proj-q": {} }, "templates": { "rr-proj-sync": { "queue": "rr-proj-q", "kind": "sync", "payload": {}, "deadline": "6" } } }\n`);
  const refused = await inDir(['plan']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr + refused.stdout, /templates\["rr-proj-sync"\]\.deadline is not a duration: a number needs a unit/);
});
