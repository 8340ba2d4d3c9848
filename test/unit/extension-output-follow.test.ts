/**
 * When a job's output document follows its end (extension/documents/outputEnd.ts): the editor
 * that shows the last line, or the one above the empty line after the output's last line break,
 * is at the end; one scrolled up is not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { showsEnd } from '../../extension/documents/outputEnd';

test('an editor follows the output while it shows its end, and not once scrolled up', () => {
  // "a\nb\nc\n": 4 lines, the last one empty.
  assert.equal(showsEnd(3, 4), true, 'the empty last line in view');
  assert.equal(showsEnd(2, 4), true, 'the last line of output in view');
  assert.equal(showsEnd(1, 4), false, 'scrolled up by a line');
  assert.equal(showsEnd(0, 1), true, 'an empty document');
  assert.equal(showsEnd(40, 1000), false);
  assert.equal(showsEnd(999, 1000), true);
});
