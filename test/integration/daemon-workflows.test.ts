/**
 * Workflow runs in a real daemon over its socket: a workflow read from a jobs file and sent
 * inline (`definition`) runs its shell steps in order, the matrix step once per value, and the
 * run ends succeeded; `workflows.get` shows every job with what it waited for, and
 * `workflows.changed` tells a subscriber of the run's progress until it ends. The same workflow
 * applied from the file runs by name.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseJobsFile } from '../../shared/jobsfile';
import type { WorkflowRunChange } from '../../shared/protocol/workflows';
import { startDaemon, waitFor } from '../helpers/daemon';

function fileText(log: string): string {
  return JSON.stringify({
    project: 'wf',
    queues: { builds: {} },
    workflows: {
      release: {
        description: 'Build, test on each target, clean up',
        params: { version: { type: 'string' } },
        steps: {
          build: { queue: 'builds', shell: `echo build {{version}} >> ${log}` },
          test: { queue: 'builds', shell: `echo test {{target}} >> ${log}`, needs: ['build'], matrix: { target: ['linux', 'mac'] } },
          cleanup: { queue: 'builds', shell: `echo cleanup >> ${log}`, needs: [{ step: 'test', on: 'finished' }] },
        },
      },
    },
  });
}

test('a workflow sent inline runs step by step to succeeded; workflows.get and workflows.changed show it', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const log = path.join(daemon.dir, 'steps.log');
  const parsed = parseJobsFile(fileText(log));
  assert.deepEqual(parsed.problems.filter((p) => p.severity === 'error'), []);
  const definition = parsed.workflows[0];
  assert.ok(definition);
  const changes: WorkflowRunChange[] = [];
  await client.subscribe({ topics: ['workflows'] }, { 'workflows.changed': (change) => changes.push(change) });
  const started = await client.call('workflows.run', { workflow: 'release', params: { version: '1.2' }, definition });
  assert.equal(started.run.state, 'running');
  assert.equal(started.run.source, 'user');
  assert.deepEqual(started.run.params, { version: '1.2' });
  assert.deepEqual(started.jobs.map((j) => j.label), ['build', 'test (linux)', 'test (mac)', 'cleanup']);
  assert.equal(started.run.counts.queued + started.run.counts.running + started.run.counts.completed, 1, 'only build may start');
  assert.equal(started.run.counts.blocked, 3);
  await waitFor('the run to end', async () => (await client.call('workflows.get', { id: started.run.id })).state !== 'running');
  const detail = await client.call('workflows.get', { id: started.run.id });
  assert.equal(detail.state, 'succeeded');
  assert.equal(detail.counts.completed, 4);
  assert.ok(detail.endedAt !== null);
  assert.deepEqual(detail.steps.map((s) => s.name), ['build', 'test', 'cleanup']);
  const byLabel = new Map(detail.jobs.map((j) => [j.label, j]));
  assert.deepEqual(byLabel.get('test (mac)')?.matrix, { target: 'mac' });
  assert.deepEqual(byLabel.get('test (linux)')?.dependsOn, [{ id: byLabel.get('build')?.id, on: 'succeeded' }]);
  assert.deepEqual(byLabel.get('cleanup')?.dependsOn.map((d) => d.on), ['finished', 'finished']);
  const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'build 1.2');
  assert.deepEqual(lines.slice(1, 3).sort(), ['test linux', 'test mac']);
  assert.equal(lines[3], 'cleanup');
  await waitFor('workflows.changed to tell of the end', () => changes.some((c) => c.id === started.run.id && c.state === 'succeeded'));
  const job = await client.call('jobs.get', { id: byLabel.get('build')?.id ?? '' });
  assert.equal(job.job.workflowRunId, started.run.id);
  assert.equal(job.job.step, 'build');
});

test('a workflow applied from the file runs by name, is listed with its last run, and unknown names and ids are refused by name', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const log = path.join(daemon.dir, 'steps.log');
  const parsed = parseJobsFile(fileText(log));
  assert.ok(parsed.declaration);
  const applied = await client.call('project.apply', { project: 'wf', file: parsed.declaration });
  assert.deepEqual(applied.changes.map((c) => [c.action, c.type, c.name]), [['create', 'queue', 'builds'], ['create', 'workflow', 'release']]);
  const started = await client.call('workflows.run', { workflow: 'release', params: { version: '2.0' } });
  await waitFor('the run to end', async () => (await client.call('workflows.get', { id: started.run.id })).state === 'succeeded');
  const { workflows } = await client.call('workflows.list', {});
  assert.deepEqual(workflows.map((w) => [w.name, w.owner, w.lastRun?.id, w.lastRun?.state]), [['release', 'wf', started.run.id, 'succeeded']]);
  await assert.rejects(client.call('workflows.run', { workflow: 'nope' }), (e: { data?: { workflow?: string }; message: string }) => e.data?.workflow === 'nope' && /No workflow named "nope"/.test(e.message));
  await assert.rejects(client.call('workflows.run', { workflow: 'release' }), (e: { data?: { field?: string } }) => e.data?.field === 'params');
  const missing = '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b';
  await assert.rejects(client.call('workflows.get', { id: missing }), (e: { data?: { id?: string }; message: string }) => e.data?.id === missing && e.message.includes(missing));
  await assert.rejects(client.call('workflows.get', { id: 'x' }), (e: { data?: { field?: string } }) => e.data?.field === 'id');
  const runs = await client.call('workflows.runs', { workflow: 'release' });
  assert.deepEqual(runs.runs.map((r) => r.id), [started.run.id]);
});

test('a daemon killed with -9 mid-run loses no step, runs none twice at once, and the restarted daemon finishes the run', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const log = path.join(daemon.dir, 'steps.log');
  const go = path.join(daemon.dir, 'go');
  // Each step writes a line as it starts and as it ends; build waits for the test's go.
  const step = (name: string, body = ''): string => `echo "start ${name}" >> ${log}; ${body} echo "end ${name}" >> ${log}`;
  const parsed = parseJobsFile(
    JSON.stringify({
      project: 'wf',
      queues: { builds: {} },
      workflows: {
        release: {
          steps: {
            build: { queue: 'builds', shell: step('build', `until [ -f ${go} ]; do sleep 0.05; done;`) },
            test: { queue: 'builds', shell: step('test-{{target}}'), needs: ['build'], matrix: { target: ['linux', 'mac'] } },
            cleanup: { queue: 'builds', shell: step('cleanup'), needs: [{ step: 'test', on: 'finished' }] },
          },
        },
      },
    }),
  );
  const definition = parsed.workflows[0];
  assert.ok(definition);
  const started = await client.call('workflows.run', { workflow: 'release', definition });
  const lines = (): string[] => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []);
  await waitFor('build to start', () => lines().includes('start build'));

  await daemon.kill();
  await daemon.restart();
  const after = await daemon.client();
  // The restarted daemon stops the killed daemon's build before running it again.
  await waitFor('build to start again', () => lines().filter((l) => l === 'start build').length === 2);
  fs.writeFileSync(go, '');
  await waitFor('the run to end', async () => (await after.call('workflows.get', { id: started.run.id })).state !== 'running', 60_000);

  const detail = await after.call('workflows.get', { id: started.run.id });
  assert.equal(detail.state, 'succeeded');
  assert.equal(detail.counts.completed, 4);
  const seen = lines();
  // Every step ended once; no step started again while a start of it had not ended, except the
  // build the kill interrupted (its first start never ended).
  for (const name of ['build', 'test-linux', 'test-mac', 'cleanup']) assert.equal(seen.filter((l) => l === `end ${name}`).length, 1, `${name} ended once`);
  assert.deepEqual(seen.slice(0, 2), ['start build', 'start build']);
  assert.equal(seen[2], 'end build');
  assert.ok(seen.indexOf('end build') < seen.indexOf('start test-linux') && seen.indexOf('end build') < seen.indexOf('start test-mac'), 'tests started after build ended');
  assert.equal(seen.indexOf('start cleanup'), seen.length - 2, 'cleanup started after every test ended');
  const build = detail.jobs.find((j) => j.step === 'build');
  assert.ok(build);
  const { runs } = await after.call('jobs.get', { id: build.id });
  assert.equal(runs.length, 2, 'build ran once more after the kill, and no more');
  assert.notEqual(runs[0]?.outcome, 'completed');
});
