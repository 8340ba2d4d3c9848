import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Plan } from '../../shared/jobsfile';
import { planHash } from '../../shared/jobsfile';

const plan = (changes: Plan['changes'], conflicts: Plan['conflicts'] = []): Pick<Plan, 'changes' | 'conflicts'> => ({ changes, conflicts });

test('a plan hash is the same for the same changes, whatever the key order, and differs when anything shown differs', () => {
  const a = plan([{ action: 'update', type: 'queue', name: 'q', fields: [{ field: 'concurrency', from: 9, to: 4 }] }]);
  const reordered = plan([{ name: 'q', type: 'queue', fields: [{ to: 4, from: 9, field: 'concurrency' }], action: 'update' }]);
  assert.match(planHash(a), /^[0-9a-f]{16}$/);
  assert.equal(planHash(a), planHash(reordered));
  // A note is wording, not substance: the same plan worded differently is the same plan.
  assert.equal(planHash(a), planHash(plan([{ ...a.changes[0]!, note: 'changed by hand' }])));
  assert.notEqual(planHash(a), planHash(plan([{ action: 'update', type: 'queue', name: 'q', fields: [{ field: 'concurrency', from: 8, to: 4 }] }])));
  assert.notEqual(planHash(a), planHash(plan([{ action: 'unchanged', type: 'queue', name: 'q' }])));
  assert.notEqual(planHash(plan([])), planHash(plan([], [{ type: 'schedule', name: 's', owner: null, message: '' }])));
});
