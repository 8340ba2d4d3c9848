/**
 * The one validation library (shared/domain/validate.ts), used by the daemon's RPC handlers and
 * the engine alike: every refusal is InvalidParams with `data.field` and, where there is a short
 * form, `data.allowed`, in one wording: "<field> must be … (got …)" and 'Unknown field "…".
 * Allowed: ….'.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { array, choiceList, integer, jsonText, name, nonEmptyString, object, oneOf, optionalChoiceList } from '../../shared/domain/validate';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';

function refusal(fn: () => unknown): SpoolError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SpoolError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

test('refusals name the field, what is allowed and what was given, in one wording', () => {
  const cases: [() => unknown, string, RegExp, string | undefined][] = [
    [() => integer(5000, 'priority', -1000, 1000), 'priority', /^priority must be an integer from -1000 to 1000 \(got 5000\)$/, '-1000..1000'],
    [() => nonEmptyString(undefined, 'id'), 'id', /^id must be a non-empty string \(got nothing\)$/, 'a non-empty string'],
    [() => nonEmptyString('', 'name'), 'name', /^name must be a non-empty string \(got ""\)$/, 'a non-empty string'],
    [() => oneOf('random', 'backoff.strategy', ['fixed', 'linear']), 'backoff.strategy', /^backoff\.strategy must be one of fixed, linear \(got "random"\)$/, 'fixed, linear'],
    [() => array('x', 'tags', 3), 'tags', /^tags must be an array \(got "x"\)$/, undefined],
    [() => name('bad name', 'queue'), 'queue', /^queue must be 1 to \d+ characters of letters/, undefined],
    [() => object([1], 'params', ['id']), 'params', /^params must be an object \(got \[1\]\)$/, undefined],
  ];
  for (const [fn, field, message, allowed] of cases) {
    const error = refusal(fn);
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data.field, field);
    assert.match(error.message, message);
    if (allowed !== undefined) assert.equal(error.data.allowed, allowed);
  }
});

test('an unknown field is named where it is, with the fields allowed there, or none', () => {
  const top = refusal(() => object({ id: 'x', colour: 'red' }, 'params', ['id']));
  assert.deepEqual([top.data.field, top.data.allowed, top.message], ['colour', 'id', 'Unknown field "colour". Allowed: id.']);
  const nested = refusal(() => object({ base: 1 }, 'backoff', ['strategy', 'baseMs']));
  assert.deepEqual([nested.data.field, nested.message], ['backoff.base', 'Unknown field "backoff.base". Allowed: strategy, baseMs.']);
  const none = refusal(() => object({ extra: 1 }, 'params', []));
  assert.deepEqual([none.data.allowed, none.message], ['none', 'Unknown field "extra". Allowed: none.']);
  assert.deepEqual(object(undefined, 'params', ['id']), {}, 'absent params are an empty object');
});

test('a list of choices names the list as the field and the entry in the message', () => {
  assert.deepEqual(choiceList(['jobs', 'queues'], 'topics', ['jobs', 'queues', 'stats']), ['jobs', 'queues']);
  assert.equal(optionalChoiceList(undefined, 'topics', ['jobs']), undefined);
  const error = refusal(() => choiceList(['jobs', 'weather'], 'topics', ['jobs', 'queues']));
  assert.deepEqual([error.data.field, error.data.allowed, error.message], ['topics', 'jobs, queues', 'topics[1] must be one of jobs, queues (got "weather")']);
  assert.match(refusal(() => choiceList(['jobs', 'jobs', 'jobs'], 'topics', ['jobs', 'queues'])).message, /topics must have 0 to 2 items \(got 3\)/);
});

test('an oversized JSON value is PayloadTooLarge naming the field and the limit', () => {
  const error = refusal(() => jsonText({ text: 'x'.repeat(100) }, 'payload', 50));
  assert.equal(error.code, ErrorCode.PayloadTooLarge);
  assert.deepEqual([error.data.field, error.data['limit']], ['payload', 50]);
  assert.equal(jsonText({ a: 1 }, 'payload'), '{"a":1}');
});
