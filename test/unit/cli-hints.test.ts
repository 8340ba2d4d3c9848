import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newQueueNote } from '../../cli/hints';
import { closest } from '../../shared/domain/present';

test('closest finds a name within two edits, a swap of neighbours counting as one', () => {
  const queues = ['builds', 'images', 'mail'];
  assert.equal(closest('bulids', queues), 'builds', 'a swap');
  assert.equal(closest('imags', queues), 'images', 'a letter missing');
  assert.equal(closest('imagesx', queues), 'images', 'a letter too many');
  assert.equal(closest('buildz2', queues), 'builds', 'two edits');
  assert.equal(closest('buildzzz', queues), undefined, 'three edits');
  assert.equal(closest('reports', queues), undefined);
  assert.equal(closest('anything', []), undefined);
});

test('closest prefers the nearest name, and leaves short names alone', () => {
  assert.equal(closest('mails', ['nails', 'mail']), 'nails', 'first of equals');
  assert.equal(closest('jobs.lsit', ['jobs.get', 'jobs.list']), 'jobs.list');
  // One edit apart, but "q1" and "q2" are as likely two queues as a typo.
  assert.equal(closest('q2', ['q1']), undefined);
  // Nor three letters: "cap" is no typo of "cas".
  assert.equal(closest('cap', ['cas']), undefined);
  assert.equal(closest('evn', ['env']), 'env', 'two neighbours swapped are a typo even in three letters');
  assert.equal(closest('caps', ['cars']), 'cars', 'one edit in four letters');
  assert.equal(closest('bulidz', ['builds']), undefined, 'two edits in six letters');
});

test('newQueueNote speaks only of a new queue close to an existing one', () => {
  assert.equal(newQueueNote('bulids', ['builds']), 'This made a new queue, "bulids"; did you mean "builds"?');
  assert.equal(newQueueNote('builds', ['builds']), null, 'not new');
  assert.equal(newQueueNote('reports', ['builds']), null, 'new, and not like any other');
});
