/**
 * "All matching the filter": the Queues view's filter and where the action started become the
 * bulk methods' filters, covering exactly the jobs the tree shows, and the confirmation's words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bulkFilterWords, bulkFilters, bulkQuestion, isEmptyFilter } from '../../extension/commands/jobs/bulkFilter';

test('the view filter and the queue it starts from make one filter, named in the words of spool jobs', () => {
  assert.deepEqual(bulkFilters({ states: ['dead'] }, { queue: 'emails' }), [{ queue: 'emails', states: ['dead'] }]);
  assert.equal(bulkFilterWords({ states: ['dead'] }, { queue: 'emails' }), 'state=dead queue=emails');
  assert.equal(bulkQuestion('retry', 1204, 'state=dead queue=emails'), 'Retry 1,204 jobs matching state=dead queue=emails?');
  assert.equal(bulkQuestion('priority', 1, 'group=customer:42', 5), 'Set the priority of 1 job matching group=customer:42 to 5?');
  assert.deepEqual(bulkFilters({ kind: 'shell', search: 'timeout' }, {}), [{ kind: 'shell', search: 'timeout' }]);
  assert.equal(bulkFilterWords({ kind: 'shell', search: 'timeout' }, {}), 'kind=shell search="timeout"');
  assert.deepEqual(bulkFilters({}, { queue: 'q', group: 'customer:42' }), [{ queue: 'q', group: 'customer:42' }]);
});

test('due and delayed queued jobs are told apart as the tree shows them; a state group narrows the filter', () => {
  assert.deepEqual(bulkFilters({ states: ['queued'] }, {}), [{ states: ['queued'], delayed: false }]);
  assert.deepEqual(bulkFilters({ states: ['delayed', 'dead'] }, {}), [{ states: ['dead'] }, { states: ['queued'], delayed: true }]);
  assert.deepEqual(bulkFilters({ states: ['queued', 'delayed'] }, {}), [{ states: ['queued'] }], 'both: every queued job');
  assert.deepEqual(bulkFilters({ kind: 'mail' }, { queue: 'q', state: 'retrying' }), [{ queue: 'q', kind: 'mail', states: ['retrying'] }]);
  assert.deepEqual(bulkFilters({ states: ['dead'] }, { queue: 'q', state: 'retrying' }), [], 'a group the filter does not show matches nothing');
});

test('no filter and no scope: a filter naming nothing, which the command refuses rather than act on every job', () => {
  const filters = bulkFilters({}, {});
  assert.equal(filters.length, 1);
  assert.equal(isEmptyFilter(filters[0]!), true);
});
