import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../daemon/lifecycle/logger';

// A handler may throw anything; the line that logs it must be written, not throw in its turn
// (the caller's answer or task depends on the log call returning).
for (const format of ['text', 'json'] as const) {
  test(`the ${format} log writes a line for fields JSON cannot encode (a circular object, a BigInt) instead of throwing`, () => {
    const lines: string[] = [];
    const log = createLogger(format, (line) => lines.push(line));
    const circular: Record<string, unknown> = { name: 'loop' };
    circular['self'] = circular;
    log.error('Unexpected error in jobs.cancel', { connection: 7, error: circular, big: 12n });
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /Unexpected error in jobs\.cancel/);
    assert.match(lines[0] ?? '', /12/);
    assert.match(lines[0] ?? '', /\[object Object\]/);
    if (format === 'json') assert.doesNotThrow(() => JSON.parse(lines[0] ?? ''));
  });
}
