/**
 * Workflow runs through the `spool` command as a real process against a real daemon that runs the
 * shell steps itself: `spool run WORKFLOW --wait` on a run that succeeds (exit 0) and one that
 * fails (exit 1), a line per step; `spool workflow show` drawing the steps with their states;
 * `spool workflow cancel` on a running run; `spool workflow retry` re-running only the failed part;
 * runs named by a part of their id; parameters refused before anything is sent; `spool workflows`
 * listing the file's workflows with their last run and the recent runs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { WorkflowRunDetail } from '../../shared/protocol/workflows';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli, type CliResult } from './cli-run';

let daemon: TestDaemon;
let client: SpoolClient;
let dir: string;

/** The project's file: each workflow shows one behaviour; `DIR` is the test's folder. */
const FILE = (folder: string): string => `{
  "project": "cli-wf-runs",
  "queues": { "wf-builds": { "concurrency": 4 } },
  "workflows": {
    "ok": {
      "description": "build, test on two targets, clean up",
      "params": { "version": { "type": "string" }, "count": { "type": "number", "default": "1" } },
      "steps": {
        "build":   { "queue": "wf-builds", "shell": "echo build {{version}}" },
        "test":    { "queue": "wf-builds", "shell": "echo test {{target}}", "needs": ["build"], "matrix": { "target": ["linux", "mac"] } },
        "cleanup": { "queue": "wf-builds", "shell": "echo clean", "needs": [{ "step": "test", "on": "finished" }] }
      }
    },
    "bad": {
      "steps": {
        "build":   { "queue": "wf-builds", "shell": "echo broken >&2; exit 3", "attempts": 1 },
        "deploy":  { "queue": "wf-builds", "shell": "echo deploy", "needs": ["build"] },
        "cleanup": { "queue": "wf-builds", "shell": "echo clean", "needs": [{ "step": "build", "on": "finished" }] }
      }
    },
    "slow": {
      "steps": {
        "wait":    { "queue": "wf-builds", "shell": "touch ${folder}/slow-started; sleep 60" },
        "after":   { "queue": "wf-builds", "shell": "echo after", "needs": ["wait"] },
        "cleanup": { "queue": "wf-builds", "shell": "echo clean", "needs": [{ "step": "wait", "on": "finished" }] }
      }
    },
    "flaky": {
      "steps": {
        "build":  { "queue": "wf-builds", "shell": "echo built" },
        "test":   { "queue": "wf-builds", "shell": "test -f ${folder}/fixed || { echo not yet >&2; exit 2; }", "needs": ["build"], "attempts": 1 },
        "deploy": { "queue": "wf-builds", "shell": "echo deployed", "needs": ["test"] }
      }
    }
  }
}
`;

const spool = (args: string[]): Promise<CliResult> => runCli(args, { socketPath: daemon.socketPath, cwd: dir, timeoutMs: 120_000 });

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-cli-wf-runs-'));
  fs.writeFileSync(path.join(dir, 'spool.jsonc'), FILE(dir));
  daemon = await startDaemon();
  client = await daemon.client();
});

after(async () => {
  await daemon.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function runOf(id: string): Promise<WorkflowRunDetail> {
  return await client.call('workflows.get', { id });
}

/** The run id of the last line of a --wait's output. */
function runIdIn(stdout: string): string {
  const id = /Run ([0-9a-f-]{36}) of/.exec(stdout)?.[1];
  assert.ok(id !== undefined, stdout);
  return id;
}

test('spool run WORKFLOW --wait runs the file\'s workflow, a line per step as it starts and succeeds, and exits 0 when it succeeded', async () => {
  const result = await spool(['run', 'ok', '--param', 'version=1.2', '--wait']);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  assert.match(result.stderr, /Started run [0-9a-f-]{36} of workflow ok from spool\.jsonc: 4 jobs/);
  for (const label of ['build', 'test \\(linux\\)', 'test \\(mac\\)', 'cleanup']) {
    assert.match(result.stdout, new RegExp(`^succeeded {2}${label}( in \\S+)?$`, 'm'), result.stdout);
  }
  const lines = result.stdout.split('\n');
  assert.ok(lines.findIndex((l) => l.startsWith('succeeded  build')) < lines.findIndex((l) => l.startsWith('succeeded  test (linux)')), 'build before its tests');
  assert.match(result.stdout, /^Run [0-9a-f-]{36} of ok succeeded in \S+: 4 succeeded\.$/m);
  const run = await runOf(runIdIn(result.stdout));
  assert.equal(run.state, 'succeeded');
  assert.deepEqual(run.params, { version: '1.2', count: '1' });
});

test('a run that fails exits 1: the failed step, the steps cancelled because of it, the cleanup that ran anyway', async () => {
  const result = await spool(['run', 'bad', '--wait']);
  assert.equal(result.code, 1, result.stderr + result.stdout);
  assert.match(result.stdout, /^failed {5}build/m);
  assert.match(result.stdout, /^cancelled {2}deploy/m);
  assert.match(result.stdout, /^succeeded {2}cleanup/m);
  assert.match(result.stdout, /^Run ([0-9a-f-]{36}) of bad failed in \S+: 1 succeeded, 1 failed, 1 cancelled\. Retry the failed part with `spool workflow retry \1`\.$/m);
});

test('spool workflow show draws the steps by stage with their states, by a unique part of the run id; --json prints the run', async () => {
  const ran = await spool(['run', 'bad', '--wait']);
  const id = runIdIn(ran.stdout);
  const shown = await spool(['workflow', 'show', id.slice(-8)]);
  assert.equal(shown.code, 0, shown.stderr);
  const lines = shown.stdout.split('\n');
  assert.match(lines[0] ?? '', new RegExp(`^bad {2}run ${id} {2}failed {2}took \\S+, ended `));
  // Stage 1: build; stage 2: deploy and cleanup, one under the other, right of build.
  const names = lines.find((l) => l.startsWith('build'));
  assert.ok(names !== undefined, shown.stdout);
  assert.match(names, /^build +→ +deploy$/);
  assert.match(shown.stdout, /^failed \S+\s+cancelled$/m);
  assert.match(shown.stdout, /^\s+cleanup$/m);
  assert.match(shown.stdout, /^\s+after build \(finished\)$/m);
  assert.match(shown.stdout, /^\s+succeeded \S+$/m);
  const byStart = await spool(['workflow', 'show', id.slice(0, 28), '--json']);
  assert.equal(byStart.code, 0, byStart.stderr);
  const json = JSON.parse(byStart.stdout) as WorkflowRunDetail;
  assert.equal(json.id, id);
  assert.deepEqual(
    json.steps.map((s) => s.name),
    ['build', 'deploy', 'cleanup'],
  );
  assert.deepEqual(json.jobs.map((j) => [j.label, j.state]).sort(), [
    ['build', 'dead'],
    ['cleanup', 'completed'],
    ['deploy', 'cancelled'],
  ]);
  // Narrow: one step under another, indented by stage.
  const narrow = await runCli(['workflow', 'show', id], { socketPath: daemon.socketPath, cwd: dir, env: { COLUMNS: '20' } });
  assert.match(narrow.stdout, /^build\n {2}failed/m);
  assert.match(narrow.stdout, /^ {2}deploy\n {4}cancelled/m);
});

test('a run is named by its whole id or a unique part of it; anything else is refused with what to give', async () => {
  const tooShort = await spool(['workflow', 'show', 'ab']);
  assert.equal(tooShort.code, 1);
  assert.match(tooShort.stderr, /"ab" is not a run id: give the whole id, or at least 4 of its first or last characters/);
  const none = await spool(['workflow', 'show', 'ffffffffff']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No run id begins or ends with ffffffffff\. List runs with `spool workflows`\./);
  // Runs started within a minute share their first 8 characters (the time comes first).
  const { runs } = await client.call('workflows.runs', { limit: 2 });
  const [a, b] = runs;
  assert.ok(a !== undefined && b !== undefined);
  let shared = 0;
  while (a.id[shared] === b.id[shared]) shared++;
  const ambiguous = await spool(['workflow', 'show', a.id.slice(0, Math.max(4, shared))]);
  assert.equal(ambiguous.code, 1);
  assert.match(ambiguous.stderr, /More than one run id begins or ends with/);
});

test('spool workflow cancel cancels every job that has not ended, the running one included, and names them', async () => {
  fs.rmSync(path.join(dir, 'slow-started'), { force: true });
  const started = await spool(['run', 'slow']);
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.match(started.stderr, new RegExp(`Watch it with \`spool workflow wait ${id}\``));
  await waitFor('the slow step to run', () => fs.existsSync(path.join(dir, 'slow-started')), 60_000);
  const cancelled = await spool(['workflow', 'cancel', id.slice(-10)]);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.match(cancelled.stdout, new RegExp(`^Cancelled \\d jobs? of run ${id} \\(slow\\): .*wait \\((was running|stopping)\\)`, 'm'));
  const waited = await spool(['workflow', 'wait', id]);
  assert.equal(waited.code, 1, waited.stdout);
  assert.match(waited.stdout, /of slow cancelled in/);
  const run = await runOf(id);
  assert.equal(run.state, 'cancelled');
  assert.deepEqual(Object.fromEntries(run.jobs.map((j) => [j.step, j.state])), { wait: 'cancelled', after: 'cancelled', cleanup: 'cancelled' });
  const again = await spool(['workflow', 'cancel', id]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Nothing to cancel/);
});

test('spool workflow retry runs again only the failed step and what depends on it; the step that succeeded keeps its result', async () => {
  fs.rmSync(path.join(dir, 'fixed'), { force: true });
  const first = await spool(['run', 'flaky', '--wait']);
  assert.equal(first.code, 1, first.stdout + first.stderr);
  const id = runIdIn(first.stdout);
  const before = await runOf(id);
  const build = before.jobs.find((j) => j.step === 'build');
  assert.equal(build?.state, 'completed');
  fs.writeFileSync(path.join(dir, 'fixed'), '');
  const retried = await spool(['workflow', 'retry', id.slice(-8), '--wait']);
  assert.equal(retried.code, 0, retried.stdout + retried.stderr);
  assert.match(retried.stdout, new RegExp(`^Retrying 2 jobs of run ${id} \\(flaky\\): test \\(was failed\\), deploy \\(was cancelled\\)\\. build keeps its result\\. The run (is running again|has ended again: succeeded)\\.$`, 'm'));
  assert.match(retried.stdout, /^succeeded {2}test/m);
  assert.match(retried.stdout, /^succeeded {2}deploy/m);
  assert.doesNotMatch(retried.stdout, /^\w+ +build/m, 'build did not run again');
  assert.match(retried.stdout, /of flaky succeeded in/);
  const after = await runOf(id);
  assert.equal(after.state, 'succeeded');
  const buildAfter = after.jobs.find((j) => j.step === 'build');
  assert.equal(buildAfter?.attempts, build?.attempts);
  assert.equal(buildAfter?.finishedAt, build?.finishedAt);
  const nothing = await spool(['workflow', 'retry', id]);
  assert.match(nothing.stdout, /Nothing to retry/);
});

test('bad parameters are refused in the shared words before anything is sent', async () => {
  const count = async (): Promise<number> => (await client.call('workflows.runs', { limit: 500 })).runs.length;
  const runs = await count();
  const missing = await spool(['run', 'ok']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^spool: Cannot start a run: workflow "ok" needs a value for "version": it has no default \(give it with --param version=…\)\.$/m);
  const unknown = await spool(['run', 'ok', '-p', 'version=1', '-p', 'verison=2']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /workflow "ok" has no parameter "verison" \(its parameters: version, count\)\. Did you mean "version"\?/);
  const typed = await spool(['run', 'ok', '-p', 'version=1', '-p', 'count=many']);
  assert.equal(typed.code, 1);
  assert.match(typed.stderr, /parameter "count" of workflow "ok" must be a number \(got "many"\)/);
  const form = await spool(['run', 'ok', '-p', 'version']);
  assert.equal(form.code, 1);
  assert.match(form.stderr, /--param takes name=value \(got "version"\)/);
  assert.equal(await count(), runs, 'no run was started');
});

test('spool workflows lists the file\'s workflows with their last run, and the recent runs', async () => {
  const result = await spool(['workflows']);
  assert.equal(result.code, 0, result.stderr);
  const [header] = result.stdout.split('\n');
  assert.match(header ?? '', /^WORKFLOW\s+FROM\s+STEPS\s+JOBS\s+PARAMS\s+LAST RUN\s+DESCRIPTION$/);
  assert.match(result.stdout, /^ok\s+spool\.jsonc\s+3\s+4\s+version \(required\), count=1 number\s+succeeded (?:\S+ ago|just now)\s+build, test on two targets/m);
  assert.match(result.stdout, /^flaky\s+spool\.jsonc\s+3\s+3\s+-\s+succeeded /m);
  assert.match(result.stdout, /^RUN\s+WORKFLOW\s+STATE\s+JOBS\s+STARTED\s+TOOK$/m);
  assert.match(result.stdout, /^[0-9a-f-]{36}\s+flaky\s+succeeded\s+3: 3 succeeded\s+(?:\S+ ago|just now)\s+\S+$/m);
  const json = JSON.parse((await spool(['workflows', '--json'])).stdout) as { workflows: { name: string }[]; runs: { workflow: string }[] };
  assert.deepEqual(
    json.workflows.map((w) => w.name),
    ['ok', 'bad', 'slow', 'flaky'],
  );
  assert.ok(json.runs.length > 0);
});

test('shell completion offers workflow names after spool run and run ids after spool workflow show|wait|cancel|retry', async () => {
  const names = await spool(['__complete', 'workflows']);
  assert.equal(names.code, 0, names.stderr);
  assert.deepEqual(names.stdout.trim().split('\n').sort(), ['bad', 'flaky', 'ok', 'slow']);
  const ids = await spool(['__complete', 'runs']);
  const { runs } = await client.call('workflows.runs', { limit: 50 });
  assert.deepEqual(ids.stdout.split('\n').filter((l) => l !== ''), runs.map((r) => r.id));
  const bash = (await spool(['completion', 'bash'])).stdout;
  assert.match(bash, /"run"\|"workflows"\) COMPREPLY=\(\$\(compgen -W "\$\(_spool_names workflows\)"/);
  assert.match(bash, /"workflow show"\|"workflow wait"\|"workflow cancel"\|"workflow retry"\) COMPREPLY=\(\$\(compgen -W "\$\(_spool_names runs\)"/);
  assert.match(bash, /"workflow"\) words="show wait cancel retry /);
  const fish = (await spool(['completion', 'fish'])).stdout;
  assert.match(fish, /-n '__spool_is workflow show' -a '\(__spool_names runs\)'/);
});

test('a schedule that starts a workflow reads as one in spool schedules and spool schedule show, and spool schedule run starts a run', async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-cli-wf-schedule-'));
  try {
    fs.writeFileSync(
      path.join(folder, 'spool.jsonc'),
      JSON.stringify({
        project: 'cli-wf-schedule',
        queues: { 'wf-nightly': {} },
        workflows: { nightly: { params: { version: { type: 'string' } }, steps: { build: { queue: 'wf-nightly', shell: 'echo {{version}}' } } } },
        schedules: { 'nightly-build': { cron: '0 2 * * *', timezone: 'UTC', workflow: 'nightly', params: { version: 'nightly' } } },
      }),
    );
    const inFolder = (args: string[]): Promise<CliResult> => runCli(args, { socketPath: daemon.socketPath, cwd: folder, timeoutMs: 120_000 });
    const applied = await inFolder(['apply', '--yes']);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    const list = await inFolder(['schedules']);
    const row = list.stdout.split('\n').find((l) => l.startsWith('nightly-build'));
    assert.ok(row !== undefined, list.stdout);
    assert.match(row, /workflow: nightly$/);
    const shown = await inFolder(['schedule', 'show', 'nightly-build']);
    assert.match(shown.stdout, /^workflow:\s+nightly version=nightly$/m);
    assert.doesNotMatch(shown.stdout, /^job:/m);
    const ran = await inFolder(['schedule', 'run', 'nightly-build']);
    assert.equal(ran.code, 0, ran.stderr);
    const id = /Started run ([0-9a-f-]{36}) of workflow nightly\./.exec(ran.stdout)?.[1];
    assert.ok(id !== undefined, ran.stdout);
    await waitFor('the run to end', async () => (await runOf(id)).state !== 'running', 60_000);
    const run = await runOf(id);
    assert.equal(run.state, 'succeeded');
    assert.equal(run.source, 'schedule nightly-build');
    assert.deepEqual(run.params, { version: 'nightly' });
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
