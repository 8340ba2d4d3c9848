/**
 * `spool plan`, `spool apply` and `spool run` as processes against a real daemon: jobs files in
 * temporary folders, the CLI run in them, the daemon's objects read back over the socket.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { parseJobsFile } from '../../shared/jobsfile';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { parseJson, runCli, type CliResult } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
const folders: string[] = [];

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
});
after(async () => {
  await daemon?.dispose();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

/** A folder holding `spool.jsonc` with `text`. */
function project(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-jobsfile-'));
  folders.push(dir);
  fs.writeFileSync(path.join(dir, 'spool.jsonc'), text);
  return dir;
}

function rewrite(dir: string, text: string): void {
  fs.writeFileSync(path.join(dir, 'spool.jsonc'), text);
}

function spool(dir: string, ...args: string[]): Promise<CliResult> {
  return runCli(args, { socketPath: daemon.socketPath, cwd: dir });
}

interface PlanJson {
  changes: { action: string; type: string; name: string; note?: string; fields?: { field: string }[] }[];
  unmanaged: { type: string; name: string }[];
  drift: { type: string; name: string }[];
}

async function planOf(dir: string): Promise<PlanJson> {
  const result = await spool(dir, 'plan', '--json');
  assert.equal(result.code, 0, result.stderr);
  return parseJson<PlanJson>(result.stdout);
}

const summary = (plan: PlanJson): string[] => plan.changes.map((c) => `${c.action} ${c.type} ${c.name}`);

/** A jobs file of project `p`, its names prefixed so tests sharing the daemon never meet. */
function jobsFile(p: string, options: { schedule?: string; cron?: string; queues?: string } = {}): string {
  return `// the jobs file of ${p}
{
  "project": "${p}",
  "queues": ${options.queues ?? `{ "${p}-q": { "concurrency": 2, "timeout": "30s" } }`},
  "templates": {
    "${p}-echo": {
      "queue": "${p}-q",
      "kind": "shell",
      "command": "echo hello {{who}}",
      "params": { "who": { "default": "world" } }
    }
  },
  "schedules": {
    "${options.schedule ?? `${p}-nightly`}": { "cron": "${options.cron ?? '0 3 * * *'}", "template": "${p}-echo", "params": { "who": "night" } }
  }
}
`;
}

test('apply creates every object once; a second plan is all unchanged', async () => {
  const dir = project(jobsFile('alpha'));
  const plan = await planOf(dir);
  assert.deepEqual(summary(plan), ['create queue alpha-q', 'create template alpha-echo', 'create schedule alpha-nightly']);
  const applied = await spool(dir, 'apply', '--yes');
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stderr, /Applied 3 changes to project "alpha"/);
  const queue = (await client.call('queues.get', { name: 'alpha-q' })).queue;
  assert.deepEqual([queue.owner, queue.concurrency, queue.defaultTimeoutMs], ['alpha', 2, 30_000]);
  const schedule = (await client.call('schedules.get', { name: 'alpha-nightly' })).schedule;
  assert.deepEqual([schedule.owner, schedule.template, schedule.params, schedule.job.payload], ['alpha', 'alpha-echo', { who: 'night' }, { command: 'echo hello night' }]);
  assert.deepEqual(summary(await planOf(dir)), ['unchanged queue alpha-q', 'unchanged template alpha-echo', 'unchanged schedule alpha-nightly']);
  const table = await spool(dir, 'plan');
  assert.match(table.stdout, /0 to create, 0 to update, 0 to delete, 3 unchanged/);
});

test('plan --exit-code exits 2 with changes and 0 without', async () => {
  const dir = project(jobsFile('beta'));
  assert.equal((await spool(dir, 'plan', '--exit-code')).code, 2);
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  assert.equal((await spool(dir, 'plan', '--exit-code')).code, 0);
});

test('a renamed schedule shows as delete + create with a note, and apply renames it', async () => {
  const dir = project(jobsFile('gamma'));
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  rewrite(dir, jobsFile('gamma', { schedule: 'gamma-nocturnal' }));
  const plan = await planOf(dir);
  const create = plan.changes.find((c) => c.action === 'create');
  const del = plan.changes.find((c) => c.action === 'delete');
  assert.deepEqual([create?.name, del?.name], ['gamma-nocturnal', 'gamma-nightly']);
  assert.match(create?.note ?? '', /renamed from "gamma-nightly"/);
  assert.match(del?.note ?? '', /renamed to "gamma-nocturnal"/);
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  const names = (await client.call('schedules.list')).schedules.map((s) => s.name);
  assert.ok(names.includes('gamma-nocturnal') && !names.includes('gamma-nightly'), names.join(', '));
});

test('hand-made objects are listed as unmanaged and never touched', async () => {
  await client.call('jobs.enqueue', { queue: 'delta-hand', kind: 'nothing' });
  await client.call('schedules.create', { name: 'delta-hand-schedule', cron: '0 1 * * *', queue: 'delta-hand', job: { kind: 'nothing' } });
  const dir = project(jobsFile('delta'));
  const plan = await planOf(dir);
  assert.ok(plan.unmanaged.some((u) => u.type === 'queue' && u.name === 'delta-hand'));
  assert.ok(plan.unmanaged.some((u) => u.type === 'schedule' && u.name === 'delta-hand-schedule'));
  assert.ok(!plan.changes.some((c) => c.name.startsWith('delta-hand')));
  const text = await spool(dir, 'plan');
  // Counted by type, one line; --verbose lists them.
  assert.match(text.stdout, /^Unmanaged \(no project owns them; never touched\): \d+ queues?, \d+ schedules? \(spool plan --verbose lists them\)\.$/m);
  assert.doesNotMatch(text.stdout, /delta-hand-schedule/);
  const verbose = await spool(dir, 'plan', '--verbose');
  assert.match(verbose.stdout, /Unmanaged \(no project owns them; never touched\):[\s\S]*schedule delta-hand-schedule/);
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  const hand = (await client.call('schedules.get', { name: 'delta-hand-schedule' })).schedule;
  assert.deepEqual([hand.owner, hand.cron], [undefined, '0 1 * * *']);
  assert.equal((await client.call('queues.get', { name: 'delta-hand' })).queue.counts.queued, 1);
});

test('an invalid file changes nothing and names every problem as file:line:column', async () => {
  const dir = project(`{
  "project": "epsilon",
  "queues": { "epsilon-q": { "concurrency": 0 } },
  "schedules": { "epsilon-s": { "cron": "61 * * * *", "template": "missing" } }
}`);
  const result = await spool(dir, 'apply', '--yes');
  assert.equal(result.code, 1);
  assert.match(result.stderr, /spool\.jsonc:3:\d+: error: .*concurrency/);
  assert.match(result.stderr, /spool\.jsonc:4:\d+: error: .*cron/);
  assert.match(result.stderr, /spool\.jsonc:4:\d+: error: .*template/);
  assert.match(result.stderr, /nothing was sent to the daemon/);
  const queues = (await client.call('queues.list')).queues.map((q) => q.name);
  assert.ok(!queues.includes('epsilon-q'));
});

test('two applies at once, from two CLI processes, create each object once', async () => {
  const dir = project(jobsFile('zeta'));
  const results = await Promise.all([spool(dir, 'apply', '--yes'), spool(dir, 'apply', '--yes')]);
  // The second either found everything made (nothing to apply) or was refused because the
  // state moved under the plan it showed; it never creates twice.
  const ok = results.filter((r) => r.code === 0);
  assert.ok(ok.length >= 1, results.map((r) => r.stderr).join('\n---\n'));
  for (const r of results.filter((r) => r.code !== 0)) assert.match(r.stderr, /changed since the plan you saw/);
  assert.equal((await client.call('schedules.list')).schedules.filter((s) => s.name === 'zeta-nightly').length, 1);
  assert.equal((await client.call('templates.list')).templates.filter((t) => t.name === 'zeta-echo').length, 1);
  assert.deepEqual(summary(await planOf(dir)), ['unchanged queue zeta-q', 'unchanged template zeta-echo', 'unchanged schedule zeta-nightly']);
});

test('two clients calling project.apply at once: one creates, the other finds it all unchanged', async () => {
  const declaration = parseJobsFile(jobsFile('kappa')).declaration;
  assert.ok(declaration);
  const other = await daemon.client();
  const results = await Promise.all([client.call('project.apply', { project: 'kappa', file: declaration }), other.call('project.apply', { project: 'kappa', file: declaration })]);
  assert.deepEqual(results.map((r) => r.applied).sort(), [false, true]);
  const unchanged = results.find((r) => !r.applied);
  assert.deepEqual(unchanged?.changes.map((c) => c.action), ['unchanged', 'unchanged', 'unchanged']);
  assert.equal((await client.call('schedules.list')).schedules.filter((s) => s.name === 'kappa-nightly').length, 1);
});

test('a hand change is drift: plan calls it out, apply puts the file back', async () => {
  const dir = project(jobsFile('eta'));
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  const set = await spool(dir, 'queue', 'eta-q', 'set', '--concurrency', '7');
  assert.equal(set.code, 0, set.stderr);
  const plan = await planOf(dir);
  assert.deepEqual(plan.drift.map((d) => `${d.type} ${d.name}`), ['queue eta-q']);
  const update = plan.changes.find((c) => c.name === 'eta-q');
  assert.equal(update?.action, 'update');
  assert.deepEqual(update?.fields?.map((f) => f.field), ['concurrency']);
  const text = await spool(dir, 'plan');
  assert.match(text.stdout, /concurrency: 7 → 2/);
  assert.match(text.stdout, /Drift \(changed by hand since the last apply/);
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  assert.equal((await client.call('queues.get', { name: 'eta-q' })).queue.concurrency, 2);
  assert.deepEqual((await planOf(dir)).drift, []);
});

test('deleting a queue that holds jobs needs --force; without a terminal, apply needs --yes', async () => {
  const dir = project(jobsFile('theta', { queues: '{ "theta-q": {}, "theta-old": { "concurrency": 1 } }' }));
  const noTerminal = await spool(dir, 'apply');
  assert.equal(noTerminal.code, 1);
  assert.match(noTerminal.stderr, /pass --yes/i);
  assert.deepEqual(summary(await planOf(dir)).filter((s) => s.startsWith('create')).length, 4, 'nothing applied without --yes');
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  await client.call('jobs.enqueue', { queue: 'theta-old', kind: 'nothing' });
  rewrite(dir, jobsFile('theta', { queues: '{ "theta-q": {} }' }));
  const refused = await spool(dir, 'apply', '--yes');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /theta-old still holds jobs\. Pass --force/);
  assert.equal((await client.call('queues.get', { name: 'theta-old' })).queue.counts.queued, 1);
  const forced = await spool(dir, 'apply', '--yes', '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.ok(!(await client.call('queues.list')).queues.some((q) => q.name === 'theta-old'));
});

test('spool run enqueues a template with its parameters, and --wait follows it to the end', async () => {
  const dir = project(jobsFile('iota'));
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  const run = await spool(dir, 'run', 'iota-echo', '--param', 'who=there', '--json');
  assert.equal(run.code, 0, run.stderr);
  const job = parseJson<{ job: { queue: string; payload: unknown; context: unknown } }>(run.stdout).job;
  assert.deepEqual([job.queue, job.payload, job.context], ['iota-q', { command: 'echo hello there' }, { origin: 'template:iota-echo' }]);
  const waited = await spool(dir, 'run', 'iota-echo', '--wait');
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout, /hello world/);
  const bad = await spool(dir, 'run', 'iota-echo', '-p', 'whom=x');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /no parameter "whom".*Did you mean "who"/);
});

test('changing by hand a queue or schedule the jobs file owns warns that the next apply undoes it, naming the file', async () => {
  const dir = project(jobsFile('owned'));
  assert.equal((await spool(dir, 'apply', '--yes')).code, 0);
  const set = await spool(dir, 'queue', 'owned-q', 'set', '--concurrency', '3');
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stderr, /^Queue "owned-q" is declared in spool\.jsonc \(project "owned"\): the next `spool apply` puts the file's values back\. Change it in the file to keep the change\.$/m);
  const disabled = await spool(dir, 'schedule', 'disable', 'owned-nightly');
  assert.match(disabled.stderr, /^Schedule "owned-nightly" is declared in spool\.jsonc \(project "owned"\): the next `spool apply` puts the file's values back/m);
  // Elsewhere (no jobs file of that project here), the project is named instead.
  const elsewhere = project(jobsFile('other-owner'));
  const removed = await spool(elsewhere, 'schedule', 'rm', 'owned-nightly');
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stderr, /^Schedule "owned-nightly" is declared in the spool\.jsonc of project "owned": the next `spool apply` makes it again\./m);
  // A queue no project owns is changed without a word.
  await client.call('queues.configure', { name: 'owned-by-hand' });
  assert.equal((await spool(dir, 'queue', 'owned-by-hand', 'set', '--concurrency', '2')).stderr, '');
});
