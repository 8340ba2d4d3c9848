/** Sizes: the one parser the CLI, the extension and the jobs file use for memory limits, and its formatter. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSize, parseSize } from '../../shared/domain/sizes';

function bytes(text: string): number {
  const result = parseSize(text);
  assert.ok(result.ok, `${text}: ${result.ok ? '' : result.message}`);
  return result.value;
}

function refusal(text: string): string {
  const result = parseSize(text);
  assert.ok(!result.ok, `${text} is refused`);
  return result.message;
}

test('binary units and the short forms, which are binary too', () => {
  assert.equal(bytes('512KiB'), 512 * 1024);
  assert.equal(bytes('512MiB'), 512 * 1024 ** 2);
  assert.equal(bytes('2GiB'), 2 * 1024 ** 3);
  assert.equal(bytes('1TiB'), 1024 ** 4);
  assert.equal(bytes('64k'), 64 * 1024);
  assert.equal(bytes('512M'), 512 * 1024 ** 2);
  assert.equal(bytes('2G'), 2 * 1024 ** 3);
  assert.equal(bytes('2g'), 2 * 1024 ** 3);
  assert.equal(bytes('100B'), 100);
  assert.equal(bytes(' 512 MiB '), 512 * 1024 ** 2);
});

test('decimals are rounded to whole bytes', () => {
  assert.equal(bytes('1.5GiB'), 1.5 * 1024 ** 3);
  assert.equal(bytes('0.5k'), 512);
});

test('a bare number, a negative one, an unknown unit or a size too large is refused, saying what to write', () => {
  assert.match(refusal('512'), /needs a unit .* e\.g\. 512MiB/);
  assert.match(refusal('-1M'), /cannot be negative/);
  assert.match(refusal('5 apples'), /use a number with a unit, like 512MiB/);
  assert.match(refusal(''), /use a number with a unit/);
  assert.match(refusal('M'), /use a number with a unit/);
  assert.match(refusal('99999999TiB'), /too large/);
});

test('formatSize picks the largest whole unit, else one decimal, else bytes', () => {
  assert.equal(formatSize(512 * 1024 ** 2), '512 MiB');
  assert.equal(formatSize(2 * 1024 ** 3), '2 GiB');
  assert.equal(formatSize(1536 * 1024), '1.5 MiB');
  assert.equal(formatSize(1536), '1.5 KiB');
  assert.equal(formatSize(1025), '1 KiB');
  assert.equal(formatSize(100), '100 B');
  assert.equal(formatSize(0), '0 B');
});

test('what formatSize writes, parseSize reads back', () => {
  for (const n of [1, 1024, 65536, 512 * 1024 ** 2, 3 * 1024 ** 4]) assert.equal(bytes(formatSize(n)), n);
});
