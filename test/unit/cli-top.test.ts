/**
 * `spool top`'s pure parts: rates and sparklines from its own samples of the counts, and the
 * screen's lines for a size (the terminal itself is driven in test/integration/cli-top.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueueStats, Stats } from '../../shared/protocol/messages';
import type { JobCounts } from '../../shared/protocol/types';
import { progressBar, rateText, RateSampler, sparkline } from '../../cli/top/rates';
import { render, type TopState } from '../../cli/top/view';

function counts(partial: Partial<JobCounts>): JobCounts {
  return { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0, ...partial };
}

function stats(queues: QueueStats[]): Stats {
  const totals = counts({});
  return { queues, totals, completedLastMinute: 0, failedLastMinute: 0, completedLastHour: 0, failedLastHour: 0, at: 0 };
}

test('rates come from the differences between samples; a count that goes down is no negative rate', () => {
  const sampler = new RateSampler();
  const q = (completed: number, dead: number): QueueStats => ({ name: 'a', paused: false, delayed: 0, counts: counts({ completed, dead }) });
  sampler.sample(stats([q(0, 0)]), 0);
  assert.deepEqual(sampler.rates('a'), { completedPerSecond: 0, deadPerSecond: 0, history: [] }, 'one sample is no rate yet');
  sampler.sample(stats([q(10, 2)]), 1000);
  sampler.sample(stats([q(30, 2)]), 2000);
  assert.deepEqual(sampler.rates('a'), { completedPerSecond: 15, deadPerSecond: 1, history: [12, 20] });
  // Completed jobs pruned: the count drops; that second counts as nothing ended.
  sampler.sample(stats([q(5, 2)]), 3000);
  assert.deepEqual(sampler.rates('a').history, [12, 20, 0]);
  assert.deepEqual(sampler.rates('nothing'), { completedPerSecond: 0, deadPerSecond: 0, history: [] });
});

test('a sparkline is right-aligned, scaled to its largest value, blank for zero', () => {
  assert.equal(sparkline([0, 1, 2, 4, 8], 8), '    ▁▂▄█');
  assert.equal(sparkline([5, 5], 3), ' ██');
  assert.equal(sparkline([1, 2, 3], 2), '▆█', 'only the newest that fit');
  assert.equal(sparkline([], 0), '');
  assert.equal(rateText(0), '0');
  assert.equal(rateText(0.44), '0.4');
  assert.equal(rateText(12.4), '12');
  assert.equal(rateText(1500), '1.5k');
  assert.equal(progressBar(50, 4), '██  ');
  assert.equal(progressBar(100, 3), '███');
});

test('the screen has exactly its height, no line wider than its width, and says when the daemon is lost', () => {
  const state: TopState = {
    endpoint: '/run/spool.sock',
    connected: false,
    stats: stats([{ name: 'a-queue-with-a-rather-long-name-indeed', paused: true, delayed: 1, counts: counts({ queued: 3, dead: 1 }) }]),
    running: [],
    failures: [],
    pane: 'queues',
    selected: { queues: 0, running: 0, failures: 0 },
    log: null,
    help: false,
    message: null,
    rates: () => ({ completedPerSecond: 0, deadPerSecond: 0, history: [1, 2] }),
  };
  for (const [width, height] of [[40, 10], [120, 40], [200, 60]] as const) {
    const lines = render(state, width, height, 0).map((line) => line.map((s) => s.text).join(''));
    assert.equal(lines.length, height);
    for (const line of lines) assert.ok(line.length <= width, `${JSON.stringify(line)} fits ${width}`);
    assert.equal(lines[1], 'lost the daemon at /run/spool.sock; reconnecting…'.slice(0, width));
  }
  const wide = render(state, 120, 40, 0).map((line) => line.map((s) => s.text).join(''));
  assert.ok(wide.some((line) => /^a-queue-with-a-rather-l… +2 +0 +1 +0 +1 /.test(line)), wide.join('\n'));
});
