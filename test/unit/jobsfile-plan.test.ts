/**
 * planChanges: what apply would do, from a parsed file and what a daemon has — creates, an
 * idempotent second plan, updates with the fields that differ, deletes of this project's objects
 * only, unmanaged objects listed and never touched, drift, renames, conflicts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  countChanges,
  formatFieldValue,
  hasChanges,
  parseJobsFile,
  planText,
  planChanges,
  queueState,
  scheduleState,
  templateState,
  type Declaration,
  type LiveObject,
  type QueueState,
} from '../../shared/jobsfile';
import type { Queue, Schedule } from '../../shared/protocol/types';

const EXAMPLE = fs.readFileSync(path.resolve(__dirname, '..', '..', 'examples', 'spool.jsonc'), 'utf8');

function declare(text: string): Declaration {
  const result = parseJobsFile(text);
  assert.deepEqual(result.problems.filter((p) => p.severity === 'error'), []);
  assert.ok(result.declaration !== null);
  return result.declaration;
}

/** A queue's settings on a daemon that has the defaults for what the file leaves out. */
const DEFAULT_QUEUE: QueueState = {
  concurrency: null,
  rateLimit: null,
  maxAttempts: 3,
  backoff: { strategy: 'exponential', baseMs: 1000, capMs: 3_600_000, jitter: 0.3 },
  timeoutMs: 300_000,
  retentionMs: 604_800_000,
  paused: false,
};

/** What a daemon holds after applying `d`: every object owned by its project, current = applied. */
function applied(d: Declaration): LiveObject[] {
  const out: LiveObject[] = [];
  for (const q of d.queues) {
    const { backoff, ...rest } = q.settings;
    const current: QueueState = { ...DEFAULT_QUEUE, ...rest, backoff: { ...DEFAULT_QUEUE.backoff, ...backoff } };
    out.push({ type: 'queue', name: q.name, owner: d.project, applied: q.settings, current });
  }
  for (const t of d.templates) out.push({ type: 'template', name: t.name, owner: d.project, applied: templateState(t), current: templateState(t) });
  for (const s of d.schedules) {
    const { name, ...state } = s;
    out.push({ type: 'schedule', name, owner: d.project, applied: state, current: structuredClone(state) });
  }
  return out;
}

test('against an empty daemon, everything is created: queues first, then templates, then schedules', () => {
  const plan = planChanges(declare(EXAMPLE), { objects: [] });
  assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.type} ${c.name}`), [
    'create queue emails',
    'create queue maintenance',
    'create template db-backup',
    'create template send-digest',
    'create template rebuild-thumbnails',
    'create schedule nightly-backup',
    'create schedule morning-digest',
    'create schedule weekly-thumbnails',
  ]);
  assert.ok(hasChanges(plan));
  assert.deepEqual(countChanges(plan), { create: 8, update: 0, delete: 0, unchanged: 0 });
});

test('a second plan after apply changes nothing', () => {
  const d = declare(EXAMPLE);
  const plan = planChanges(d, { objects: applied(d) });
  assert.ok(plan.changes.every((c) => c.action === 'unchanged'), JSON.stringify(plan.changes.filter((c) => c.action !== 'unchanged')));
  assert.equal(plan.changes.length, 8);
  assert.equal(hasChanges(plan), false);
  assert.deepEqual([plan.drift, plan.unmanaged, plan.conflicts], [[], [], []]);
});

test('an edited file updates the objects, naming each field with its old and new value', () => {
  const live = applied(declare(EXAMPLE));
  const edited = EXAMPLE.replace('"timeout": "30s"', '"timeout": "1m"').replace('"cron": "0 3 * * *"', '"cron": "30 2 * * *"');
  const plan = planChanges(declare(edited), { objects: live });
  const updates = plan.changes.filter((c) => c.action === 'update');
  assert.deepEqual(updates, [
    { action: 'update', type: 'queue', name: 'emails', fields: [{ field: 'timeout', from: 30_000, to: 60_000 }] },
    { action: 'update', type: 'schedule', name: 'nightly-backup', fields: [{ field: 'cron', from: '0 3 * * *', to: '30 2 * * *' }] },
  ]);
  assert.equal(formatFieldValue('timeout', 60_000), '1m');
  // A template's edit reaches the job of every schedule made from it.
  const plan2 = planChanges(declare(EXAMPLE.replace('--keep {{keep}}', '--keep={{keep}}')), { objects: live });
  assert.deepEqual(plan2.changes.filter((c) => c.action === 'update').map((c) => [c.type, c.name, c.fields?.map((f) => f.field)]), [
    ['template', 'db-backup', ['payload']],
    ['schedule', 'nightly-backup', ['job']],
  ]);
});

test('a queue setting the file leaves out is not managed; a partial backoff compares only its parts', () => {
  const d = declare('{ "project": "p", "queues": { "q": { "backoff": "fixed:5s" } } }');
  const current: QueueState = { ...DEFAULT_QUEUE, concurrency: 7, backoff: { strategy: 'fixed', baseMs: 5000, capMs: 9_000_000, jitter: 0 } };
  const plan = planChanges(d, { objects: [{ type: 'queue', name: 'q', owner: 'p', applied: d.queues[0]?.settings ?? {}, current }] });
  assert.deepEqual(plan.changes, [{ action: 'unchanged', type: 'queue', name: 'q' }]);
});

test('a partial backoff that changes is shown whole, as it will be in effect: the queue\'s cap and jitter kept', () => {
  const d = declare('{ "project": "p", "queues": { "q": { "backoff": "fixed:10s" } } }');
  const plan = planChanges(d, { objects: [{ type: 'queue', name: 'q', owner: 'p', applied: {}, current: DEFAULT_QUEUE }] });
  const [change] = plan.changes;
  assert.equal(change?.action, 'update');
  assert.deepEqual(change?.fields, [{ field: 'backoff', from: DEFAULT_QUEUE.backoff, to: { strategy: 'fixed', baseMs: 10_000, capMs: 3_600_000, jitter: 0.3 } }]);
  assert.match(planText(plan), /^ {8}backoff: exponential:1s:1h:0\.3 → fixed:10s:1h:0\.3$/m);
});

test('only this project\'s objects are deleted; hand-made ones are listed as unmanaged; other projects\' are left out', () => {
  const d = declare('{ "project": "p", "queues": { "q": {} } }');
  const objects: LiveObject[] = [
    { type: 'queue', name: 'q', owner: 'p', applied: {}, current: DEFAULT_QUEUE },
    { type: 'queue', name: 'old', owner: 'p', applied: {}, current: DEFAULT_QUEUE, jobs: 2 },
    { type: 'queue', name: 'empty', owner: 'p', applied: {}, current: DEFAULT_QUEUE, jobs: 0 },
    { type: 'queue', name: 'by-hand', current: DEFAULT_QUEUE },
    { type: 'queue', name: 'theirs', owner: 'other', applied: {}, current: DEFAULT_QUEUE },
    { type: 'schedule', name: 'cleanup', current: { cron: '@daily', timezone: 'UTC', enabled: true, missedPolicy: 'skip', overlapPolicy: 'allow', queue: 'q', job: { kind: 'shell', payload: 'true' } } },
  ];
  const plan = planChanges(d, { objects });
  assert.deepEqual(plan.changes.map((c) => [c.action, c.type, c.name, c.needsForce ?? false]), [
    ['unchanged', 'queue', 'q', false],
    ['delete', 'queue', 'empty', false],
    ['delete', 'queue', 'old', true],
  ]);
  assert.match(plan.changes[2]?.note ?? '', /holds 2 jobs: apply deletes it only with --force/);
  assert.deepEqual(plan.unmanaged, [{ type: 'queue', name: 'by-hand' }, { type: 'schedule', name: 'cleanup' }]);
});

test('drift: a field changed by hand since the last apply is told, and the file\'s value goes back', () => {
  const d = declare(EXAMPLE);
  const live = applied(d);
  const emails = live.find((o) => o.name === 'emails');
  assert.ok(emails?.type === 'queue');
  emails.current = { ...emails.current, concurrency: 12, paused: true };
  const plan = planChanges(d, { objects: live });
  assert.deepEqual(plan.drift, [{ type: 'queue', name: 'emails', fields: [{ field: 'concurrency', from: 4, to: 12 }] }]);
  const change = plan.changes.find((c) => c.name === 'emails');
  assert.deepEqual(change?.fields, [{ field: 'concurrency', from: 12, to: 4 }]);
  assert.match(change?.note ?? '', /changed by hand since the last apply \(concurrency\)/);
  // paused is not declared for emails: not managed, so neither a change nor drift.
});

test('a renamed schedule is a delete and a create, each noting the other', () => {
  const d = declare(EXAMPLE);
  const live = applied(d);
  const plan = planChanges(declare(EXAMPLE.replace('"nightly-backup"', '"backup-nightly"')), { objects: live });
  const create = plan.changes.find((c) => c.action === 'create');
  const remove = plan.changes.find((c) => c.action === 'delete');
  assert.deepEqual([create?.name, create?.renamedFrom, remove?.name, remove?.renamedTo], ['backup-nightly', 'nightly-backup', 'nightly-backup', 'backup-nightly']);
  assert.match(create?.note ?? '', /renamed from "nightly-backup"/);
  assert.match(remove?.note ?? '', /renamed to "backup-nightly"/);
  // A new schedule that differs in body is no rename.
  const other = planChanges(declare(EXAMPLE.replace('"nightly-backup"', '"backup-nightly"').replace('"0 3 * * *"', '"0 4 * * *"')), { objects: live });
  assert.equal(other.changes.find((c) => c.action === 'create')?.renamedFrom, undefined);
});

test('a declared name taken by a hand-made schedule or another project is a conflict; a hand-made queue is adopted', () => {
  const d = declare('{ "project": "p", "queues": { "q": { "concurrency": 2 }, "shared": {} }, "templates": { "t": { "queue": "q", "kind": "shell", "command": "x" } }, "schedules": { "s": { "cron": "@daily", "template": "t" } } }');
  const plan = planChanges(d, {
    objects: [
      { type: 'queue', name: 'q', current: DEFAULT_QUEUE },
      { type: 'queue', name: 'shared', owner: 'other', applied: {}, current: DEFAULT_QUEUE },
      { type: 'schedule', name: 's', current: { cron: '@daily', timezone: 'UTC', enabled: true, missedPolicy: 'skip', overlapPolicy: 'allow', queue: 'q', job: { kind: 'shell', payload: 'x' } } },
    ],
  });
  assert.deepEqual(plan.changes.map((c) => [c.action, c.type, c.name, c.adopt ?? false]), [
    ['update', 'queue', 'q', true],
    ['create', 'template', 't', false],
  ]);
  assert.deepEqual(plan.changes[0]?.fields, [{ field: 'concurrency', from: null, to: 2 }]);
  assert.deepEqual(plan.conflicts.map((c) => [c.type, c.name, c.owner]), [['queue', 'shared', 'other'], ['schedule', 's', null]]);
  assert.match(plan.conflicts[1]?.message ?? '', /made by hand .* will not change it/);
});

test('a daemon builds its live objects from the protocol\'s Queue and Schedule', () => {
  const queue: Queue = {
    name: 'q',
    concurrency: 2,
    rateLimit: { perSecond: 10, burst: 10 },
    paused: false,
    defaultMaxAttempts: 3,
    defaultBackoff: DEFAULT_QUEUE.backoff,
    defaultTimeoutMs: 30_000,
    retentionMs: null,
    limits: {},
    groupConcurrency: null,
    groupRate: null,
    groupWeights: null,
    grouped: false,
    counts: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 },
    delayed: 0,
    createdAt: 0,
  };
  const d = declare('{ "project": "p", "queues": { "q": { "concurrency": 2, "rateLimit": "10/s", "timeout": "30s", "retention": null } } }');
  assert.deepEqual(planChanges(d, { objects: [{ type: 'queue', name: 'q', owner: 'p', current: queueState(queue) }] }).changes, [{ action: 'unchanged', type: 'queue', name: 'q' }]);
  const schedule: Schedule = {
    name: 's',
    cron: '0 3 * * *',
    timezone: 'UTC',
    queue: 'q',
    job: { kind: 'shell', payload: { command: 'x' } },
    enabled: true,
    missedPolicy: 'skip',
    nextRunAt: null,
    lastRunAt: null,
    lastJobId: null,
    createdAt: 0,
    updatedAt: 0,
  };
  const d2 = declare('{ "project": "p", "queues": { "q": {} }, "templates": { "t": { "queue": "q", "kind": "shell", "command": "x" } }, "schedules": { "s": { "cron": "0 3 * * *", "template": "t" } } }');
  const live: LiveObject = { type: 'schedule', name: 's', owner: 'p', current: scheduleState(schedule) };
  assert.equal(planChanges(d2, { objects: [live] }).changes.find((c) => c.type === 'schedule')?.action, 'unchanged');
});

test('workflows are planned like templates: created, updated naming the steps that changed, deleted, and drift told', () => {
  const text = (testCommand: string, extraStep = ''): string => `{
    "project": "web",
    "queues": { "builds": {} },
    "workflows": {
      "release": {
        "steps": {
          "build": { "queue": "builds", "shell": "make build" },
          "test": { "queue": "builds", "shell": "${testCommand}", "needs": ["build"] }${extraStep}
        }
      }
    }
  }`;
  const d = declare(text('make test'));
  const workflow = d.workflows?.[0];
  assert.ok(workflow);
  const { name: _name, ...state } = workflow;
  const created = planChanges(d, { objects: [] });
  assert.deepEqual(created.changes.map((c) => `${c.action} ${c.type} ${c.name}`), ['create queue builds', 'create workflow release']);
  const live = (current = state): LiveObject[] => [
    { type: 'queue', name: 'builds', owner: 'web', applied: {}, current: DEFAULT_QUEUE },
    { type: 'workflow', name: 'release', owner: 'web', applied: state, current },
  ];
  assert.equal(hasChanges(planChanges(d, { objects: live() })), false);
  const updated = planChanges(declare(text('make check', ', "lint": { "queue": "builds", "shell": "make lint" }')), { objects: live() });
  const change = updated.changes.find((c) => c.type === 'workflow');
  assert.deepEqual(change?.fields?.map((f) => f.field).sort(), ['order', 'steps.lint', 'steps.test']);
  const text2 = planText(updated);
  assert.match(text2, /~ update\s+workflow release/);
  assert.match(text2, /steps\.test: .*make test.* → .*make check/);
  const dropped = planChanges(declare('{ "project": "web", "queues": { "builds": {} } }'), { objects: live() });
  assert.deepEqual(dropped.changes.filter((c) => c.action === 'delete').map((c) => `${c.type} ${c.name}`), ['workflow release']);
  const byHand = { ...state, steps: state.steps.filter((s) => s.name === 'build') };
  const drifted = planChanges(d, { objects: live(byHand) });
  assert.deepEqual(drifted.drift.map((x) => [x.type, x.name, x.fields.map((f) => f.field)]), [['workflow', 'release', ['steps.test', 'order']]]);
});

test("a queue's retry rule and expireAfter are planned from the daemon's Queue: unchanged when equal, an update naming them when not", () => {
  const queue: Queue = {
    name: 'q',
    concurrency: null,
    rateLimit: null,
    paused: false,
    defaultMaxAttempts: 3,
    defaultBackoff: DEFAULT_QUEUE.backoff,
    defaultTimeoutMs: 300_000,
    retentionMs: 604_800_000,
    limits: {},
    counts: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 },
    delayed: 0,
    createdAt: 0,
    retry: { never: { exitCodes: [2] } },
    defaultExpireAfterMs: 3_600_000,
    groupConcurrency: null,
    groupRate: null,
    groupWeights: null,
    grouped: false,
  };
  const live = (q: Queue): LiveObject[] => [{ type: 'queue', name: 'q', owner: 'p', current: queueState(q) }];
  const same = declare('{ "project": "p", "queues": { "q": { "retry": { "never": { "exitCodes": [2] } }, "expireAfter": "1h" } } }');
  assert.deepEqual(planChanges(same, { objects: live(queue) }).changes, [{ action: 'unchanged', type: 'queue', name: 'q' }]);
  const changed = declare('{ "project": "p", "queues": { "q": { "retry": { "on": { "exitCodes": [75] } }, "expireAfter": "30m" } } }');
  assert.deepEqual(planChanges(changed, { objects: live(queue) }).changes[0]?.fields, [
    { field: 'retry', from: { never: { exitCodes: [2] } }, to: { on: { exitCodes: [75] } } },
    { field: 'expireAfter', from: 3_600_000, to: 1_800_000 },
  ]);
  const { retry: _r, defaultExpireAfterMs: _e, ...plain } = queue;
  const created = planChanges(same, { objects: live(plain) }).changes[0];
  assert.deepEqual(created?.fields?.map((f) => [f.field, f.from]), [['retry', null], ['expireAfter', null]], 'a queue without them has none');
  assert.equal(formatFieldValue('expireAfter', 1_800_000), '30m');
});
