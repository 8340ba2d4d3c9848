/**
 * Workflow runs on every store: a run's jobs are created together, each waiting for the jobs of
 * the steps it needs, or not at all; the run ends succeeded, failed or cancelled by the rule of
 * shared/protocol/workflows.ts, kept by the transactions that end its jobs; cancel and retry of
 * a run; retention around a run that has not ended; workflows applied, updated (naming the steps
 * changed) and deleted like templates.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJobsFile, planChanges, type Declaration } from '../../../shared/jobsfile';
import { ErrorCode } from '../../../shared/protocol';
import type { DeclaredWorkflow } from '../../../shared/protocol/projects';
import type { WorkflowRunDetail } from '../../../shared/protocol/workflows';
import type { Engine } from '../../../daemon/engine';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const HOUR = 3_600_000;

/** A step of queue `wf`, kind `k`, waiting for `needs` (a bare name waits for success). */
function step(name: string, needs: (string | { step: string; on: 'succeeded' | 'failed' | 'finished' })[] = [], matrix?: Record<string, string[]>): DeclaredWorkflow['steps'][number] {
  const s: DeclaredWorkflow['steps'][number] = {
    name,
    queue: 'wf',
    kind: 'k',
    payload: { step: name, version: '{{version}}' },
    options: {},
    needs: needs.map((n) => (typeof n === 'string' ? { step: n, on: 'succeeded' } : n)),
  };
  if (matrix !== undefined) {
    s.matrix = matrix;
    s.payload = { step: name, target: `{{${Object.keys(matrix)[0] ?? ''}}}` };
  }
  return s;
}

function workflow(steps: DeclaredWorkflow['steps']): DeclaredWorkflow {
  return { name: 'release', params: { version: { type: 'string', default: '1.0' } }, steps };
}

/**
 * Works every job that becomes due, in turns, until none is: a job of a step in `failing` fails
 * for good, the others complete with a result naming their step. The steps worked, in order.
 */
async function drive(engine: Engine, failing: readonly string[] = []): Promise<string[]> {
  const worked: string[] = [];
  for (;;) {
    const claimed = await engine.claim({ workerId: 'w', max: 100 });
    if (claimed.length === 0) return worked;
    for (const job of claimed) {
      worked.push(job.step ?? '');
      if (failing.includes(job.step ?? '')) await engine.fail({ id: job.id, workerId: 'w', error: 'boom', permanent: true });
      else await engine.complete({ id: job.id, workerId: 'w', result: { from: job.step } });
    }
  }
}

function states(detail: WorkflowRunDetail): Record<string, string> {
  return Object.fromEntries(detail.jobs.map((j) => [j.label, j.state]));
}

export function defineWorkflows(store: TestStoreFactory): void {
  test('workflows: a run creates every job at once, each blocked until the jobs of the steps it needs end; a refused run creates nothing', async (t) => {
    const { engine } = makeEngine(t, store);
    const definition = workflow([step('build'), step('test', ['build'], { target: ['linux', 'mac', 'win'] }), step('package', ['test'])]);
    const started = await engine.runWorkflow({ workflow: 'release', params: { version: '1.2' }, definition });
    assert.deepEqual(started.jobs.map((j) => j.label), ['build', 'test (linux)', 'test (mac)', 'test (win)', 'package']);
    assert.deepEqual([started.run.state, started.run.total, started.run.counts.queued, started.run.counts.blocked], ['running', 5, 1, 4]);
    const detail = await engine.getWorkflowRun({ id: started.run.id });
    const build = detail.jobs[0];
    assert.ok(build);
    assert.deepEqual(
      detail.jobs.map((j) => [j.label, j.state, j.dependsOn.length]),
      [
        ['build', 'queued', 0],
        ['test (linux)', 'blocked', 1],
        ['test (mac)', 'blocked', 1],
        ['test (win)', 'blocked', 1],
        ['package', 'blocked', 3],
      ],
    );
    const job = (await engine.getJob(build.id)).job;
    assert.deepEqual([job.step, job.workflowRunId, job.payload], ['build', started.run.id, { step: 'build', version: '1.2' }]);
    // A step's job says in its history which run of which workflow made it.
    assert.deepEqual(
      (await engine.jobHistory(build.id)).events.map((e) => [e.state, e.cause]),
      [['queued', `workflow release#${started.run.id.slice(-8)}`]],
    );
    assert.equal((await engine.jobHistory(detail.jobs[4]?.id ?? '')).events[0]?.state, 'blocked');
    assert.deepEqual(detail.jobs[2]?.matrix, { target: 'mac' });

    // The third step's job is invalid with these values (a shell job without a command): nothing is made.
    const before = (await engine.listJobs({ queue: 'wf' })).jobs.length;
    const bad = workflow([step('a'), step('b', ['a']), { ...step('c', ['b']), kind: 'shell', payload: { cwd: '/' } }]);
    const refused = await thrown(() => engine.runWorkflow({ workflow: 'release', definition: bad }));
    assert.equal(refused.code, ErrorCode.InvalidParams);
    assert.equal(refused.data.field, 'params');
    assert.match(refused.message, /Step "c"/);
    assert.equal((await engine.listJobs({ queue: 'wf' })).jobs.length, before);
    assert.deepEqual((await engine.listWorkflowRuns({})).runs.map((r) => r.id), [started.run.id]);
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('workflows: the definition sent is checked as an apply checks it, naming the field', async (t) => {
    const { engine } = makeEngine(t, store);
    const cases: [unknown, string, RegExp][] = [
      [workflow([step('a', ['nope'])]), 'definition.steps[0].needs[0].step', /names the step "nope"/],
      [workflow([step('a', ['b']), step('b', ['a'])]), 'definition.steps[1].needs', /cycle: a → b → a/],
      [{ ...workflow([step('a')]), name: 'other' }, 'definition.name', /must be the workflow the call names/],
      [{ ...workflow([step('a')]), extra: 1 }, 'definition.extra', /Unknown|unknown|not/],
    ];
    for (const [definition, field, message] of cases) {
      const error = await thrown(() => engine.runWorkflow({ workflow: 'release', definition }));
      assert.equal(error.code, ErrorCode.InvalidParams, field);
      assert.equal(error.data.field, field);
      assert.match(error.message, message);
    }
    const unknown = await thrown(() => engine.runWorkflow({ workflow: 'release', params: { versio: '1' }, definition: workflow([step('a')]) }));
    assert.match(unknown.message, /no parameter "versio".*Did you mean "version"/);
    const held = await thrown(() => engine.runWorkflow({ workflow: 'absent' }));
    assert.deepEqual([held.code, held.data.workflow], [ErrorCode.WorkflowNotFound, 'absent']);
    const missing = await thrown(() => engine.getWorkflowRun({ id: '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b' }));
    assert.deepEqual([missing.code, missing.data.id], [ErrorCode.WorkflowRunNotFound, '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b']);
    const limit = await thrown(() => engine.listWorkflowRuns({ limit: 501 }));
    assert.equal(limit.data.field, 'limit');
  });

  test('workflows: a run ends succeeded, with an on-failed step cancelled after a success not failing it', async (t) => {
    const { engine } = makeEngine(t, store);
    const definition = workflow([step('build'), step('deploy', ['build']), step('rollback', [{ step: 'deploy', on: 'failed' }]), step('cleanup', [{ step: 'deploy', on: 'finished' }])]);
    const { run } = await engine.runWorkflow({ workflow: 'release', definition });
    assert.deepEqual(await drive(engine), ['build', 'deploy', 'cleanup']);
    const detail = await engine.getWorkflowRun({ id: run.id });
    assert.deepEqual(states(detail), { build: 'completed', deploy: 'completed', rollback: 'cancelled', cleanup: 'completed' });
    assert.equal(detail.state, 'succeeded');
    assert.ok(detail.endedAt !== null);
    assert.deepEqual([detail.counts.completed, detail.counts.cancelled], [3, 1]);
  });

  test('workflows: a failure fails the run once its on-finished cleanup has run; the steps waiting for success are cancelled', async (t) => {
    const { engine } = makeEngine(t, store);
    const definition = workflow([step('build'), step('test', ['build']), step('cleanup', [{ step: 'test', on: 'finished' }])]);
    const { run } = await engine.runWorkflow({ workflow: 'release', definition });
    const worked: string[] = [];
    const [build] = await engine.claim({ workerId: 'w', max: 10 });
    assert.equal(build?.step, 'build');
    await engine.fail({ id: build?.id ?? '', workerId: 'w', error: 'boom', permanent: true });
    const midway = await engine.getWorkflowRun({ id: run.id });
    assert.deepEqual(states(midway), { build: 'dead', test: 'cancelled', cleanup: 'queued' });
    assert.equal(midway.state, 'running', 'the cleanup has not run yet');
    worked.push(...(await drive(engine)));
    assert.deepEqual(worked, ['cleanup']);
    const ended = await engine.getWorkflowRun({ id: run.id });
    assert.equal(ended.state, 'failed');
    assert.ok(ended.endedAt !== null);
  });

  test('workflows: cancel cancels every job not ended, asks a running one to stop, and the run ends cancelled', async (t) => {
    const { engine } = makeEngine(t, store);
    const definition = workflow([step('build'), step('lint'), step('test', ['build', 'lint']), step('cleanup', [{ step: 'test', on: 'finished' }])]);
    const { run } = await engine.runWorkflow({ workflow: 'release', definition });
    const claimed = await engine.claim({ workerId: 'w', max: 1 });
    const running = claimed[0];
    assert.ok(running);
    const result = await engine.cancelWorkflowRun({ id: run.id });
    assert.equal(result.changed, 4);
    assert.equal(result.run.state, 'running', 'a running job is asked to stop, and the run waits for it');
    const after = await engine.getWorkflowRun({ id: run.id });
    assert.deepEqual(after.jobs.map((j) => j.state).sort(), ['cancelled', 'cancelled', 'cancelled', 'running']);
    await engine.markCancelled(running.id, 'w');
    const ended = await engine.getWorkflowRun({ id: run.id });
    assert.equal(ended.state, 'cancelled');
    assert.equal((await engine.cancelWorkflowRun({ id: run.id })).changed, 0, 'an ended run has nothing to cancel');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('workflows: a purge of the queue its waiting jobs are in ends the run cancelled, as a forced queue delete does', async (t) => {
    const { engine } = makeEngine(t, store);
    const definition = workflow([step('build'), step('test', ['build']), step('ship', ['test'])]);
    const first = await engine.runWorkflow({ workflow: 'release', definition });
    const [build] = await engine.claim({ workerId: 'w', max: 1 });
    assert.ok(build);
    await engine.complete({ id: build.id, workerId: 'w', result: null });
    // The two jobs left wait: test is queued, ship blocked on it.
    assert.equal(await engine.purgeQueue({ name: 'wf', states: ['queued', 'blocked'] }), 2);
    const purged = await engine.getWorkflowRun({ id: first.run.id });
    assert.equal(purged.state, 'cancelled', 'a run whose waiting jobs were purged does not stay running');

    const second = await engine.runWorkflow({ workflow: 'release', definition });
    assert.equal(await engine.deleteQueue({ name: 'wf', force: true }), 4, 'the first run\'s build and the second run\'s three jobs');
    assert.equal((await engine.getWorkflowRun({ id: second.run.id })).state, 'cancelled');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('workflows: retry runs the failed part again, keeps succeeded jobs and their results, and the run ends succeeded', async (t) => {
    const { engine } = makeEngine(t, store);
    const definition = workflow([step('build'), step('test', ['build'], { target: ['linux', 'mac'] }), step('package', ['test']), step('cleanup', [{ step: 'package', on: 'finished' }])]);
    const { run } = await engine.runWorkflow({ workflow: 'release', definition });
    // test (mac) fails; test (linux) succeeds.
    let failedOnce = false;
    for (;;) {
      const claimed = await engine.claim({ workerId: 'w', max: 100 });
      if (claimed.length === 0) break;
      for (const job of claimed) {
        const mac = job.step === 'test' && (job.payload as { target?: string }).target === 'mac';
        if (mac && !failedOnce) {
          failedOnce = true;
          await engine.fail({ id: job.id, workerId: 'w', error: 'boom', permanent: true });
        } else await engine.complete({ id: job.id, workerId: 'w', result: { from: job.step } });
      }
    }
    const failed = await engine.getWorkflowRun({ id: run.id });
    assert.equal(failed.state, 'failed');
    assert.deepEqual(states(failed), { build: 'completed', 'test (linux)': 'completed', 'test (mac)': 'dead', package: 'cancelled', cleanup: 'completed' });
    const buildId = failed.jobs[0]?.id ?? '';
    const linuxId = failed.jobs[1]?.id ?? '';
    const retried = await engine.retryWorkflowRun({ id: run.id });
    assert.equal(retried.changed, 3, 'test (mac), package and cleanup');
    assert.equal(retried.run.state, 'running');
    const again = await engine.getWorkflowRun({ id: run.id });
    assert.deepEqual(states(again), { build: 'completed', 'test (linux)': 'completed', 'test (mac)': 'queued', package: 'blocked', cleanup: 'blocked' });
    assert.deepEqual(await drive(engine), ['test', 'package', 'cleanup']);
    const ended = await engine.getWorkflowRun({ id: run.id });
    assert.equal(ended.state, 'succeeded');
    assert.deepEqual((await engine.getJob(buildId)).job.result, { from: 'build' }, 'the kept job keeps its result');
    assert.equal((await engine.getJob(linuxId)).runs.length, 1, 'the kept job did not run again');
    assert.equal((await engine.verifyCounters()).ok, true);
  });

  test('workflows: retention keeps every job of a run that has not ended, and the run record goes with its last job', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.configureQueue({ name: 'wf', retentionMs: HOUR });
    const definition = workflow([step('build'), step('slow'), step('after', ['slow'])]);
    const { run } = await engine.runWorkflow({ workflow: 'release', definition });
    const claimed = await engine.claim({ workerId: 'w', max: 10 });
    const build = claimed.find((j) => j.step === 'build');
    assert.ok(build);
    await engine.complete({ id: build.id, workerId: 'w' });
    clock.advance(2 * HOUR);
    assert.equal(await engine.cleanup(), 0, 'build ended long ago, but its run has not');
    const slow = claimed.find((j) => j.step === 'slow');
    assert.ok(slow);
    await engine.complete({ id: slow.id, workerId: 'w' });
    await drive(engine);
    assert.equal((await engine.getWorkflowRun({ id: run.id })).state, 'succeeded');
    clock.advance(2 * HOUR);
    assert.equal(await engine.cleanup(), 3);
    const gone = await thrown(() => engine.getWorkflowRun({ id: run.id }));
    assert.equal(gone.code, ErrorCode.WorkflowRunNotFound);
  });

  test('workflows: apply creates, updates (naming the steps changed) and deletes a workflow like a template; a held workflow runs by name', async (t) => {
    const { engine } = makeEngine(t, store);
    const file = (test: string, extra = ''): Declaration => {
      const parsed = parseJobsFile(`{
        "project": "web",
        "queues": { "wf": {} },
        "workflows": {
          "release": {
            "params": { "version": { "type": "string", "default": "1.0" } },
            "steps": {
              "build": { "queue": "wf", "kind": "k", "payload": { "v": "{{version}}" } },
              "test": { "queue": "wf", "kind": "k", "payload": { "t": "${test}" }, "needs": ["build"] }
            }
          }${extra}
        }
      }`);
      assert.ok(parsed.declaration, parsed.problems.map((p) => p.message).join('\n'));
      return parsed.declaration;
    };
    const created = await engine.applyProject({ project: 'web', file: file('unit') });
    assert.deepEqual(created.changes.map((c) => `${c.action} ${c.type} ${c.name}`), ['create queue wf', 'create workflow release']);
    const listed = await engine.listWorkflows({});
    assert.deepEqual(listed.map((w) => [w.name, w.owner, w.steps.map((s) => s.name), w.lastRun]), [['release', 'web', ['build', 'test'], null]]);
    const plan = planChanges(file('all'), await engine.projectState({ project: 'web' }));
    const update = plan.changes.find((c) => c.type === 'workflow');
    assert.deepEqual([update?.action, update?.fields?.map((f) => f.field)], ['update', ['steps.test']]);
    const updated = await engine.applyProject({ project: 'web', file: file('all') });
    assert.equal(updated.applied, true);
    const { run } = await engine.runWorkflow({ workflow: 'release', params: { version: '2' } });
    const detail = await engine.getWorkflowRun({ id: run.id });
    assert.deepEqual(detail.steps.map((s) => [s.name, s.needs]), [['build', []], ['test', [{ step: 'build', on: 'succeeded' }]]]);
    assert.deepEqual((await engine.getJob(detail.jobs[1]?.id ?? '')).job.payload, { t: 'all' });
    assert.equal((await engine.listWorkflows({}))[0]?.lastRun?.id, run.id);
    const parsed = parseJobsFile('{ "project": "web", "queues": { "wf": {} } }');
    assert.ok(parsed.declaration);
    const deleted = await engine.applyProject({ project: 'web', file: parsed.declaration });
    assert.deepEqual(deleted.changes.filter((c) => c.action !== 'unchanged').map((c) => `${c.action} ${c.type} ${c.name}`), ['delete workflow release']);
    assert.deepEqual(await engine.listWorkflows({}), []);
    assert.equal((await engine.getWorkflowRun({ id: run.id })).id, run.id, 'its runs stay');
  });

  test('a schedule starts a workflow: a fire starts a run with source "schedule NAME", and overlap skip waits for the run to end', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const parsed = parseJobsFile(`{
      "project": "web",
      "queues": { "wf": {} },
      "workflows": {
        "release": {
          "params": { "version": { "type": "string" } },
          "steps": { "build": { "queue": "wf", "kind": "k", "payload": { "v": "{{version}}" } } }
        }
      },
      "schedules": { "nightly": { "cron": "* * * * *", "workflow": "release", "params": { "version": "2.0" }, "overlapPolicy": "skip" } }
    }`);
    assert.ok(parsed.declaration, parsed.problems.map((p) => p.message).join('\n'));
    await engine.applyProject({ project: 'web', file: parsed.declaration });
    const schedule = await engine.getSchedule('nightly');
    assert.deepEqual([schedule.workflow, schedule.params, schedule.overlapPolicy, schedule.lastRunId], ['release', { version: '2.0' }, 'skip', null]);
    const plan = planChanges(parsed.declaration, await engine.projectState({ project: 'web' }));
    assert.deepEqual(plan.changes.map((c) => c.action), ['unchanged', 'unchanged', 'unchanged'], 'a second plan finds nothing to change');

    const due = schedule.nextRunAt ?? 0;
    clock.ms = due;
    const first = await engine.fireSchedule({ name: 'nightly', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
    assert.ok(first?.run);
    assert.deepEqual([first.job, first.run.workflow, first.run.source, first.run.params, first.run.state], [null, 'release', 'schedule nightly', { version: '2.0' }, 'running']);
    assert.equal(first.schedule.lastRunId, first.run.id);

    clock.ms = due + 60_000;
    const second = await engine.fireSchedule({ name: 'nightly', expectedNextRunAt: due + 60_000, newNextRunAt: due + 120_000, enqueue: true });
    assert.equal(second?.run, undefined, 'no run while the last one is running');
    assert.equal(second?.schedule.nextRunAt, due + 120_000);

    assert.deepEqual(await drive(engine), ['build']);
    assert.equal((await engine.getWorkflowRun({ id: first.run.id })).state, 'succeeded');
    clock.ms = due + 120_000;
    const third = await engine.fireSchedule({ name: 'nightly', expectedNextRunAt: due + 120_000, newNextRunAt: due + 180_000, enqueue: true });
    assert.ok(third?.run, 'a run again once the last one ended');
    assert.notEqual(third.run.id, first.run.id);

    // Run now starts a run too, without moving the next tick, and gives its first job.
    const triggered = await engine.triggerSchedule('nightly');
    assert.deepEqual([triggered.run?.source, triggered.job.workflowRunId, triggered.job.step], ['schedule nightly', triggered.run?.id, 'build']);
    assert.equal((await engine.getSchedule('nightly')).nextRunAt, due + 180_000);
    assert.equal((await engine.getSchedule('nightly')).lastRunId, triggered.run?.id);
  });
}
