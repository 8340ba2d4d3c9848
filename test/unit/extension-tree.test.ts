/**
 * What the Queues view says and shows, as pure functions: job labels that keep the command,
 * descriptions with the state first, what a blocked job waits for, accessible labels without ids, which groups show (empty ones
 * hidden, a filter narrowing them), counts of matches, the filter syntax and the state toggles.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job, JobDependency, JobState, Queue } from '../../shared/protocol/types';
import { filterText, parseFilter } from '../../extension/commands/queues/filterSyntax';
import { failureText, firstLine } from '../../shared/domain/present';
import { toggleOnly } from '../../extension/commands/queues/onlyState';
import { deadBadgeText, jobLabel } from '../../extension/views/format';
import {
  countText,
  describeFilter,
  groupsToShow,
  jobAccessibleLabel,
  jobDescription,
  keyGroupDescription,
  keyGroupLabel,
  matchingDescription,
  stateGroupOf,
  queueCounts,
  sumCounts,
  type GroupName,
  type MatchCount,
} from '../../extension/views/queues/text';

/** The instant every expectation is computed from: no test reads the wall clock. */
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
    ...fields,
  } as Job;
}

function queue(counts: Partial<Queue['counts']>, delayed = 0): Queue {
  return {
    name: 'builds',
    paused: false,
    counts: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0, ...counts },
    delayed,
  } as Queue;
}

test('a job label is the command or URL, and leads with the kind for other kinds', () => {
  assert.equal(jobLabel(job({})), 'npm test');
  assert.equal(jobLabel(job({ kind: 'http', payload: { method: 'post', url: 'https://example.test/hook' } })), 'POST https://example.test/hook');
  assert.equal(jobLabel(job({ kind: 'report', payload: { month: 'may' } })), 'report: {"month":"may"}');
  assert.equal(jobLabel(job({ kind: 'report', payload: null })), 'report');
});

test("a dead row says why: a shell job's last stderr line and its exit, an HTTP job's status and reason", () => {
  const dead = (lastError: string) => jobDescription(job({ state: 'dead', attempts: 1, maxAttempts: 1, lastError, finishedAt: NOW - 60_000 }), 'dead', NOW);
  assert.equal(dead('The command exited with code 3.\nLast lines of stderr:\nconnecting\nsmtp: connection refused\n'), 'smtp: connection refused · exit code 3 · 1m ago');
  assert.equal(dead('The command exited with code 3.'), 'exit code 3 · 1m ago', 'no stderr: how it ended alone');
  assert.equal(dead('The command was killed by SIGKILL after the 30s timeout.\nLast lines of stderr:\nstill going'), 'still going · timed out after 30s · 1m ago');
  assert.equal(dead('The command was stopped after the 1.5s timeout and exited with code 143.'), 'timed out after 1.5s · 1m ago');
  assert.equal(dead('The command was killed by SIGSEGV.\nLast lines of stderr:\nSegmentation fault'), 'Segmentation fault · killed by SIGSEGV · 1m ago');
  assert.equal(dead('Killed: memory limit 64 MiB. The command was killed by SIGKILL.\nLast lines of stderr:\nout of memory'), 'out of memory · Killed: memory limit 64 MiB · 1m ago');
  assert.equal(dead('POST https://api.example.com/hooks/deploy answered 503 Service Unavailable: {"error":"down"}'), 'HTTP 503 Service Unavailable · 1m ago');
  assert.equal(dead('GET https://api.example.com/x answered 404'), 'HTTP 404 · 1m ago');
  assert.equal(dead('GET https://api.example.com/x timed out after 30000 ms.'), 'timed out after 30000 ms · 1m ago');
  assert.equal(dead('GET https://api.example.com/x failed: fetch failed (connect ECONNREFUSED 127.0.0.1:9)'), 'fetch failed (connect ECONNREFUSED 127.0.0.1:9) · 1m ago');
  assert.equal(dead('a worker\'s own error\n  at line 2'), "a worker's own error · 1m ago");
  const long = dead(`The command exited with code 1.\nLast lines of stderr:\n${'x'.repeat(200)}`);
  assert.match(long, /^x{65}… · exit code 1 · 1m ago$/, 'a long stderr line is cut, the exit code kept');
  // The CLI's NOTE column and spool top say it in the same words.
  assert.equal(failureText('The command exited with code 3.\nLast lines of stderr:\nsmtp: connection refused'), 'smtp: connection refused · exit code 3');
});

test("a dead job's description starts with the first line of its error", () => {
  const dead = job({ state: 'dead', attempts: 3, maxAttempts: 3, lastError: '\nexit code 3\n  at build.sh:4', finishedAt: NOW - 120_000 });
  assert.equal(jobDescription(dead, 'dead', NOW), 'exit code 3 · 2m ago · attempt 3/3');
  assert.equal(jobDescription(job({ state: 'dead', lastError: null, finishedAt: NOW - 5000 }), 'dead', NOW), 'dead · 5s ago');
});

test("a running job's description starts with its progress and how long it has run", () => {
  const running = job({ state: 'running', attempts: 1, maxAttempts: 3, startedAt: NOW - 90_000, progress: 42.4, progressMessage: 'linking' });
  assert.equal(jobDescription(running, 'running', NOW), '42% · running 1m30s · linking · attempt 1/3');
  assert.equal(jobDescription(job({ state: 'running', attempts: 1, startedAt: NOW - 7000 }), 'running', NOW), 'running 7s');
});

test('waiting and finished jobs say when, state first', () => {
  assert.equal(jobDescription(job({}), 'queued', NOW), 'queued 1m ago');
  assert.equal(jobDescription(job({ runAt: NOW + 3_600_000 }), 'delayed', NOW), 'starts in 1h');
  assert.equal(
    jobDescription(job({ state: 'retrying', attempts: 1, maxAttempts: 5, runAt: NOW + 30_000, lastError: 'timeout' }), 'retrying', NOW),
    'next attempt in 30s · attempt 1/5 · timeout',
  );
  assert.equal(jobDescription(job({ state: 'completed', startedAt: NOW - 13_000, finishedAt: NOW - 10_000 }), 'completed', NOW), 'completed 10s ago · took 3s');
  assert.equal(jobDescription(job({ state: 'completed', startedAt: NOW - 10_400, finishedAt: NOW - 10_000 }), 'completed', NOW), 'completed 10s ago · took under 1s');
  assert.equal(jobDescription(job({ state: 'cancelled', finishedAt: NOW - 3_000 }), 'cancelled', NOW), 'cancelled 3s ago');
});

test('a blocked job says what it waits for: the steps or ids that have not ended, with their states', () => {
  const blocked = job({ state: 'blocked', dependsOn: 3, waitingFor: 1 });
  const dep = (id: string, step: string | null, state: JobState): JobDependency => ({ id, step, state, on: 'succeeded', queue: 'builds', kind: 'shell', result: null });
  const build = dep('0193aaaa-bbbb-7ccc-8ddd-000000000001', 'build', 'running');
  assert.equal(jobDescription(blocked, 'blocked', NOW, [build, dep('0193aaaa-bbbb-7ccc-8ddd-000000000002', 'lint', 'completed')]), 'waiting for build (running)', 'an ended dependency is not waited for');
  assert.equal(jobDescription(blocked, 'blocked', NOW, [dep('0193aaaa-bbbb-7ccc-8ddd-0000000000ab', null, 'queued')]), 'waiting for 000000ab (queued)', 'a job without a step is named by the end of its id');
  const tests = ['linux', 'mac', 'win'].map((_, i) => dep(`0193aaaa-bbbb-7ccc-8ddd-00000000001${i}`, 'test', i === 0 ? 'running' : 'queued'));
  assert.equal(jobDescription(blocked, 'blocked', NOW, [build, ...tests]), 'waiting for 4 jobs: build (running), test (running), test ×2 (queued)');
  const many = ['a', 'b', 'c', 'd', 'e'].map((s, i) => dep(`0193aaaa-bbbb-7ccc-8ddd-00000000002${i}`, s, 'blocked'));
  assert.equal(jobDescription(blocked, 'blocked', NOW, many), 'waiting for 5 jobs: a (blocked), b (blocked), c (blocked), …');
  assert.equal(jobDescription(blocked, 'blocked', NOW), 'waiting for 1 of 3 jobs', 'without the dependencies read, the counts');
  assert.equal(jobAccessibleLabel(blocked, 'blocked', NOW, [build]), 'npm test, blocked, waiting for build (running)');
});

test('relative times move with the clock they are drawn at', () => {
  const running = job({ state: 'running', attempts: 1, startedAt: NOW });
  assert.equal(jobDescription(running, 'running', NOW + 5_000), 'running 5s');
  assert.equal(jobDescription(running, 'running', NOW + 125_000), 'running 2m5s');
});

test('the accessible label is the visible text and the state, never the id', () => {
  const dead = job({ state: 'dead', lastError: 'exit code 3', finishedAt: NOW - 60_000 });
  const label = jobAccessibleLabel(dead, 'dead', NOW);
  assert.equal(label, 'npm test, dead, exit code 3 · 1m ago');
  assert.ok(!label.includes(dead.id.slice(-8)));
  assert.equal(jobAccessibleLabel(job({ runAt: NOW + 60_000 }), 'delayed', NOW), 'npm test, delayed, starts in 1m');
  assert.equal(jobAccessibleLabel(job({ state: 'running', attempts: 1, startedAt: NOW, cancelRequested: true }), 'running', NOW), 'npm test, running, running 0s · cancel requested');
});

test('firstLine skips blank lines and cuts a long line', () => {
  assert.equal(firstLine('\n\n  boom  \nmore'), 'boom');
  assert.equal(firstLine('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
  assert.equal(firstLine(''), '');
});

function counts(partial: Partial<Record<GroupName, number>>, more: GroupName[] = []): Record<GroupName, MatchCount> {
  const all = queueCounts(queue({}));
  for (const [g, n] of Object.entries(partial)) all[g as GroupName] = { count: n, more: more.includes(g as GroupName) };
  return all;
}

test('empty groups are hidden unless asked for, and never shown under a filter', () => {
  const c = counts({ running: 1, queued: 3, dead: 2 });
  assert.deepEqual(groupsToShow(c, {}, false), ['running', 'queued', 'dead']);
  assert.deepEqual(groupsToShow(c, {}, true), ['running', 'queued', 'delayed', 'blocked', 'retrying', 'held', 'dead', 'completed', 'cancelled']);
  assert.deepEqual(groupsToShow(c, { states: ['dead', 'cancelled'] }, true), ['dead']);
  assert.deepEqual(groupsToShow(c, { search: 'x' }, true), ['running', 'queued', 'dead']);
  assert.deepEqual(groupsToShow(counts({}), { states: ['dead'] }, false), [], 'a queue without matches shows no group, so it is hidden');
});

test("queue counts split due and delayed queued jobs, and the groups count each state", () => {
  const c = queueCounts(queue({ queued: 5, running: 1, dead: 2, blocked: 4 }, 2));
  assert.deepEqual(
    Object.fromEntries(Object.entries(c).map(([g, m]) => [g, m.count])),
    { running: 1, queued: 3, delayed: 2, blocked: 4, retrying: 0, held: 0, dead: 2, completed: 0, cancelled: 0 },
  );
});

test('counts of matches read exact, or as a lower bound when a page did not hold them all', () => {
  assert.equal(countText({ count: 3, more: false }), '3');
  assert.equal(countText({ count: 50, more: true }), '50+');
  assert.deepEqual(sumCounts([{ count: 3, more: false }, { count: 50, more: true }]), { count: 53, more: true });
  assert.deepEqual(sumCounts([]), { count: 0, more: false });
  assert.equal(matchingDescription(queue({}), { count: 53, more: true }), '53+ matching');
  assert.equal(matchingDescription({ ...queue({}), paused: true }, { count: 1, more: false }), 'paused · 1 matching');
});

test('the filter in words, and the state toggles switching on and off while keeping the rest', () => {
  assert.equal(describeFilter({}), '');
  assert.equal(describeFilter({ states: ['dead'], kind: 'shell', search: 'timeout' }), 'state: dead · kind: shell · "timeout"');
  const dead = toggleOnly({ search: 'npm' }, 'dead');
  assert.deepEqual(dead, { search: 'npm', states: ['dead'] });
  assert.deepEqual(toggleOnly(dead, 'running'), { search: 'npm', states: ['running'] });
  assert.deepEqual(toggleOnly(dead, 'dead'), { search: 'npm' });
});

test('the dead-jobs badge counts them and says so; none for zero', () => {
  assert.equal(deadBadgeText(0), undefined);
  // VS Code puts the container's title before it: "Spool - 12 dead jobs", not "Spool - Spool: …".
  assert.deepEqual(deadBadgeText(1), { value: 1, tooltip: '1 dead job' });
  assert.deepEqual(deadBadgeText(12), { value: 12, tooltip: '12 dead jobs' });
});

test('the filter syntax reads states, a kind and text in any order, and writes them back', () => {
  assert.deepEqual(parseFilter('timeout state:dead,retrying kind:shell npm'), { states: ['dead', 'retrying'], kind: 'shell', search: 'timeout npm' });
  assert.deepEqual(parseFilter('  '), {});
  assert.deepEqual(parseFilter('"n":42}'), { search: '"n":42}' });
  assert.throws(() => parseFilter('state:broken'), /Unknown state "broken": use running, queued, delayed, blocked, retrying, held, dead, completed, cancelled\./);
  assert.equal(filterText(parseFilter('kind:http state:dead 503')), 'state:dead kind:http 503');
  assert.equal(filterText({}), '');
});

test('a group key\'s row: the key (or "no group"), its waiting and running counts, the weight when it differs, and the limit per group', () => {
  assert.equal(keyGroupLabel({ group: 'customer:42' }), 'customer:42');
  assert.equal(keyGroupLabel({ group: null }), 'no group');
  assert.equal(keyGroupDescription({ group: 'customer:42', waiting: 3, running: 2, runningWeight: 2 }, 2), '3 waiting · 2 running · limit 2');
  assert.equal(keyGroupDescription({ group: 'customer:9', waiting: 0, running: 1, runningWeight: 4 }, null), '0 waiting · 1 running · weight 4');
  assert.equal(keyGroupDescription({ group: null, waiting: 1, running: 0, runningWeight: 0 }, 2), '1 waiting · 0 running', 'jobs without a group have no limit per group');
  assert.equal(stateGroupOf({ state: 'queued', runAt: NOW + 1 }, NOW), 'delayed');
  assert.equal(stateGroupOf({ state: 'queued', runAt: NOW }, NOW), 'queued');
  assert.equal(stateGroupOf({ state: 'running', runAt: NOW }, NOW), 'running');
});
