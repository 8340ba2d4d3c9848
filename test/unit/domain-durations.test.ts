/**
 * The one syntax for durations, rates and backoff (shared/domain), which the CLI, the extension
 * and the jobs file all read: what each accepts, what each refuses and with which words, and
 * that what the formatters print reads back to the same value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBackoff, parseBackoff } from '../../shared/domain/backoff';
import { formatDuration, parseDuration } from '../../shared/domain/durations';
import type { Parsed } from '../../shared/domain/parsed';
import { formatRate, parseRate } from '../../shared/domain/rates';

function value<T>(result: Parsed<T>): T {
  if (!result.ok) assert.fail(`refused: ${result.message}`);
  return result.value;
}

function message<T>(result: Parsed<T>): string {
  if (result.ok) assert.fail(`accepted as ${JSON.stringify(result.value)}`);
  return result.message;
}

test('durations take a unit from ms to w, decimals and combinations, and zero alone', () => {
  const cases: [string, number][] = [
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['1w', 604_800_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    [' 10s ', 10_000],
    ['0', 0],
    ['0s', 0],
  ];
  for (const [text, ms] of cases) assert.equal(value(parseDuration(text)), ms, text);
});

test('a bare number is refused as a duration, with the units that are allowed', () => {
  for (const bare of ['30', '1.5', '600']) {
    const text = message(parseDuration(bare));
    assert.match(text, /needs a unit \(ms, s, m, h, d or w\)/, bare);
    assert.match(text, new RegExp(`e\\.g\\. ${bare.replace('.', '\\.')}s`), 'it suggests the same number with a unit');
  }
});

test('other malformed durations are refused, naming the units and giving examples', () => {
  for (const bad of ['', '5 m', 'm5', '5x', '1h 30m', '5sec', '1e3s']) {
    assert.match(message(parseDuration(bad)), /use a number with a unit \(ms, s, m, h, d or w\), like 500ms/, bad);
  }
  assert.equal(message(parseDuration('-5s')), 'it cannot be negative');
  assert.match(message(parseDuration(`${'9'.repeat(30)}w`)), /too long/);
});

test('durations print with two units at most, in the syntax they are read in', () => {
  const cases: [number, string][] = [
    [250, '250ms'],
    [1000, '1s'],
    [2500, '2.5s'],
    [45_000, '45s'],
    [125_000, '2m5s'],
    [1_200_000, '20m'],
    [4_800_000, '1h20m'],
    [3_600_000 * 26, '1d2h'],
    [86_400_000 * 3, '3d'],
  ];
  for (const [ms, text] of cases) {
    assert.equal(formatDuration(ms), text, String(ms));
    assert.equal(value(parseDuration(text)), ms, `${text} reads back`);
  }
});

test('durations print as one rounded unit for a glance, never below whole seconds', () => {
  const cases: [number, string][] = [
    [250, '0s'],
    [44_600, '45s'],
    [90_000, '2m'],
    [5_400_000, '2h'],
    [86_400_000 * 5, '5d'],
    [-90_000, '2m'],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms, 1), text, String(ms));
});

test('rates take jobs per second, minute or hour, with or without a burst, or off', () => {
  assert.deepEqual(value(parseRate('10/s')), { perSecond: 10, burst: 10 });
  assert.deepEqual(value(parseRate('600/m')), { perSecond: 10, burst: 10 });
  assert.deepEqual(value(parseRate('7200/h')), { perSecond: 2, burst: 2 });
  assert.deepEqual(value(parseRate('0.5/s')), { perSecond: 0.5, burst: 1 });
  assert.deepEqual(value(parseRate('10/s burst 20')), { perSecond: 10, burst: 20 });
  assert.deepEqual(value(parseRate('10 / s  burst 20')), { perSecond: 10, burst: 20 });
  assert.deepEqual(value(parseRate('5/s:20')), { perSecond: 5, burst: 20 });
  assert.equal(value(parseRate('off')), null);
  assert.equal(value(parseRate('none')), null);
});

test('a bare number is refused as a rate, suggesting the same rate per second', () => {
  assert.match(message(parseRate('10')), /a rate needs a unit of time \(s, m or h\), e\.g\. 10\/s;/);
  assert.match(message(parseRate('5:20')), /e\.g\. 5\/s:20;/);
});

test('other malformed rates are refused with the syntax; zero is refused with the way to remove a limit', () => {
  for (const bad of ['', 'fast', '10/d', '10/s burst', '10/s burst -1', '/s']) {
    assert.match(message(parseRate(bad)), /use jobs per unit of time \(s, m or h\), like 10\/s, 600\/m or 10\/s burst 20, or off/, bad);
  }
  assert.match(message(parseRate('0/s')), /above zero; use off/);
  assert.match(message(parseRate('10/s burst 0')), /burst must be 1 or more/);
});

test('rates print in the syntax they are read in, per minute or hour when per second is a fraction', () => {
  const cases: [{ perSecond: number; burst: number }, string][] = [
    [{ perSecond: 10, burst: 20 }, '10/s burst 20'],
    [{ perSecond: 2.5, burst: 3 }, '2.5/s burst 3'],
    [{ perSecond: 0.5, burst: 1 }, '30/m burst 1'],
    [{ perSecond: 0.1, burst: 1 }, '6/m burst 1'],
    [{ perSecond: 1 / 3600, burst: 1 }, '1/h burst 1'],
  ];
  for (const [rate, text] of cases) {
    assert.equal(formatRate(rate), text);
    const back = value(parseRate(text));
    assert.ok(back !== null && Math.abs(back.perSecond - rate.perSecond) < 1e-12 && back.burst === rate.burst, `${text} reads back`);
  }
  assert.equal(formatRate({ perSecond: 10, burst: 20 }, false), '10/s');
});

test('backoff reads strategy:base:cap:jitter, leaving out what is not given', () => {
  assert.deepEqual(value(parseBackoff('exponential:1s:5m')), { strategy: 'exponential', baseMs: 1000, capMs: 300_000 });
  assert.deepEqual(value(parseBackoff('linear:10s:2m:0.2')), { strategy: 'linear', baseMs: 10_000, capMs: 120_000, jitter: 0.2 });
  assert.deepEqual(value(parseBackoff('fixed')), { strategy: 'fixed' });
  assert.deepEqual(value(parseBackoff('fixed::1m')), { strategy: 'fixed', capMs: 60_000 });
});

test('a malformed backoff is refused, naming the part at fault and what it allows', () => {
  assert.match(message(parseBackoff('random:1s')), /strategies: exponential, linear, fixed/);
  assert.match(message(parseBackoff('fixed:1s:1m:0.1:extra')), /use strategy\[:base\[:cap\[:jitter\]\]\]/);
  assert.match(message(parseBackoff('fixed:1s:1m:2')), /jitter "2": a fraction from 0 to 1/);
  assert.match(message(parseBackoff('fixed:30')), /base "30": a number needs a unit/);
  assert.match(message(parseBackoff('exponential:1s:5x')), /cap "5x": use a number with a unit/);
});

test('a backoff prints in the syntax it is read in', () => {
  const b = { strategy: 'exponential' as const, baseMs: 1000, capMs: 300_000, jitter: 0.2 };
  assert.equal(formatBackoff(b), 'exponential:1s:5m:0.2');
  assert.deepEqual(value(parseBackoff(formatBackoff(b))), b);
});
