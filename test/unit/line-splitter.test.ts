/**
 * The framing: a large line that arrives in many reads is reassembled byte for byte (past the
 * size where it is kept in slabs), and what is held of an unfinished line is reported and dropped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter } from '../../shared/protocol/lines';

test('a 3 MiB line read in odd-sized pieces comes out whole, and nothing is held after it', () => {
  const lines: string[] = [];
  const splitter = new LineSplitter({ maxLineBytes: 16 * 1024 * 1024, onLine: (l) => lines.push(l), onOverflow: () => assert.fail('no overflow') });
  const text = Array.from({ length: 3 * 1024 * 1024 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  const data = Buffer.from(`${text}\n{"next":1}\n`);
  for (let offset = 0; offset < data.length; offset += 65_521) {
    splitter.push(data.subarray(offset, offset + 65_521));
    if (offset + 65_521 < text.length) assert.equal(splitter.buffered, offset + 65_521);
  }
  assert.deepEqual(lines, [text, '{"next":1}']);
  assert.equal(splitter.buffered, 0);
});

test('discard drops an unfinished line and ignores what follows', () => {
  const lines: string[] = [];
  const splitter = new LineSplitter({ maxLineBytes: 1024 * 1024, onLine: (l) => lines.push(l), onOverflow: () => assert.fail('no overflow') });
  splitter.push(Buffer.alloc(200_000, 'x'));
  assert.equal(splitter.buffered, 200_000);
  splitter.discard();
  assert.equal(splitter.buffered, 0);
  splitter.push(Buffer.from('\n{"a":1}\n'));
  assert.deepEqual(lines, []);
});

test('nesting is counted as bytes arrive: a line past maxDepth is reported once, skipped to its newline, and the next line is whole', () => {
  const events: string[] = [];
  const splitter = new LineSplitter({
    maxLineBytes: 1024 * 1024,
    maxDepth: 3,
    onLine: (l) => events.push(l),
    onOverflow: () => events.push('overflow'),
    onTooDeep: () => events.push('too deep'),
  });
  // Brackets inside strings (escaped quotes too) do not count; three levels pass.
  const fine = '{"a":[{"s":"[[[{{{\\"[[["}]}';
  // Four levels, cut across reads, with a long tail that is skipped, not kept.
  const deep = '[[[[' + '1,'.repeat(100_000) + '1]]]]';
  const data = Buffer.from(`${fine}\n${deep}\n{"after":1}\n`);
  for (let offset = 0; offset < data.length; offset += 3) {
    splitter.push(data.subarray(offset, offset + 3));
    assert.ok(splitter.buffered < 64, `held ${splitter.buffered} bytes of a line already refused`);
  }
  assert.deepEqual(events, [fine, 'too deep', '{"after":1}']);
});

test('a skipped line still counts toward maxLineBytes; the limit can be raised for later lines', () => {
  const events: string[] = [];
  const splitter = new LineSplitter({ maxLineBytes: 100, maxDepth: 2, onLine: (l) => events.push(l), onOverflow: (n) => events.push(`overflow ${n}`), onTooDeep: () => events.push('too deep') });
  splitter.setMaxLineBytes(1000);
  splitter.push(Buffer.from(`${'x'.repeat(500)}\n`));
  splitter.push(Buffer.from('[[['));
  splitter.push(Buffer.from('0'.repeat(2000)));
  assert.deepEqual(events, ['x'.repeat(500), 'too deep', 'overflow 2003']);
});
