/**
 * Unique jobs, debounce and throttle through the `spool` command as a real process against a
 * real daemon: `enqueue --unique-for/--unique-by/--unique-while`, `--debounce`, `--throttle`,
 * the words printed when a job is not enqueued again, `spool job` showing the rule, the
 * refusals of bad flags naming the flag, and `spool run` of a template with `unique`.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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

test('enqueue --unique-for prints the existing job and says why nothing was enqueued; spool job shows the rule', async () => {
  const args = ['enqueue', 'u-cli', '--kind', 'report', '--payload', '{"month":"2026-11"}', '--unique-for', '10m'];
  const first = await spool(args);
  assert.equal(first.code, 0, first.stderr);
  const id = first.stdout.trim();
  assert.equal(first.stderr, '');
  const again = await spool(args);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout.trim(), id, 'the existing job is printed');
  assert.match(again.stderr, new RegExp(`Job ${id} on queue u-cli is already queued \\(unique for 10m by queue, kind, payload\\); not enqueued again\\.`));
  const other = await spool(['enqueue', 'u-cli', '--kind', 'report', '--payload', '{"month":"2026-12"}', '--unique-for', '10m']);
  assert.notEqual(other.stdout.trim(), id, 'another payload is another job');
  assert.match((await spool(['job', id])).stdout, /^unique: +unique for 10m by queue, kind, payload$/m);
  const json = await spool([...args, '--json']);
  const parsed: unknown = JSON.parse(json.stdout);
  assert.deepEqual(parsed && typeof parsed === 'object' ? [Reflect.get(parsed, 'created'), Reflect.get(parsed, 'reason'), Reflect.get(parsed, 'existingState')] : [], [false, 'unique', 'queued']);
});

test('enqueue --unique-by and --unique-while: equal by one payload field, only while the job waits', async () => {
  const args = (n: number) => ['enqueue', 'u-by', '--kind', 'mail', '--payload', JSON.stringify({ user: 7, n }), '--unique-for', '1h', '--unique-by', 'kind,payload.user', '--unique-while', 'waiting'];
  const first = (await spool(args(1))).stdout.trim();
  const second = await spool(args(2));
  assert.equal(second.stdout.trim(), first);
  assert.match(second.stderr, /already queued \(unique for 1h by kind, payload\.user while waiting\); not enqueued again/);
  await client.call('jobs.claim', { workerId: 'u-w', queues: ['u-by'], max: 1 });
  const third = await spool(args(3));
  assert.notEqual(third.stdout.trim(), first, 'the first one started: a new job is enqueued');
  assert.equal(third.stderr, '');
});

test('enqueue --debounce replaces the queued job\'s payload and says so; --throttle says when the job starts', async () => {
  const first = (await spool(['enqueue', 'u-deb', '--kind', 'build', '--payload', '{"save":1}', '--debounce', '30s'])).stdout.trim();
  const second = await spool(['enqueue', 'u-deb', '--kind', 'build', '--payload', '{"save":2}', '--debounce', '30s']);
  assert.equal(second.stdout.trim(), first);
  assert.match(second.stderr, new RegExp(`Job ${first} on queue u-deb was still waiting: its payload was replaced and it starts in (29|30)s \\(debounce 30s by queue, kind\\); not enqueued again\\.`));
  assert.deepEqual((await client.call('jobs.get', { id: first })).job.payload, { save: 2 });

  const a = await spool(['enqueue', 'u-thr', '--kind', 'sync', '--throttle', '1h']);
  assert.equal(a.stderr, '', 'the first job starts at once');
  const b = await spool(['enqueue', 'u-thr', '--kind', 'sync', '--throttle', '1h']);
  assert.notEqual(b.stdout.trim(), a.stdout.trim());
  assert.match(b.stderr, new RegExp(`Job ${b.stdout.trim()} starts in (59m|60m|1h), not at once: equal jobs start at least 1h apart \\(throttle 1h by queue, kind\\)\\.`));
});

test('bad --unique-* flags are refused naming the flag, and nothing is enqueued', async () => {
  const refused = async (flags: string[], words: RegExp) => {
    const r = await spool(['enqueue', 'u-bad', '--kind', 'k', ...flags]);
    assert.equal(r.code, 1, `${flags.join(' ')} should be refused`);
    assert.match(r.stderr, words);
  };
  await refused(['--unique-for', '10'], /Invalid duration "10" for --unique-for: a number needs a unit/);
  await refused(['--unique-for', '1m', '--unique-by', 'payload,colour'], /--unique-by payload,colour: "colour" \(part 2\) is not one of queue, kind, payload, group, or payload\.<path>/);
  await refused(['--unique-for', '1m', '--unique-while', 'later'], /--unique-while later: use waiting/);
  await refused(['--unique-by', 'kind'], /--unique-by goes with --unique-for, --debounce or --throttle/);
  await refused(['--debounce', '1s', '--throttle', '1s'], /Use one of --unique-for, --debounce and --throttle, not --debounce and --throttle/);
  await refused(['--debounce', '1s', '--unique-while', 'active'], /--unique-while goes with --unique-for/);
  assert.equal((await client.call('jobs.list', { queue: 'u-bad' })).jobs.length, 0);
});

test('spool run of a template with unique applies its rule, and apply plans it unchanged the second time', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-unique-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(
    path.join(dir, 'spool.jsonc'),
    `{
  "project": "u-proj",
  "queues": { "u-proj-q": {} },
  "templates": {
    "u-proj-report": { "queue": "u-proj-q", "kind": "report", "payload": { "month": "{{month}}" }, "params": { "month": {} },
                       "unique": { "for": "1h", "by": ["kind", "payload.month"], "while": "active" } }
  }
}
`,
  );
  const inDir = (args: string[]) => runCli(args, { socketPath: daemon.socketPath, cwd: dir });
  const applied = await inDir(['apply', '--yes']);
  assert.equal(applied.code, 0, applied.stderr);
  const plan = await inDir(['plan', '--json']);
  const parsed: unknown = JSON.parse(plan.stdout);
  const changes: unknown = parsed && typeof parsed === 'object' ? Reflect.get(parsed, 'changes') : undefined;
  assert.ok(Array.isArray(changes) && changes.every((c: unknown) => c && typeof c === 'object' && Reflect.get(c, 'action') === 'unchanged'), plan.stdout);
  const first = await inDir(['run', 'u-proj-report', '--param', 'month=11']);
  assert.equal(first.code, 0, first.stderr);
  const second = await inDir(['run', 'u-proj-report', '--param', 'month=11']);
  assert.equal(second.stdout.trim(), first.stdout.trim());
  assert.match(second.stderr, /is already queued \(unique for 1h by kind, payload\.month while active\); not enqueued again\./);
  assert.notEqual((await inDir(['run', 'u-proj-report', '--param', 'month=12'])).stdout.trim(), first.stdout.trim());
});
