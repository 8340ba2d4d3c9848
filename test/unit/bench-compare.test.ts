/**
 * The arithmetic and the command line of `bench compare` (bench/compareStats.ts,
 * bench/compareArgs.ts): the block order that spreads the machine's drift over both builds, the
 * medians and ratios it prints, and the options it accepts. The run itself is tested against real
 * daemons in test/integration/bench-compare.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMPARE_DEFAULTS, parseCompareArgs, UsageError } from '../../bench/compareArgs';
import { blockOrder, compareFigure, comparisonTable, describeChange, spread, type FigureSpec } from '../../bench/compareStats';

const RATE: FigureSpec = { name: 'enqueue', unit: 'jobs/s', higherIsBetter: true };
const COST: FigureSpec = { name: 'CPU per job', unit: 'µs/job', higherIsBetter: false };

test('blocks alternate A B B A: over an even number of blocks each build goes first as often', () => {
  assert.deepEqual([0, 1, 2, 3].map(blockOrder), [
    ['old', 'new'],
    ['new', 'old'],
    ['old', 'new'],
    ['new', 'old'],
  ]);
  const firsts = Array.from({ length: 6 }, (_, block) => blockOrder(block)[0]);
  assert.equal(firsts.filter((side) => side === 'old').length, 3);
});

test('spread: the median (mean of the middle two for an even count), the minimum and the maximum', () => {
  assert.deepEqual(spread([3, 1, 2]), { median: 2, min: 1, max: 3 });
  assert.deepEqual(spread([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4 });
  assert.ok(Number.isNaN(spread([]).median));
});

test('a rate that drops 5 % and a cost that rises 5 % are both 5 % worse', () => {
  const rate = compareFigure({ spec: RATE, old: [100, 200], new: [95, 190] });
  assert.ok(Math.abs(rate.ratio - 0.95) < 1e-12);
  assert.ok(Math.abs(rate.worsePercent - 5) < 1e-9);
  const cost = compareFigure({ spec: COST, old: [10, 10, 10], new: [10.5, 10.5, 10.5] });
  assert.ok(Math.abs(cost.worsePercent - 5) < 1e-9);
  const faster = compareFigure({ spec: RATE, old: [100], new: [110] });
  assert.ok(faster.worsePercent < 0, 'a higher rate is better');
});

test('per-block ratios pair each block\'s old and new values, which ran minutes apart at most', () => {
  // The machine halves its speed in the second block: the medians' ratio is 1, and so is each block's.
  const f = compareFigure({ spec: RATE, old: [200, 100], new: [200, 100] });
  assert.deepEqual(f.blockRatios, { median: 1, min: 1, max: 1 });
  const g = compareFigure({ spec: RATE, old: [200, 100], new: [180, 110] });
  assert.ok(Math.abs(g.blockRatios.min - 0.9) < 1e-12);
  assert.ok(Math.abs(g.blockRatios.max - 1.1) < 1e-12);
});

test('the change in words: worse, better, or the same under 0.05 %', () => {
  assert.equal(describeChange(5), 'new 5.0 % worse');
  assert.equal(describeChange(-1.26), 'new 1.3 % better');
  assert.equal(describeChange(0.01), 'same');
});

test('the table: one aligned Markdown row per figure, with medians, ranges, ratio and change', () => {
  const lines = comparisonTable([compareFigure({ spec: RATE, old: [30_000, 31_000], new: [28_500, 29_450] }), compareFigure({ spec: COST, old: [33.3, 35.1], new: [33.3, 35.1] })]);
  assert.equal(lines.length, 4);
  assert.match(lines[0], /^\| figure +\| +old: median \(min–max\) \| +new: median \(min–max\) \| new\/old \| +per block \| change +\|$/);
  assert.match(lines[1], /^\|-+\|-+:\|-+:\|-+:\|-+:\|-+\|$/);
  assert.match(lines[2], /^\| enqueue \(jobs\/s, higher is better\) +\| 30,500 \(30,000–31,000\) \| 28,975 \(28,500–29,450\) \| +0\.950 \| 0\.950–0\.950 \| new 5\.0 % worse \|$/);
  assert.match(lines[3], / +34\.2 \(33\.3–35\.1\) \| +34\.2 \(33\.3–35\.1\) \| +1\.000 \| 1\.000–1\.000 \| same +\|$/);
  assert.equal(new Set(lines.map((l) => l.length)).size, 1, 'every line as wide as the others');
});

test('options: --old is required, the rest have defaults', () => {
  assert.deepEqual(parseCompareArgs(['--old', 'main']), { old: 'main', new: null, ...COMPARE_DEFAULTS });
  assert.deepEqual(parseCompareArgs(['--old', '../a', '--new', '../b', '--blocks', '4', '--jobs', '2000', '--samples', '50']), {
    old: '../a',
    new: '../b',
    blocks: 4,
    jobs: 2000,
    samples: 50,
  });
});

test('a wrong option is a usage error that names it and what it allows', () => {
  const fails = (args: string[], message: RegExp): void => assert.throws(() => parseCompareArgs(args), (e: unknown) => e instanceof UsageError && message.test(e.message));
  fails([], /^--old: required/);
  fails(['--old', 'main', '--blocks', '1'], /^--blocks: expected a whole number from 2 to 1,000, got '1'\.$/);
  fails(['--old', 'main', '--jobs', '5k'], /^--jobs: expected a whole number from 1,000 to 10,000,000, got '5k'\.$/);
  fails(['--old', 'main', '--samples', '-3'], /--samples/);
  fails(['--old', 'main', '--new', ''], /^--new: expected a folder or a git ref/);
  fails(['--old', 'main', '--frob'], /'--frob'.*Options: --old, --new, --blocks, --jobs, --samples/);
  fails(['--old', 'main', 'extra'], /Options: --old/);
});
