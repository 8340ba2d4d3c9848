import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextFireTime } from '../../../shared/domain/cron';
import { parseJobsFile, planChanges, type Declaration } from '../../../shared/jobsfile';
import { ErrorCode } from '../../../shared/protocol';
import { planHash } from '../../../shared/jobsfile';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

/** A declaration from jobs-file text, as the CLI sends it. */
function declare(text: string): Declaration {
  const parsed = parseJobsFile(text);
  assert.ok(parsed.declaration, parsed.problems.map((p) => p.message).join('\n'));
  return parsed.declaration;
}

function file(options: { cron?: string; queues?: string; overlap?: 'allow' | 'skip'; schedule?: string } = {}): Declaration {
  return declare(`{
    "project": "web",
    "queues": ${options.queues ?? '{ "emails": { "concurrency": 4, "rateLimit": "10/s", "timeout": "30s" } }'},
    "templates": {
      "send": { "queue": "emails", "kind": "mailer", "payload": { "to": "{{to}}" }, "params": { "to": { "default": "all" } } }
    },
    "schedules": {
      "${options.schedule ?? 'digest'}": { "cron": "${options.cron ?? '0 8 * * *'}", "template": "send", "params": { "to": "team" }, "overlapPolicy": "${options.overlap ?? 'allow'}" }
    }
  }`);
}

/** The jobs-as-code tests (templates, ownership, apply), run against the store `store` makes. */
export function defineProjects(store: TestStoreFactory): void {
  test('apply creates every object with its owner; the second plan is all unchanged', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    const first = await engine.applyProject({ project: 'web', file: file() });
    assert.equal(first.applied, true);
    assert.deepEqual(first.changes.map((c) => `${c.action} ${c.type} ${c.name}`), ['create queue emails', 'create template send', 'create schedule digest']);
    const queue = await engine.getQueue('emails');
    assert.deepEqual([queue.owner, queue.concurrency, queue.rateLimit, queue.defaultTimeoutMs], ['web', 4, { perSecond: 10, burst: 10 }, 30_000]);
    const schedule = await engine.getSchedule('digest');
    assert.deepEqual([schedule.owner, schedule.template, schedule.params, schedule.overlapPolicy, schedule.queue], ['web', 'send', { to: 'team' }, 'allow', 'emails']);
    assert.deepEqual(schedule.job, { kind: 'mailer', payload: { to: 'team' } });
    assert.equal(schedule.nextRunAt, nextFireTime({ cron: '0 8 * * *', timezone: 'UTC' }, clock.ms));
    assert.equal((await engine.getTemplate('send')).owner, 'web');

    const state = await engine.projectState({ project: 'web' });
    const plan = planChanges(file(), state);
    assert.deepEqual(plan.changes.map((c) => c.action), ['unchanged', 'unchanged', 'unchanged']);
    const second = await engine.applyProject({ project: 'web', file: file(), expected: planHash(plan) });
    assert.equal(second.applied, false);
  });

  test('two applies racing on two engines create each object once', async (t) => {
    const { engine, openShared } = makeEngine(t, store);
    const other = openShared();
    const results = await Promise.all([engine.applyProject({ project: 'web', file: file() }), other.applyProject({ project: 'web', file: file() })]);
    assert.deepEqual(results.map((r) => r.applied).sort(), [false, true]);
    assert.equal((await engine.listSchedules()).length, 1);
    assert.equal((await engine.listTemplates()).length, 1);
    assert.deepEqual((await engine.listQueues()).map((q) => q.name), ['emails']);
  });

  test('a refused apply changes nothing: a conflict with a hand-made object, or a stale expected plan', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.createSchedule({ name: 'digest', cron: '* * * * *', queue: 'hand', job: { kind: 'x' } }, null);
    const conflict = await thrown(() => engine.applyProject({ project: 'web', file: file() }));
    assert.equal(conflict.code, ErrorCode.InvalidState);
    assert.match(conflict.message, /schedule "digest" exists on the daemon, made by hand/);
    assert.deepEqual((await engine.listQueues()).map((q) => q.name), []);
    assert.deepEqual(await engine.listTemplates(), []);
    assert.equal((await engine.getSchedule('digest')).owner, undefined);

    const stale = await thrown(() => engine.applyProject({ project: 'web', file: file({ schedule: 'other' }), expected: 'not-the-plan' }));
    assert.equal(stale.code, ErrorCode.InvalidState);
    assert.match(stale.message, /changed since the plan you saw/);
    assert.deepEqual(await engine.listTemplates(), []);
  });

  test('an invalid declaration is refused naming the field, and changes nothing', async (t) => {
    const { engine } = makeEngine(t, store);
    const bad = { ...file(), schedules: [{ ...file().schedules[0], cron: 'not a cron' }] };
    const error = await thrown(() => engine.applyProject({ project: 'web', file: bad }));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data['field'], 'file.schedules[0].cron');
    const wrongProject = await thrown(() => engine.applyProject({ project: 'other', file: file() }));
    assert.equal(wrongProject.data['field'], 'file.project');
    const f = file();
    const cases: [unknown, string][] = [
      [{ ...f, queues: [...f.queues, ...f.queues] }, 'file.queues[1].name'],
      [{ ...f, templates: [] }, 'file.schedules[0].template'],
      [{ ...f, queues: [{ name: 'emails', settings: { concurrency: 0 } }] }, 'file.queues[0].settings.concurrency'],
      [{ ...f, schedules: [{ ...f.schedules[0], params: { to: 3 } }] }, 'file.schedules[0].params.to'],
      [{ ...f, templates: [{ ...f.templates[0], params: { 'bad name': {} } }] }, 'file.templates[0].params.bad name'],
    ];
    for (const [bad, field] of cases) {
      // A hand-built declaration, as a client that skipped the parser would send.
      const refused = await thrown(() => engine.applyProject({ project: 'web', file: bad as Declaration }));
      assert.deepEqual([refused.code, refused.data['field']], [ErrorCode.InvalidParams, field]);
    }
    assert.deepEqual(await engine.listQueues(), []);
  });

  test('a queue the file drops is deleted only with force when it holds jobs; hand-made objects stay', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.enqueue({ queue: 'hand-made', kind: 'x' });
    await engine.applyProject({ project: 'web', file: file({ queues: '{ "emails": {}, "old": { "concurrency": 1 } }' }) });
    await engine.enqueue({ queue: 'old', kind: 'x' });
    const dropped = file({ queues: '{ "emails": {} }' });
    const refused = await thrown(() => engine.applyProject({ project: 'web', file: dropped }));
    assert.equal(refused.code, ErrorCode.InvalidState);
    assert.match(refused.message, /--force/);
    assert.equal((await engine.getQueue('old')).counts.queued, 1);
    const forced = await engine.applyProject({ project: 'web', file: dropped, force: true });
    assert.ok(forced.changes.some((c) => c.action === 'delete' && c.name === 'old'));
    assert.deepEqual(forced.unmanaged, [{ type: 'queue', name: 'hand-made' }]);
    assert.deepEqual((await engine.listQueues()).map((q) => q.name), ['emails', 'hand-made']);
  });

  test('a hand change is drift, and apply puts the file back', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file() });
    await engine.configureQueue({ name: 'emails', concurrency: 9 });
    const plan = planChanges(file(), await engine.projectState({ project: 'web' }));
    assert.deepEqual(plan.drift, [{ type: 'queue', name: 'emails', fields: [{ field: 'concurrency', from: 4, to: 9 }] }]);
    await engine.applyProject({ project: 'web', file: file() });
    assert.equal((await engine.getQueue('emails')).concurrency, 4);
    assert.deepEqual(planChanges(file(), await engine.projectState({ project: 'web' })).drift, []);
  });

  test('a changed cron takes its next fire time from now, never at once; an unchanged one keeps it', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file() });
    const before = (await engine.getSchedule('digest')).nextRunAt;
    clock.advance(90_000);
    await engine.applyProject({ project: 'web', file: file({ overlap: 'skip' }) });
    assert.equal((await engine.getSchedule('digest')).nextRunAt, before);
    await engine.applyProject({ project: 'web', file: file({ cron: '*/5 * * * *' }) });
    const next = (await engine.getSchedule('digest')).nextRunAt;
    assert.equal(next, nextFireTime({ cron: '*/5 * * * *', timezone: 'UTC' }, clock.ms));
    assert.ok(next !== null && next > clock.ms);
  });

  test('overlap policy skip: a tick enqueues nothing while the last job is unfinished', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file({ overlap: 'skip', cron: '* * * * *' }) });
    const due = (await engine.getSchedule('digest')).nextRunAt ?? 0;
    clock.ms = due;
    const first = await engine.fireSchedule({ name: 'digest', expectedNextRunAt: due, newNextRunAt: due + 60_000, enqueue: true });
    assert.ok(first?.job);
    clock.ms = due + 60_000;
    const second = await engine.fireSchedule({ name: 'digest', expectedNextRunAt: due + 60_000, newNextRunAt: due + 120_000, enqueue: true });
    assert.equal(second?.job, null);
    assert.equal(second?.schedule.nextRunAt, due + 120_000);
    await engine.cancel(first.job.id);
    clock.ms = due + 120_000;
    const third = await engine.fireSchedule({ name: 'digest', expectedNextRunAt: due + 120_000, newNextRunAt: due + 180_000, enqueue: true });
    assert.ok(third?.job);
  });

  test('a template is enqueued by name with its parameters', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file() });
    const run = await engine.enqueueTemplate({ name: 'send', params: { to: 'ops' } });
    assert.deepEqual([run.job.queue, run.job.kind, run.job.payload, run.job.context], ['emails', 'mailer', { to: 'ops' }, { origin: 'template:send' }]);
    assert.deepEqual((await engine.enqueueTemplate({ name: 'send', project: 'web' })).job.payload, { to: 'all' });
    assert.equal((await thrown(() => engine.enqueueTemplate({ name: 'send', params: { too: 'x' } }))).data['field'], 'params');
    assert.equal((await thrown(() => engine.enqueueTemplate({ name: 'send', project: 'other' }))).data['field'], 'project');
    assert.equal((await thrown(() => engine.enqueueTemplate({ name: 'nope' }))).code, ErrorCode.TemplateNotFound);
  });

  test('a renamed schedule is a delete and a create, and the old one goes', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file() });
    const renamed = await engine.applyProject({ project: 'web', file: file({ schedule: 'morning' }) });
    const create = renamed.changes.find((c) => c.action === 'create');
    assert.equal(create?.renamedFrom, 'digest');
    assert.deepEqual((await engine.listSchedules()).map((s) => s.name), ['morning']);
  });

  test('a write the store refuses mid-apply rolls every write of the apply back', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file({ queues: '{ "emails": {}, "old": {} }' }) });
    await engine.enqueue({ queue: 'old', kind: 'x' });
    await engine.claim({ workerId: 'w', queues: ['old'], max: 1, kinds: ['x'] });
    // The plan creates "fresh" before it deletes "old"; the delete finds a running job.
    const error = await thrown(() => engine.applyProject({ project: 'web', file: file({ queues: '{ "emails": {}, "fresh": {} }' }), force: true }));
    assert.equal(error.code, ErrorCode.InvalidState);
    assert.match(error.message, /running/);
    assert.deepEqual((await engine.listQueues()).map((q) => q.name), ['emails', 'old']);
    assert.equal((await engine.getQueue('old')).owner, 'web');
  });

  test('ownership goes with its object: a schedule deleted and made again by hand is nobody\'s', async (t) => {
    const { engine } = makeEngine(t, store);
    await engine.applyProject({ project: 'web', file: file() });
    await engine.deleteSchedule('digest');
    await engine.createSchedule({ name: 'digest', cron: '0 9 * * *', queue: 'emails', job: { kind: 'mailer' } }, null);
    const live = (await engine.projectState({ project: 'web' })).objects.find((o) => o.type === 'schedule' && o.name === 'digest');
    assert.deepEqual([live?.owner, live?.applied], [undefined, undefined]);
    assert.equal(planChanges(file(), await engine.projectState({ project: 'web' })).conflicts.length, 1);
  });
}
