/**
 * The operator's controls through `spool` as a process against a real daemon: `spool job edit`
 * by flags and with `--editor` (a scripted $EDITOR: an edit applied, an unchanged file and an
 * invalid one applying nothing, a job that started meanwhile refused), `spool job run-now`, and
 * `spool hold` / `spool release` by id and by filter across queues.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { tempDir } from '../helpers/engineTest';
import { runCli } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
const spool = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { socketPath: daemon.socketPath, env });

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon.dispose();
});

/** An $EDITOR that runs `script` (sh) on the file it is given, as $1; the file's mode is recorded next to it. */
function scriptedEditor(dir: string, name: string, script: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\nstat -c %a "$1" > "${file}.mode"\nstat -c %a "$(dirname "$1")" >> "${file}.mode"\n${script}\n`, { mode: 0o700 });
  return file;
}

test('job edit by flags changes a delayed shell job and says what changed; a bad field is named and nothing changes', async () => {
  const { job } = await client.call('jobs.enqueue', { queue: 'op-edit', kind: 'shell', payload: 'make build', delayMs: 3_600_000 });
  const r = await spool(['job', 'edit', job.id, '--priority', '5', '--at', '+2h', '--attempts', '4', '--timeout', '30s', '--tag', 'x', '--command', 'make test', '--env', 'CI=1']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^Changed job ${job.id}:\\n  priority: 0 → 5\\n  run time: .+ → .+\\n  attempts: \\d+ → 4\\n  timeout: .+ → 30s\\n  tags: \\[\\] → \\["x"\\]\\n  payload: "make build" → \\{"command":"make test","env":\\{"CI":"1"\\}\\}\\n$`));
  const stored = (await client.call('jobs.get', { id: job.id })).job;
  assert.deepEqual([stored.priority, stored.maxAttempts, stored.timeoutMs, stored.tags, stored.payload], [5, 4, 30_000, ['x'], { command: 'make test', env: { CI: '1' } }]);
  assert.ok(stored.runAt > Date.now() + 3_600_000);
  const bad = await spool(['job', 'edit', job.id, '--url', 'https://example.com']);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'spool: --url applies to http jobs only, and this job is of kind "shell": it takes command, env, cwd\n');
});

test('job edit --group moves a waiting job to another group, past its old group\'s limit, and --group none takes it out', async () => {
  const set = await spool(['queue', 'op-group', 'set', '--group-concurrency', '1']);
  assert.equal(set.code, 0, set.stderr);
  const first = (await client.call('jobs.enqueue', { queue: 'op-group', kind: 'export', group: 'customer:1' })).job;
  const second = (await client.call('jobs.enqueue', { queue: 'op-group', kind: 'export', group: 'customer:1' })).job;
  const third = (await client.call('jobs.enqueue', { queue: 'op-group', kind: 'export', group: 'customer:1' })).job;
  const claim = async (): Promise<string[]> => (await client.call('jobs.claim', { workerId: 'op-group-w', queues: ['op-group'], kinds: ['export'], max: 5 })).jobs.map((j) => j.id);
  assert.deepEqual(await claim(), [first.id]);
  assert.deepEqual(await claim(), [], 'customer:1 is at its limit');
  const moved = await spool(['job', 'edit', second.id, '--group', 'customer:2']);
  assert.equal(moved.code, 0, moved.stderr);
  assert.equal(moved.stdout, `Changed job ${second.id}:\n  group: customer:1 → customer:2\n`);
  const none = await spool(['job', 'edit', third.id, '--group', 'none']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /group: customer:1 → none/);
  assert.deepEqual((await claim()).sort(), [second.id, third.id].sort());
  const bad = await spool(['job', 'edit', first.id, '--group', 'x']);
  assert.equal(bad.code, 1, 'a running job cannot move');
  const { job: waiting } = await client.call('jobs.enqueue', { queue: 'op-group', kind: 'export', delayMs: 3_600_000 });
  const refused = await spool(['job', 'edit', waiting.id, '--group', 'bad key']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /group/);
});

test('job edit --editor applies the fields changed in the file, written 0600 in a 0700 folder; an unchanged or invalid file applies nothing', async (t) => {
  const dir = tempDir(t, 'spool-editor-');
  const { job } = await client.call('jobs.enqueue', { queue: 'op-editor', kind: 'k', payload: { n: 1 }, delayMs: 3_600_000 });
  const editor = scriptedEditor(dir, 'edit.sh', `sed -i -e 's/"priority": 0/"priority": 7/' -e 's/"n": 1/"n": 2/' "$1"`);
  const r = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: editor, VISUAL: '' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /priority: 0 → 7\n {2}payload: \{"n":1\} → \{"n":2\}\n$/);
  assert.deepEqual(fs.readFileSync(`${editor}.mode`, 'utf8').trim().split('\n'), ['600', '700']);
  const stored = (await client.call('jobs.get', { id: job.id })).job;
  assert.deepEqual([stored.priority, stored.payload], [7, { n: 2 }]);

  const untouched = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: scriptedEditor(dir, 'noop.sh', 'true'), VISUAL: '' });
  assert.equal(untouched.code, 0, untouched.stderr);
  assert.match(untouched.stderr, /The file was not changed; nothing was applied\./);

  const broken = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: scriptedEditor(dir, 'break.sh', `printf '{"priority": 9,' > "$1"`), VISUAL: '' });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /^spool: Nothing was applied: it is not JSON/);
  const unknown = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: scriptedEditor(dir, 'unknown.sh', `printf '{"priority": 9, "queue": "other"}' > "$1"`), VISUAL: '' });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /"queue" is not a field that can change/);
  assert.equal((await client.call('jobs.get', { id: job.id })).job.priority, 7, 'nothing was applied');
});

test('job edit --editor shows the group and moves the job to the group typed in the file; a group that is not a string is refused', async (t) => {
  const dir = tempDir(t, 'spool-editor-');
  const { job } = await client.call('jobs.enqueue', { queue: 'op-editor-group', kind: 'k', delayMs: 3_600_000 });
  const moved = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: scriptedEditor(dir, 'group.sh', `sed -i 's/"group": null/"group": "customer:9"/' "$1"`), VISUAL: '' });
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, /group: none → customer:9\n$/);
  assert.equal((await client.call('jobs.get', { id: job.id })).job.group, 'customer:9');
  const bad = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: scriptedEditor(dir, 'badgroup.sh', `sed -i 's/"group": "customer:9"/"group": 42/' "$1"`), VISUAL: '' });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /group must be a group key such as "customer:42", or null for none \(got 42\)/);
  const cleared = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: scriptedEditor(dir, 'nogroup.sh', `sed -i 's/"group": "customer:9"/"group": null/' "$1"`), VISUAL: '' });
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.equal((await client.call('jobs.get', { id: job.id })).job.group, null);
});

test('job edit --editor refuses, applying nothing, when the job started while the file was open', async (t) => {
  const dir = tempDir(t, 'spool-editor-');
  const { job } = await client.call('jobs.enqueue', { queue: 'op-started', kind: 'k' });
  // The editor changes the file, and meanwhile a worker takes the job.
  const claim = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.resolve(__dirname, '..', '..', 'bin', 'spool'))} rpc jobs.claim '{"workerId":"w","queues":["op-started"],"kinds":["k"]}' > /dev/null`;
  const editor = scriptedEditor(dir, 'race.sh', `sed -i 's/"priority": 0/"priority": 3/' "$1"\n${claim}`);
  const r = await spool(['job', 'edit', job.id, '--editor'], { EDITOR: editor, VISUAL: '' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^spool: Nothing was applied: job ${job.id} is running now; it changed while it was being edited\\. Cancel it \\(spool cancel ${job.id}\\) or wait for it to end\\.\\n$`));
  const stored = (await client.call('jobs.get', { id: job.id })).job;
  assert.deepEqual([stored.state, stored.priority], ['running', 0]);
});

test('job run-now makes a delayed job due; a running one is refused', async () => {
  const { job } = await client.call('jobs.enqueue', { queue: 'op-now', kind: 'k', delayMs: 3_600_000 });
  const r = await spool(['job', 'run-now', job.id]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `Job ${job.id} is due now: it starts when a worker of queue op-now takes it.\n`);
  assert.ok((await client.call('jobs.get', { id: job.id })).job.runAt <= Date.now());
  await client.call('jobs.claim', { workerId: 'w', queues: ['op-now'], kinds: ['k'] });
  const refused = await spool(['job', 'run-now', job.id]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Cannot run job .* now: only queued or retrying jobs can, and it is running/);
});

test('hold and release by id and by filter across queues, printing the count', async () => {
  const ids: string[] = [];
  for (const queue of ['op-h1', 'op-h2', 'op-h3']) for (let i = 0; i < 2; i += 1) ids.push((await client.call('jobs.enqueue', { queue, kind: 'op-held' })).job.id);
  const one = await spool(['hold', ids[0] ?? '']);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, 'Held 1 job.\n');
  const dry = await spool(['hold', '--kind', 'op-held', '--state', 'queued', '--dry-run']);
  assert.equal(dry.stdout, 'Would hold 5 jobs in 3 queues; nothing was changed.\n', dry.stderr);
  const dryTwo = await spool(['hold', '--queue', 'op-h2,op-h3', '--kind', 'op-held', '--state', 'queued', '--dry-run']);
  assert.equal(dryTwo.stdout, 'Would hold 4 jobs in 2 queues; nothing was changed.\n', dryTwo.stderr);
  const many = await spool(['hold', '--kind', 'op-held', '--state', 'queued']);
  assert.equal(many.stdout, 'Held 5 jobs.\n', many.stderr);
  const listed = await spool(['jobs', '--state', 'held', '--kind', 'op-held', '--json']);
  assert.equal(JSON.parse(listed.stdout).jobs.length, 6);
  const some = await spool(['release', '--queue', 'op-h1,op-h2']);
  assert.equal(some.stdout, 'Released 4 jobs.\n', some.stderr);
  const rest = await spool(['release', '--kind', 'op-held']);
  assert.equal(rest.stdout, 'Released 2 jobs.\n', rest.stderr);
  for (const id of ids) assert.equal((await client.call('jobs.get', { id })).job.state, 'queued');
  const priority = await spool(['edit', '--priority', '5', '--kind', 'op-held']);
  assert.equal(priority.stdout, 'Set the priority of 6 jobs.\n', priority.stderr);
  for (const id of ids) assert.equal((await client.call('jobs.get', { id })).job.priority, 5);
});

test('pause --all: no job is claimed on any queue and daemon status says so; resume --all lets them run', async () => {
  const { job } = await client.call('jobs.enqueue', { queue: 'op-all', kind: 'op-all' });
  const paused = await spool(['pause', '--all']);
  assert.equal(paused.code, 0, paused.stderr);
  assert.equal(paused.stdout, 'Paused every queue: no job starts until spool resume --all; running jobs finish.\n');
  const status = await spool(['daemon', 'status']);
  assert.match(status.stdout, /\nqueues: +ALL PAUSED: no job starts on any queue until spool resume --all\n/);
  assert.deepEqual(await client.call('jobs.claim', { workerId: 'w-all', queues: ['op-all'], kinds: ['op-all'] }), { jobs: [] });
  assert.equal((await client.call('stats.get')).allPaused, true);
  const bare = await spool(['pause']);
  assert.equal(bare.code, 1);
  assert.match(bare.stderr, /Say what to pause: spool pause --all for every queue, or spool queue <name> pause for one\./);
  const resumed = await spool(['resume', '--all']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.doesNotMatch((await spool(['daemon', 'status'])).stdout, /ALL PAUSED/);
  const claimed = await client.call('jobs.claim', { workerId: 'w-all', queues: ['op-all'], kinds: ['op-all'] });
  assert.deepEqual(claimed.jobs.map((j) => j.id), [job.id]);
});
