/**
 * `spool enqueue --at`: how a start time is read, said back, and refused when it is past. The
 * clock is passed in, and times with a zone are used, so nothing depends on the machine's date
 * or zone (the local-zone reading is tested with TZ set on the CLI process, in cli-commands).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AT_TOLERANCE_MS, parseStartTime } from '../../cli/parse/startTime';

const now = Date.UTC(2030, 5, 15, 12, 0, 0);

test('a time with Z or an offset is read there and said back in the zone it was written in', () => {
  assert.deepEqual(parseStartTime('2030-06-16T09:00Z', '--at', now), { at: Date.UTC(2030, 5, 16, 9, 0), shown: '2030-06-16 09:00 UTC', passed: false });
  assert.deepEqual(parseStartTime('2030-06-16T09:00:30+02:00', '--at', now), { at: Date.UTC(2030, 5, 16, 7, 0, 30), shown: '2030-06-16 09:00:30 +02:00', passed: false });
  assert.equal(parseStartTime('2030-06-16T09:00-0530', '--at', now).shown, '2030-06-16 09:00 -05:30');
});

test('a time in the past is refused, saying what was read and how long ago', () => {
  assert.throws(
    () => parseStartTime('2030-06-15T09:00Z', '--at', now),
    (error: Error) => error.message === '--at 2030-06-15T09:00Z is in the past: it reads as 2030-06-15 09:00 UTC, 3h ago. Give a later time, or +30m for a time from now; leave out --at to run at once.',
  );
});

test('a time just past, within the tolerance, is taken and marked as passed', () => {
  const justNow = new Date(now - AT_TOLERANCE_MS + 1000).toISOString();
  const read = parseStartTime(justNow, '--at', now);
  assert.equal(read.at, now - AT_TOLERANCE_MS + 1000);
  assert.equal(read.passed, true);
  assert.throws(() => parseStartTime(new Date(now - AT_TOLERANCE_MS - 1000).toISOString(), '--at', now), /is in the past/);
});

test('+duration is from now; nonsense is refused as before', () => {
  assert.equal(parseStartTime('+30m', '--at', now).at, now + 30 * 60_000);
  assert.throws(() => parseStartTime('soon', '--at', now), /Invalid time "soon" for --at/);
});
