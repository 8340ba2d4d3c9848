/**
 * Priority ageing's syntax (shared/domain/ageing.ts): what `parseAgeing` reads and refuses,
 * `formatAgeing` giving back exactly what it reads, and the rule the stores' SQL follows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agedPriority, formatAgeing, parseAgeing } from '../../shared/domain/ageing';

test('parseAgeing reads N per DURATION and off, and refuses the rest with the accepted form', () => {
  assert.deepEqual(parseAgeing('1 per 10m'), { ok: true, value: { step: 1, everyMs: 600_000 } });
  assert.deepEqual(parseAgeing('  5 per 1h30m '), { ok: true, value: { step: 5, everyMs: 5_400_000 } });
  assert.deepEqual(parseAgeing('off'), { ok: true, value: null });
  assert.deepEqual(parseAgeing('none'), { ok: true, value: null });
  for (const [text, why] of [
    ['1/10m', /use N per DURATION, like 1 per 10m/],
    ['0 per 10m', /the step must be from 1 to 2000/],
    ['2001 per 1m', /the step must be from 1 to 2000/],
    ['1 per 10', /the interval is not a duration: a number needs a unit/],
    ['1 per 999ms', /the interval must be from 1s to 30d/],
    ['1 per 31d', /the interval must be from 1s to 30d/],
    ['-1 per 1m', /use N per DURATION/],
  ] as const) {
    const r = parseAgeing(text);
    assert.equal(r.ok, false, text);
    if (!r.ok) assert.match(r.message, why, text);
  }
});

test('formatAgeing writes the interval in the largest unit that divides it, which parseAgeing reads back the same', () => {
  for (const [everyMs, text] of [[600_000, '1 per 10m'], [90_000, '1 per 90s'], [1500, '1 per 1500ms'], [86_400_000, '1 per 1d'], [1_209_600_000, '1 per 2w']] as const) {
    assert.equal(formatAgeing({ step: 1, everyMs }), text);
    assert.deepEqual(parseAgeing(text), { ok: true, value: { step: 1, everyMs } });
  }
});

test('agedPriority counts whole steps since the job became due, none before, and stops at the highest priority', () => {
  const ageing = { step: 2, everyMs: 60_000 };
  assert.equal(agedPriority(1, 0, 59_999, ageing), 1);
  assert.equal(agedPriority(1, 0, 60_000, ageing), 3);
  assert.equal(agedPriority(1, 0, 185_000, ageing), 7);
  assert.equal(agedPriority(1, 100_000, 0, ageing), 1, 'not due yet: no step');
  assert.equal(agedPriority(999, 0, 3_600_000, ageing), 1000);
});
