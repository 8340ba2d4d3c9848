/**
 * Configure Queue's settings as typed in its input boxes: group concurrency, group rate, group
 * weights and ageing read in the CLI's syntax, and refused in words that say what to type.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QUEUE_SETTINGS, configuredText, formatGroupWeights, parseAgeingInput, parseConcurrencyInput, parseGroupWeightsInput, parseRateInput, settingValueText } from '../../extension/commands/queues/queueSettings';
import type { Queue } from '../../shared/protocol/types';

const QUEUE: Queue = {
  name: 'emails', concurrency: 4, rateLimit: null, paused: false, defaultMaxAttempts: 3,
  defaultBackoff: { strategy: 'fixed', baseMs: 1000, capMs: 1000, jitter: 0 }, defaultTimeoutMs: 30_000, retentionMs: null, limits: {},
  counts: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 }, delayed: 0, createdAt: 0,
  groupConcurrency: 2, groupRate: { perSecond: 5, burst: 5 }, groupWeights: { 'customer:42': 3 }, grouped: true,
};

function setting(label: string): (typeof QUEUE_SETTINGS)[number] {
  const found = QUEUE_SETTINGS.find((s) => s.label === label);
  assert.ok(found, label);
  return found;
}

test('Configure Queue lists every setting with its value now, in the syntax its input box reads', () => {
  assert.deepEqual(QUEUE_SETTINGS.map((s) => [s.label, settingValueText(s, QUEUE)]), [
    ['Concurrency', '4'],
    ['Rate limit', 'no limit'],
    ['Group concurrency', '2'],
    ['Group rate', '5/s burst 5'],
    ['Group weights', 'customer:42=3'],
    ['Ageing', 'off'],
  ]);
  assert.equal(settingValueText(setting('Ageing'), { ...QUEUE, ageing: '1 per 10m' }), '1 per 10m');
  assert.equal(configuredText({ ...QUEUE, ageing: '1 per 10m' }), 'queue emails configured: at most 4 running at once, no rate limit, at most 2 running per group, at most 5/s burst 5 per group, ageing 1 per 10m.');
});

test('each answer becomes the change of its own field; empty removes it', () => {
  assert.deepEqual(setting('Group concurrency').parse('3'), { ok: true, value: { groupConcurrency: 3 } });
  assert.deepEqual(setting('Group concurrency').parse(''), { ok: true, value: { groupConcurrency: null } });
  assert.deepEqual(setting('Group rate').parse('60/m burst 10'), { ok: true, value: { groupRate: { perSecond: 1, burst: 10 } } });
  assert.deepEqual(setting('Group weights').parse(' customer:42=3,customer:7=2 '), { ok: true, value: { groupWeights: { 'customer:42': 3, 'customer:7': 2 } } });
  assert.deepEqual(setting('Group weights').parse(''), { ok: true, value: { groupWeights: null } });
  assert.deepEqual(setting('Ageing').parse('1 per 10m'), { ok: true, value: { ageing: '1 per 10m' } });
  assert.deepEqual(setting('Ageing').parse('off'), { ok: true, value: { ageing: null } });
  assert.equal(formatGroupWeights({ 'customer:42': 3, 'customer:7': 2 }), 'customer:42=3, customer:7=2');
});

test('a bad answer is refused saying what to type', () => {
  const refused = (p: { ok: boolean; message?: string }): string => (p.ok ? 'accepted' : (p.message ?? ''));
  assert.match(refused(parseConcurrencyInput('0', 'group concurrency')), /^Group concurrency must be an integer from 1 to \d+ \(got 0\), or leave it empty for no limit\.$/);
  assert.match(refused(parseRateInput('5')), /^A rate needs a unit of time \(s, m or h\), e\.g\. 5\/s.*or leave it empty for no limit\.$/);
  assert.equal(refused(parseGroupWeightsInput('customer:42')), '"customer:42" needs a weight: write it as customer:42=3 (groups not named weigh 1).');
  assert.match(refused(parseGroupWeightsInput('a b=2')), /^Group key "a b" must be 1 to 128 characters of letters, digits/);
  assert.equal(refused(parseGroupWeightsInput('customer:42=0')), 'The weight of customer:42 must be a whole number from 1 to 1000 (got "0").');
  assert.equal(refused(parseGroupWeightsInput('a=1, a=2')), 'a is named twice: give each group one weight.');
  assert.match(refused(parseAgeingInput('every 10m')), /^Write ageing as N per DURATION, like 1 per 10m/);
  assert.match(refused(parseAgeingInput('1 per 10')), /^"10" is not a duration: a number needs a unit/);
  assert.equal(refused(parseAgeingInput('1 per 10ms')), 'The time in 1 per 10ms must be 1s or more.');
  assert.match(refused(parseAgeingInput('0 per 10m')), /^The priority step must be from 1 to 2000 \(got 0\)/);
});
