/**
 * The pure parts of retry rules: the glob over an error's first line, which failures a rule makes
 * final (never beats on; on given means only what it names), a rule in words, and how an HTTP
 * Retry-After (seconds or an HTTP date) is read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeRetryRule, finalByRule, globMatches } from '../../shared/domain/rules/retry';
import { parseRetryAfter } from '../../daemon/executors/http';

test('an error glob matches the whole first line: * any run, ? one character, other characters literally', () => {
  assert.equal(globMatches('Timeout*', 'Timeout after 30s'), true);
  assert.equal(globMatches('Timeout*', 'A Timeout'), false);
  assert.equal(globMatches('*(429)*', 'HTTP (429) slow down'), true);
  assert.equal(globMatches('exit ?', 'exit 2'), true);
  assert.equal(globMatches('a.b', 'axb'), false, 'a dot is a dot');
});

test('never beats on, on given makes every other failure final, and no rule retries everything', () => {
  const f = (exitCode: number | null, error = 'x', httpStatus: number | null = null) => ({ error, exitCode, httpStatus });
  assert.equal(finalByRule(null, f(2)), null);
  assert.match(finalByRule({ on: { exitCodes: [2] }, never: { exitCodes: [2] } }, f(2)) ?? '', /never retries exit code 2/);
  assert.equal(finalByRule({ on: { exitCodes: [75] } }, f(75)), null);
  assert.match(finalByRule({ on: { exitCodes: [75] } }, f(1)) ?? '', /retries only the failures its "on" names/);
  assert.equal(finalByRule({ on: { errors: ['Timeout*'] } }, f(null, 'Timeout\nsecond line')), null, 'the first line is matched');
  assert.match(finalByRule({ never: { httpStatus: [422] } }, f(null, 'x', 422)) ?? '', /HTTP status 422/);
});

test('a rule reads in words', () => {
  assert.equal(describeRetryRule({ on: { exitCodes: [75], httpStatus: [502, 503] }, never: { errors: ['Fatal*'] } }), 'retries only exit code 75; HTTP status 502, 503; never retries errors matching "Fatal*"');
});

test('Retry-After is read as seconds or an HTTP date; a past date is no wait, anything else none', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Fri, 01 May 2026 12:01:30 GMT', now), 90_000);
  assert.equal(parseRetryAfter('Fri, 01 May 2026 11:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(null, now), null);
  assert.equal(parseRetryAfter('-5', now), null);
  assert.equal(parseRetryAfter('soon', now), null);
});
