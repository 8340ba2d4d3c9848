/**
 * shared/domain/present: how records read in the CLI, the extension and the language server.
 * Every expectation is computed from a fixed instant and explicit time zones, never from the
 * machine's clock or zone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  closest,
  countColumns,
  countsText,
  delayedTotal,
  dueCount,
  endLine,
  fireTime,
  fireTimesText,
  JOB_ID_END,
  jobReason,
  queueText,
  readJobId,
  relativeTime,
  shortId,
  shownState,
  stateSentence,
  noWorkerText,
  dueNoWorkerText,
  waitingSentence,
  typoLimit,
  wallClockDiffers,
} from '../../shared/domain/present';
import { planText, type PlanPaint } from '../../shared/jobsfile';
import type { Plan } from '../../shared/jobsfile';
import type { Job, JobCounts, JobRun } from '../../shared/protocol/types';

const NOW = 1_800_000_000_000;

function job(fields: Partial<Job>): Job {
  return {
    id: '0193aaaa-bbbb-7ccc-8ddd-eeeeffff0001',
    queue: 'builds',
    kind: 'shell',
    payload: { command: 'npm test' },
    state: 'queued',
    priority: 0,
    attempts: 0,
    maxAttempts: 1,
    runAt: NOW - 60_000,
    createdAt: NOW - 60_000,
    startedAt: null,
    finishedAt: null,
    lastError: null,
    progress: null,
    progressMessage: null,
    cancelRequested: false,
    workerId: null,
    ...fields,
  } as Job;
}

function run(fields: Partial<JobRun>): JobRun {
  return { run: 1, attempt: 1, workerId: 'w', startedAt: NOW - 5000, finishedAt: NOW, durationMs: 5000, outcome: 'failed', exitCode: null, httpStatus: null, error: null, ...fields } as JobRun;
}

function counts(fields: Partial<JobCounts>): JobCounts {
  return { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0, ...fields };
}

test('relative times: one unit, "just now" within a second, "-" for none', () => {
  assert.equal(relativeTime(NOW - 3000, NOW), '3s ago');
  assert.equal(relativeTime(NOW + 300_000, NOW), 'in 5m');
  assert.equal(relativeTime(NOW - 80 * 60_000, NOW), '1h ago', 'rounded to one unit');
  assert.equal(relativeTime(NOW - 200, NOW), 'just now');
  assert.equal(relativeTime(null, NOW), '-');
});

test('a fire time is written in the zone it fires in, with its abbreviation unless the zone is named once', () => {
  const at = Date.UTC(2026, 0, 11, 2, 0, 0);
  assert.equal(fireTime(at, 'Europe/Paris'), 'Sun 11 Jan 2026 03:00 CET');
  assert.equal(fireTime(at + 20_000, 'UTC', { seconds: true }), 'Sun 11 Jan 2026 02:00:20 UTC');
  assert.equal(fireTime(at, 'Europe/Paris', { zoneName: false }), 'Sun 11 Jan 2026 03:00');
  assert.equal(fireTimesText([at], 'Europe/Paris', 'Europe/Berlin'), 'Sun 11 Jan 2026 03:00 (Europe/Paris)', 'the same wall clock is not said twice');
  assert.equal(fireTimesText([at], 'Europe/Paris', 'UTC'), 'Sun 11 Jan 2026 03:00 (Europe/Paris); Sun 11 Jan 2026 02:00 (local, UTC)');
  assert.equal(wallClockDiffers(at, 'Europe/Paris', 'UTC'), true);
  assert.equal(wallClockDiffers(at, 'Europe/Paris', 'Europe/Berlin'), false);
});

test('job ids: whole, an end of at least 8 characters and less than a whole id, or not an id', () => {
  assert.deepEqual(readJobId(' 0193B6F0-7C1E-7D4F-8A9B-1C2D3E4F5A6B '), { kind: 'whole', id: '0193b6f0-7c1e-7d4f-8a9b-1c2d3e4f5a6b' });
  assert.deepEqual(readJobId('3E4F5A6B'), { kind: 'end', suffix: '3e4f5a6b' });
  assert.deepEqual(readJobId('3e4f5a'), { kind: 'invalid' });
  assert.deepEqual(readJobId('  '), { kind: 'empty' });
  assert.ok(JOB_ID_END.test('a'.repeat(35)));
  assert.ok(!JOB_ID_END.test('a'.repeat(36)), '36 characters that are not a whole id are the end of none');
  assert.equal(shortId('0193b6f0-7c1e-7d4f-8a9b-1c2d3e4f5a6b'), '3e4f5a6b');
});

test('did you mean: one edit per three characters, at most two, case-insensitive', () => {
  assert.equal(typoLimit('q2'), 0);
  assert.equal(typoLimit('concurency'), 2);
  assert.equal(closest('bulids', ['builds', 'images']), 'builds');
  assert.equal(closest('Concurency', ['concurrency']), 'concurrency');
  assert.equal(closest('q2', ['q1']), undefined);
  assert.equal(closest('buildzzz', ['builds']), undefined);
  assert.equal(closest('MAIL', ['mail', 'nail']), 'mail', 'a match but for case wins');
});

test("a queue's counts: due and delayed apart, busiest first, completed only when nothing else", () => {
  assert.equal(dueCount({ queued: 5 }, 2), 3);
  assert.equal(countsText(counts({ blocked: 0, queued: 5, running: 3, dead: 1 }), 2), '3 running · 3 queued · 2 delayed · 1 dead');
  assert.equal(countsText(counts({ completed: 40 })), '40 completed');
  assert.equal(countsText(counts({})), 'empty');
  assert.equal(countsText(counts({ queued: 3, completed: 7 }), 0, { completed: true }), '3 queued · 7 completed');
  assert.equal(queueText({ paused: true, counts: counts({ retrying: 1 }), delayed: 0 }), 'paused · 1 retrying');
});
test('the status bar\'s columns use the words of countsText: queued is due now, delayed and retrying apart', () => {
  const c = counts({ queued: 14, retrying: 4, running: 1, dead: 2 });
  assert.deepEqual(countColumns(c, 9), { running: 1, queued: 5, delayed: 9, retrying: 4, dead: 2 });
  assert.equal(countsText(c, 9), '1 running · 5 queued · 9 delayed · 4 retrying · 2 dead');
  assert.equal(delayedTotal([{ delayed: 3 }, { delayed: 6 }]), 9);
});


test("a job's reason in one line, state first, the same words for every state", () => {
  assert.equal(shownState(job({ runAt: NOW + 1000 }), NOW), 'delayed');
  assert.equal(jobReason(job({ runAt: NOW + 3_600_000 }), NOW), 'starts in 1h');
  assert.equal(jobReason(job({}), NOW), 'queued 1m ago');
  assert.equal(jobReason(job({ state: 'retrying', attempts: 1, maxAttempts: 5, runAt: NOW + 30_000, lastError: 'timeout\nmore' }), NOW), 'next attempt in 30s · attempt 1/5 · timeout');
  assert.equal(
    jobReason(job({ state: 'running', attempts: 1, maxAttempts: 3, startedAt: NOW - 90_000, progress: 42, progressMessage: 'linking', cancelRequested: true }), NOW),
    '42% · running 1m30s · linking · cancel requested · attempt 1/3',
  );
  assert.equal(jobReason(job({ state: 'dead', attempts: 3, maxAttempts: 3, lastError: 'exit code 3', finishedAt: NOW - 120_000 }), NOW), 'exit code 3 · 2m ago · attempt 3/3');
  assert.equal(jobReason(job({ state: 'completed', startedAt: NOW - 13_000, finishedAt: NOW - 10_000 }), NOW), 'completed 10s ago · took 3s');
  assert.equal(jobReason(job({ state: 'cancelled', finishedAt: NOW - 3000 }), NOW), 'cancelled 3s ago');
});

test("the job page's sentence says the reason in the same words", () => {
  const retrying = job({ state: 'retrying', attempts: 2, maxAttempts: 3, runAt: NOW + 30_000, lastError: 'The tests failed' });
  assert.equal(stateSentence(retrying, [run({ exitCode: 3 })], NOW), 'Attempt 2 failed with exit code 3: The tests failed. Next attempt in 30s.');
  assert.equal(stateSentence(job({ runAt: NOW + 3_600_000 }), [], NOW), 'Starts in 1h.');
  assert.equal(stateSentence(job({}), [], NOW), 'Due; waiting for a worker to be free.');
  assert.equal(endLine(job({ state: 'dead', lastError: 'The command exited with code 3.' }), [run({ exitCode: 3 })]), 'the job died: The command exited with code 3.');
  assert.equal(endLine(job({ state: 'running' }), []), null);
});

test('a plan reads the same everywhere: changes, drift, unmanaged objects, conflicts and a count', () => {
  const plan: Plan = {
    project: 'demo',
    changes: [
      { action: 'create', type: 'queue', name: 'emails' },
      { action: 'update', type: 'queue', name: 'builds', fields: [{ field: 'concurrency', from: 2, to: 4 }] },
      { action: 'unchanged', type: 'template', name: 'test' },
    ],
    unmanaged: [{ type: 'queue', name: 'scratch' }],
    drift: [{ type: 'queue', name: 'builds', fields: [{ field: 'concurrency', from: 4, to: 2 }] }],
    conflicts: [],
  };
  const text = planText(plan, { showUnchanged: false });
  assert.match(text, /^Plan for project "demo":\n {2}\+ create {4}queue {4}emails\n {2}~ update {4}queue {4}builds\n {8}concurrency: 2 → 4\n/);
  assert.doesNotMatch(text, /template +test/, 'unchanged objects are counted, not listed');
  assert.match(text, /\nDrift \(changed by hand since the last apply; apply puts the file's values back\):\n {2}queue builds: concurrency 4 → 2\n/);
  assert.match(text, /\nUnmanaged \(no project owns them; never touched\): 1 queue\.\n/, 'counted by type');
  assert.match(planText(plan, { listUnmanaged: true }), /\nUnmanaged \(no project owns them; never touched\):\n {2}queue scratch\n/);
  const many: Plan = { ...plan, unmanaged: [...plan.unmanaged, { type: 'queue', name: 'tmp' }, { type: 'schedule', name: 'ad-hoc' }] };
  assert.match(planText(many, { listHint: 'plan --verbose lists them' }), /\nUnmanaged \(no project owns them; never touched\): 2 queues, 1 schedule \(plan --verbose lists them\)\.\n/);
  assert.match(text, /\n1 to create, 1 to update, 0 to delete, 1 unchanged\.$/);
  assert.match(planText(plan), /= unchanged template test/);
  const marked: PlanPaint = { green: (s) => `<g>${s}`, yellow: (s) => `<y>${s}`, red: (s) => `<r>${s}`, dim: (s) => `<d>${s}` };
  assert.match(planText(plan, { paint: marked }), /^<g> {2}\+ create/m);
});

test('a due queued job says why it waits: paused, no worker for its kind, concurrency full, its weight, or a busy worker', () => {
  const queue = { name: 'images', paused: false, concurrency: 2, rateLimit: null, counts: counts({ queued: 5 }) };
  const resize = { queue: 'images', kind: 'resize', weight: 1 };
  const alive = { type: 'remote' as const, queues: [], kinds: ['resize'], alive: true, lastHeartbeatAt: NOW - 1000 };
  const gone = { type: 'remote' as const, queues: ['images'], kinds: [], alive: false, lastHeartbeatAt: NOW - 600_000 };
  const shell = { type: 'builtin' as const, queues: [], kinds: ['shell'], alive: false, lastHeartbeatAt: NOW - 3_600_000 };
  assert.equal(waitingSentence(resize, { queue: { ...queue, paused: true }, workers: [alive] }, NOW), 'Waiting: queue images is paused; resume it to run its jobs.');
  assert.equal(waitingSentence(resize, { queue, workers: [shell] }, NOW), 'Waiting: no worker takes kind resize on queue images.');
  assert.equal(waitingSentence(resize, { queue, workers: [shell, gone] }, NOW), 'Waiting: no worker takes kind resize on queue images (the last one was seen 10m ago).');
  assert.equal(waitingSentence(resize, { queue: { ...queue, counts: counts({ queued: 5, running: 2 }) }, workers: [alive] }, NOW), 'Waiting: queue images is at its concurrency (2 of 2 running).');
  assert.equal(waitingSentence({ ...resize, weight: 3 }, { queue, workers: [alive] }, NOW), 'Waiting: its weight 3 is more than the concurrency of queue images (2), so it cannot start there.');
  assert.equal(waitingSentence(resize, { queue, workers: [alive, shell] }, NOW), 'Due; waiting for the worker that takes it to be free.');
  assert.equal(waitingSentence(resize, { queue: { ...queue, rateLimit: { perSecond: 0.5, burst: 1 } }, workers: [alive] }, NOW), 'Due; waiting for the worker that takes it to be free (queue images starts at most 30/m).');
  assert.equal(waitingSentence(resize, { queue, workers: [alive, { ...alive }] }, NOW), 'Due; waiting for one of the 2 workers that take it to be free.');
  assert.equal(noWorkerText(resize, [alive], NOW), null);
  assert.equal(noWorkerText(resize, undefined, NOW), null);
  // The daemon's own executors are there as long as it answers.
  assert.equal(noWorkerText({ queue: 'images', kind: 'shell' }, [shell], NOW), null);
});

test('a retrying job past its next attempt\'s time says the attempt was due, not that it was made, and why it waits', () => {
  // A job whose lease expired 21 minutes ago, and no worker for its kind since.
  const lapsed = job({ queue: 'images', kind: 'resize', state: 'retrying', attempts: 1, maxAttempts: 3, runAt: NOW - 21 * 60_000, lastError: 'The lease expired.' });
  const gone = { type: 'remote' as const, queues: [], kinds: ['resize'], alive: false, lastHeartbeatAt: NOW - 22 * 60_000 };
  assert.equal(jobReason(lapsed, NOW), 'next attempt was due 21m ago · attempt 1/3 · The lease expired.');
  assert.equal(dueNoWorkerText(lapsed, [gone], NOW), 'no worker takes kind resize on queue images (the last one was seen 22m ago)');
  assert.equal(
    stateSentence(lapsed, [run({ outcome: 'failed' })], NOW, { workers: [gone] }),
    'Attempt 1 failed: The lease expired. Next attempt was due 21m ago. Waiting: no worker takes kind resize on queue images (the last one was seen 22m ago).',
  );
  // Not due yet, or not waiting at all: nothing to add.
  assert.equal(dueNoWorkerText({ ...lapsed, runAt: NOW + 30_000 }, [gone], NOW), null);
  assert.equal(dueNoWorkerText({ ...lapsed, state: 'running' }, [gone], NOW), null);
  assert.equal(dueNoWorkerText(job({ queue: 'images', kind: 'resize' }), [gone], NOW), 'no worker takes kind resize on queue images (the last one was seen 22m ago)');
});
