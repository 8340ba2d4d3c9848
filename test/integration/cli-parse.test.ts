/**
 * How the CLI reads what people type: durations, backoff, rates, times, and how it prints
 * times back. Pure functions, so these run in-process; the commands that use them are tested
 * as real processes in the other cli-* files.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CliError } from '../../cli/errors';
import { formatDuration, formatRelative } from '../../cli/format/time';
import { renderTable } from '../../cli/format/table';
import { parseBackoff, parseDuration } from '../../cli/parse/duration';
import { parseRate, parseStates, parseTime } from '../../cli/parse/values';

test('durations take units and combinations, and refuse bare numbers', () => {
  assert.equal(parseDuration('500ms', 'x'), 500);
  assert.equal(parseDuration('30s', 'x'), 30_000);
  assert.equal(parseDuration('5m', 'x'), 300_000);
  assert.equal(parseDuration('1h30m', 'x'), 5_400_000);
  assert.equal(parseDuration('2d', 'x'), 172_800_000);
  assert.equal(parseDuration('1.5s', 'x'), 1500);
  assert.equal(parseDuration('0', 'x'), 0);
  for (const bad of ['30', '', '5 m', 'm5', '5x', '1h 30m', '-5s']) {
    assert.throws(() => parseDuration(bad, '--delay'), (e: unknown) => e instanceof CliError && e.message.includes('--delay'), bad);
  }
  assert.throws(() => parseDuration('30', '--delay'), /Invalid duration "30" for --delay: a number needs a unit \(ms, s, m, h, d or w\), e\.g\. 30s or 30m\./);
});

test('backoff reads strategy:base:cap:jitter, leaving out what is not given', () => {
  assert.deepEqual(parseBackoff('exponential:1s:5m'), { strategy: 'exponential', baseMs: 1000, capMs: 300_000 });
  assert.deepEqual(parseBackoff('linear:10s:2m:0.2'), { strategy: 'linear', baseMs: 10_000, capMs: 120_000, jitter: 0.2 });
  assert.deepEqual(parseBackoff('fixed'), { strategy: 'fixed' });
  assert.throws(() => parseBackoff('random:1s'), /strategies: exponential, linear, fixed/);
  assert.throws(() => parseBackoff('fixed:1s:1m:2'), /jitter "2"/);
  assert.throws(() => parseBackoff('fixed:1s:1m:0.1:extra'), /Invalid backoff/);
});

test('rates read per second, per minute, with a burst, or off', () => {
  assert.deepEqual(parseRate('10/s'), { perSecond: 10, burst: 10 });
  assert.deepEqual(parseRate('600/m'), { perSecond: 10, burst: 10 });
  assert.deepEqual(parseRate('5/s:20'), { perSecond: 5, burst: 20 });
  assert.deepEqual(parseRate('5/s burst 20'), { perSecond: 5, burst: 20 });
  assert.deepEqual(parseRate('0.5/s'), { perSecond: 0.5, burst: 1 });
  assert.equal(parseRate('off'), null);
  assert.throws(() => parseRate('fast'), /Invalid rate "fast"/);
  assert.throws(() => parseRate('0/s'), /above zero/);
  // A rate without a unit of time (10, 5:20) was read per second; it is refused now, as a
  // bare duration always was, with the same rate per second as the suggestion.
  assert.throws(() => parseRate('10'), /Invalid rate "10": a rate needs a unit of time \(s, m or h\), e\.g\. 10\/s/);
  assert.throws(() => parseRate('5:20'), /e\.g\. 5\/s:20/);
});

test('times are ISO dates or +duration from now; states are checked', () => {
  assert.equal(parseTime('2030-01-02T03:04:05Z', '--at'), Date.UTC(2030, 0, 2, 3, 4, 5));
  assert.equal(parseTime('+10m', '--at', 1000), 1000 + 600_000);
  assert.throws(() => parseTime('soon', '--at'), /Invalid time "soon" for --at/);
  assert.deepEqual(parseStates(['dead,cancelled', 'queued']), ['dead', 'cancelled', 'queued']);
  assert.throws(() => parseStates(['done']), /Unknown job state "done"/);
});

test('times print as a person reads them', () => {
  assert.equal(formatDuration(250), '250ms');
  assert.equal(formatDuration(1000), '1s');
  assert.equal(formatDuration(2500), '2.5s');
  assert.equal(formatDuration(45_000), '45s');
  assert.equal(formatDuration(125_000), '2m5s');
  assert.equal(formatDuration(3_600_000 * 26), '1d2h');
  assert.equal(formatRelative(10_000, 13_000), '3s ago');
  assert.equal(formatRelative(10_000 + 300_000, 10_000), 'in 5m');
  assert.equal(formatRelative(10_000, 10_200), 'just now');
  assert.equal(formatRelative(null), '-');
});

test('tables align columns, ignoring colour codes, and right-align numbers', () => {
  const rows = [
    { name: '\x1b[31mred\x1b[39m', n: 5 },
    { name: 'longer-name', n: 120 },
  ];
  const text = renderTable(rows, [
    { header: 'NAME', value: (r) => r.name },
    { header: 'COUNT', value: (r) => String(r.n), right: true },
  ]);
  assert.equal(text, 'NAME         COUNT\n\x1b[31mred\x1b[39m              5\nlonger-name    120\n');
});
