/**
 * The dashboard (extension/views/dashboard) as pure functions: the ranges' params, the gaps of
 * the history filled, the current minute moved by live job events, the charts' series, the
 * stacking the page draws, the sparkline, the health rows and their warnings in words, the
 * document's policy and what the page may send.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queue, Worker } from '../../shared/protocol/types';
import { queueHealth, waitText, type HealthFacts } from '../../extension/views/dashboard/health';
import { addLive, buildCharts, dashboardData, emptyPoint, failureRate, fillGaps, hourLine, hourLineText, rangeParams, sparkline, stack, stepTimes, type HistoryPoint } from '../../extension/views/dashboard/history';
import { DASHBOARD_MESSAGE, readDashboardMessage } from '../../extension/views/dashboard/messages';
import { dashboardDocument, renderDashboardBody, renderHealth } from '../../extension/views/dashboard/render';
import { MAX_FIRES, renderScheduleTimeline, upcomingFires } from '../../extension/views/dashboard/schedules';

const MIN = 60_000;
/** A minute boundary, far from any zone's midnight questions: the functions take times as numbers. */
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % MIN);
const HOSTILE = '<script>alert("x")</script>';

function point(queue: string, at: number, fields: Partial<HistoryPoint> = {}): HistoryPoint {
  return { ...emptyPoint(queue, at), ...fields };
}

test('a range ends with the step now is in (exclusive end) and spans the range: 60 minutes, 1440 minutes, 168 hours', () => {
  const now = T0 + 30_000;
  const hour = rangeParams('hour', now);
  assert.deepEqual(hour, { from: T0 - 59 * MIN, to: T0 + MIN, step: 'minute' });
  assert.equal(stepTimes(hour.from, hour.to, hour.step).length, 60);
  const day = rangeParams('day', now, 'builds');
  assert.equal(day.queue, 'builds');
  assert.equal(stepTimes(day.from, day.to, day.step).length, 1440);
  const week = rangeParams('week', now);
  assert.equal(week.step, 'hour');
  assert.equal(week.to % 3_600_000, 0);
  assert.ok(week.to > now && week.to - 3_600_000 <= now, 'the hour now is in the range');
  assert.equal(stepTimes(week.from, week.to, week.step).length, 168);
});

test('gaps are zeros with the last known backlog and running; a point before the range gives the first ones', () => {
  const times = stepTimes(T0, T0 + 5 * MIN, 'minute');
  const points = [point('a', T0 - MIN, { backlog: 7, running: 1 }), point('a', T0 + 2 * MIN, { completed: 3, backlog: 2, running: 2 }), point('b', T0, { completed: 9 })];
  const filled = fillGaps(points, 'a', times);
  assert.deepEqual(
    filled.map((p) => [p.at - T0, p.completed, p.backlog, p.running]),
    [
      [0, 0, 7, 1],
      [MIN, 0, 7, 1],
      [2 * MIN, 3, 2, 2],
      [3 * MIN, 0, 2, 2],
      [4 * MIN, 0, 2, 2],
    ],
  );
  assert.equal(filled[0]?.waitP95, null);
  assert.deepEqual(
    fillGaps([], 'c', times).map((p) => p.backlog),
    [0, 0, 0, 0, 0],
  );
});

test('job events after the history was read move their minute; earlier ones, other states and deletions do not', () => {
  const times = stepTimes(T0, T0 + 2 * MIN, 'minute');
  const filled = fillGaps([point('a', T0 + MIN, { completed: 2 })], 'a', times);
  const readAt = T0 + MIN + 10_000;
  const live = addLive(
    filled,
    [
      { queue: 'a', state: 'completed', at: readAt - 1 },
      { queue: 'a', state: 'completed', at: readAt + 1 },
      { queue: 'a', state: 'retrying', at: readAt + 2 },
      { queue: 'a', state: 'dead', at: readAt + 3 },
      { queue: 'a', state: 'cancelled', at: readAt + 4 },
      { queue: 'a', state: 'running', at: readAt + 5 },
      { queue: 'a', state: 'completed', at: readAt + 6, deleted: true },
      { queue: 'b', state: 'completed', at: readAt + 7 },
    ],
    readAt,
    'minute',
  );
  assert.deepEqual(
    live.map((p) => [p.completed, p.failed, p.dead, p.cancelled]),
    [
      [0, 0, 0, 0],
      [3, 1, 1, 1],
    ],
  );
  assert.equal(filled[1]?.completed, 2, 'the filled points are left as they were');
});

test('the failure rate is failed and dead out of what ran, in percent; none ran is null', () => {
  assert.equal(failureRate({ completed: 3, failed: 1, dead: 0 }), 25);
  assert.equal(failureRate({ completed: 2, failed: 0, dead: 1 }), 33.3);
  assert.equal(failureRate({ completed: 0, failed: 0, dead: 0 }), null);
});

test('every queue: throughput summed by outcome, one line per queue for backlog, running, wait p95 and failures', () => {
  const times = [T0, T0 + MIN];
  const byQueue = new Map([
    ['a', [point('a', T0, { completed: 3, failed: 1, backlog: 4, waitP95: 1200 }), point('a', T0 + MIN, { dead: 1, running: 1 })]],
    ['b', [point('b', T0, { completed: 1, cancelled: 2 }), point('b', T0 + MIN)]],
  ]);
  const charts = buildCharts(byQueue, times, null);
  assert.deepEqual(
    charts.map((c) => [c.id, c.stacked]),
    [
      ['throughput', true],
      ['backlog', false],
      ['wait', false],
      ['failures', false],
    ],
  );
  assert.deepEqual(charts[0]?.series, [
    { label: 'completed', values: [4, 0] },
    { label: 'failed', values: [1, 0] },
    { label: 'dead', values: [0, 1] },
    { label: 'cancelled', values: [2, 0] },
  ]);
  assert.deepEqual(
    charts[1]?.series.map((s) => s.label),
    ['a waiting', 'a running', 'b waiting', 'b running'],
  );
  assert.deepEqual(charts[2]?.series, [
    { label: 'a', values: [1200, null] },
    { label: 'b', values: [null, null] },
  ]);
  assert.deepEqual(charts[3]?.series, [
    { label: 'a', values: [25, 100] },
    { label: 'b', values: [0, null] },
  ]);
});

test('one queue in detail: its throughput, backlog and running, wait p50 and p95, failure rate', () => {
  const byQueue = new Map([['a', [point('a', T0, { completed: 1, waitP50: 10, waitP95: 90, backlog: 3, running: 2 })]]]);
  const charts = buildCharts(byQueue, [T0], 'a');
  assert.deepEqual(
    charts[1]?.series.map((s) => [s.label, s.values]),
    [
      ['waiting', [3]],
      ['running', [2]],
    ],
  );
  assert.deepEqual(
    charts[2]?.series.map((s) => [s.label, s.values]),
    [
      ['p50', [10]],
      ['p95', [90]],
    ],
  );
});

test('the dashboard data of a range: filled, with queues that exist but have no history, and live events', () => {
  const params = { from: T0, to: T0 + 3 * MIN };
  const data = dashboardData({ step: 'minute', points: [point('a', T0, { completed: 5 })] }, params, 'hour', null, ['a', 'quiet'], [{ queue: 'quiet', state: 'completed', at: T0 + 2 * MIN + 1 }], T0 + 2 * MIN);
  assert.equal(data.times.length, 3);
  assert.deepEqual(data.charts[0]?.series[0], { label: 'completed', values: [5, 0, 1] });
  assert.deepEqual(
    data.charts[2]?.series.map((s) => s.label),
    ['a', 'quiet'],
  );
});

test('stacked series are drawn as running sums; a missing value counts as zero', () => {
  assert.deepEqual(
    stack([
      { label: 'completed', values: [1, 2] },
      { label: 'failed', values: [null, 3] },
      { label: 'dead', values: [4, 0] },
    ]).map((s) => s.values),
    [
      [1, 2],
      [1, 5],
      [5, 5],
    ],
  );
});

test('the sparkline: the highest value a full block, zero the lowest, an idle hour flat', () => {
  assert.equal(sparkline([0, 1, 2, 3, 4, 5, 6, 7]), '▁▂▃▄▅▆▇█');
  assert.equal(sparkline([0, 0, 0]), '▁▁▁');
  assert.equal(sparkline([10, 5, 0]), '█▅▁');
  assert.equal(sparkline([]), '');
});

test("a queue row's last hour: sixty minutes of jobs ended per minute as blocks, the quiet minutes lowest, and the totals", () => {
  const params = rangeParams('hour', T0 + 1000, 'a');
  const line = hourLine([point('a', params.to - MIN, { completed: 6, failed: 1, dead: 1 }), point('a', params.to - 31 * MIN, { completed: 4 }), point('b', params.to - MIN, { completed: 100 }), point('a', params.to, { completed: 50 })], 'a', params);
  assert.equal([...line.line].length, 60);
  assert.equal(line.line, `${'▁'.repeat(29)}▅${'▁'.repeat(29)}█`);
  assert.equal(hourLineText(line), `Last hour: ${line.line} 10 completed, 1 failed, 1 dead`);
  assert.equal(hourLineText(hourLine([], 'a', params)), `Last hour: ${'▁'.repeat(60)} 0 completed`);
});

function queue(fields: Partial<Queue> = {}): HealthFacts['queue'] {
  return { name: 'images', paused: false, concurrency: null, delayed: 0, counts: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 }, ...fields };
}

function counts(queued: number, running = 0): Queue['counts'] {
  return { blocked: 0, queued, running, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 };
}

const NOW = T0 + 30_000;
const SHELL_WORKER: Pick<Worker, 'type' | 'queues' | 'kinds' | 'alive' | 'lastHeartbeatAt'> = { type: 'builtin', queues: [], kinds: ['shell', 'http'], alive: true, lastHeartbeatAt: NOW };

function facts(fields: Partial<HealthFacts>): HealthFacts {
  return { queue: queue(), workers: [SHELL_WORKER], due: [], allPaused: false, ratePerMinute: 4, failureRate: 12.5, now: NOW, ...fields };
}

test('a healthy queue: its counts, the oldest due job waiting since its runAt, the rates, no warning', () => {
  const row = queueHealth(facts({ queue: queue({ counts: counts(5, 2), delayed: 2 }), due: [{ kind: 'shell', runAt: NOW - 90_000 }, { kind: 'shell', runAt: NOW - 5000 }] }));
  assert.deepEqual(row, { queue: 'images', waiting: 3, running: 2, oldestWaitMs: 90_000, ratePerMinute: 4, failureRate: 12.5, warnings: [] });
  assert.equal(waitText(row.oldestWaitMs), '1m30s');
  assert.equal(waitText(null), 'none');
});

test('jobs of a kind no worker takes: the warning names the kind, the queue and how many wait', () => {
  const gone = { type: 'remote' as const, queues: ['images'], kinds: ['resize'], alive: false, lastHeartbeatAt: NOW - 600_000 };
  const row = queueHealth(facts({ queue: queue({ counts: counts(3) }), workers: [SHELL_WORKER, gone], due: [{ kind: 'resize', runAt: NOW - 1000 }, { kind: 'resize', runAt: NOW - 2000 }, { kind: 'shell', runAt: NOW }] }));
  assert.deepEqual(row.warnings, ['2 jobs of kind resize wait: no worker takes kind resize on queue images (the last one was seen 10m ago).']);
});

test('a paused queue, every queue paused, all running slots in use: each said in words', () => {
  const due = [{ kind: 'shell', runAt: NOW }];
  assert.deepEqual(queueHealth(facts({ queue: queue({ paused: true, counts: counts(1) }), due })).warnings, ['1 job waits: queue images is paused; resume it to run its jobs.']);
  assert.deepEqual(queueHealth(facts({ queue: queue({ counts: counts(2) }), due, allPaused: true })).warnings, ['2 jobs wait: every queue is paused; resume them to run jobs.']);
  assert.deepEqual(queueHealth(facts({ queue: queue({ concurrency: 2, counts: counts(4, 2) }), due })).warnings, ['4 jobs wait: all 2 running slots of queue images are in use.']);
  assert.deepEqual(queueHealth(facts({ queue: queue({ concurrency: 2, counts: counts(0, 2) }) })).warnings, [], 'nothing waits: nothing to warn of');
});

test('groups at their limit: named with their running weight of the limit, a few of them, the rest as "and more"', () => {
  const due = [{ kind: 'shell', runAt: NOW }];
  const group = (name: string, waiting: number): { group: string; waiting: number; running: number; runningWeight: number } => ({ group: name, waiting, running: 2, runningWeight: 2 });
  const grouped = queue({ groupConcurrency: 2, counts: counts(5, 4) });
  assert.deepEqual(queueHealth(facts({ queue: grouped, due, fullGroups: { groups: [group('customer:42', 3), group('customer:7', 2)], more: false } })).warnings, [
    '5 jobs wait in groups at their limit: customer:42 (2 of 2 running), customer:7 (2 of 2 running).',
  ]);
  assert.deepEqual(queueHealth(facts({ queue: grouped, due, fullGroups: { groups: [group('customer:42', 1)], more: false } })).warnings, ['1 job waits in a group at its limit: customer:42 (2 of 2 running).']);
  const many = Array.from({ length: 5 }, (_, i) => group(`c${i}`, 1));
  assert.match(queueHealth(facts({ queue: grouped, due, fullGroups: { groups: many, more: true } })).warnings[0] ?? '', /^5 jobs wait in groups at their limit: c0 \(2 of 2 running\), .*c4 \(2 of 2 running\) and more\.$/);
  assert.deepEqual(queueHealth(facts({ queue: grouped, due, fullGroups: { groups: [], more: false } })).warnings, [], 'no group at its limit: no warning');
  assert.deepEqual(queueHealth(facts({ queue: { ...grouped, paused: true }, due, fullGroups: { groups: [group('customer:42', 3)], more: false } })).warnings, ['5 jobs wait: queue images is paused; resume it to run its jobs.'], 'paused says why first and alone');
});

test('the health table escapes what the daemon sends and puts a queue warnings under its row', () => {
  const html = renderHealth([{ queue: HOSTILE, waiting: 1, running: 0, oldestWaitMs: 1000, ratePerMinute: null, failureRate: null, warnings: [`1 job waits: ${HOSTILE}`] }]);
  assert.ok(!html.includes('<script>'));
  assert.match(html, /<tr class="warnings"/);
  assert.match(html, /<td data-field="rate">—<\/td>/);
  const body = renderDashboardBody({ queues: ['a', 'b'], range: 'day', queue: 'b', health: [], charts: null, note: null });
  assert.match(body, /<h1>Dashboard: b<\/h1>/);
  assert.match(body, /data-range="day" aria-pressed="true"/);
  assert.match(body, /<option value="b" selected>/);
});

test('the document loads only its script and style sheet, by nonce or from the webview source', () => {
  const doc = dashboardDocument('vscode-resource:/dist/dashboardPage.js', 'vscode-resource:/dist/dashboardPage.css', 'vscode-resource:', 'N0NCE');
  assert.match(doc, /default-src 'none'; style-src 'nonce-N0NCE' vscode-resource:; script-src 'nonce-N0NCE' vscode-resource:;/);
  assert.match(doc, /<script nonce="N0NCE" src="vscode-resource:\/dist\/dashboardPage.js">/);
  assert.ok(!/ on[a-z]+=/.test(doc), 'no inline handlers');
});

test('what the page may send: ready, or a range and a queue; anything else is refused', () => {
  assert.deepEqual(readDashboardMessage({ type: 'ready' }), { type: DASHBOARD_MESSAGE.ready });
  assert.deepEqual(readDashboardMessage({ type: 'show', range: 'week', queue: null }), { type: 'show', range: 'week', queue: null });
  assert.equal(readDashboardMessage({ type: 'show', range: 'year', queue: null }), null);
  assert.equal(readDashboardMessage({ type: 'show', range: 'hour', queue: '' }), null);
  assert.equal(readDashboardMessage({ type: 'show', range: 'toString', queue: null }), null);
  assert.equal(readDashboardMessage('ready'), null);
});

test('upcoming schedule fires: the next 24 h of each enabled schedule in its zone, soonest first, across a daylight-saving change', () => {
  // 2026-03-28 12:00 UTC: Europe/Paris moves its clocks from 02:00 to 03:00 on the 29th.
  const now = Date.UTC(2026, 2, 28, 12, 0, 0);
  const rows = upcomingFires(
    [
      { name: 'nightly', cron: '30 2 * * *', timezone: 'Europe/Paris', enabled: true },
      { name: 'hourly', cron: '0 * * * *', timezone: 'UTC', enabled: true },
      { name: 'off', cron: '* * * * *', timezone: 'UTC', enabled: false },
      { name: 'broken', cron: 'not cron', timezone: 'UTC', enabled: true },
      { name: 'busy', cron: '* * * * * *', timezone: 'UTC', enabled: true },
    ],
    now,
  );
  assert.deepEqual(
    rows.map((r) => r.name),
    ['busy', 'hourly', 'nightly'],
  );
  assert.equal(rows.find((r) => r.name === 'hourly')?.fires.length, 24);
  // 02:30 does not exist in Paris that night: Debian cron runs it once at 03:00 local, 01:00 UTC.
  assert.deepEqual(rows.find((r) => r.name === 'nightly')?.fires, [Date.UTC(2026, 2, 29, 1, 0, 0)]);
  const busy = rows.find((r) => r.name === 'busy');
  assert.equal(busy?.fires.length, MAX_FIRES);
  assert.equal(busy?.more, true);
  const html = renderScheduleTimeline(rows, now, (at) => new Date(at).toISOString());
  assert.match(html, /data-schedule="nightly" data-fires="1"/);
  assert.match(html, /1 fire, next 2026-03-29T01:00:00.000Z/);
  assert.match(renderScheduleTimeline([], now, String), /No enabled schedule/);
});
