/** The `::spool` report lines a job's command prints: what each means, and what is refused and why. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOutputCommand } from '../../shared/domain/outputCommands';

test('ordinary lines are not commands', () => {
  for (const line of ['', 'progress 40', ' ::spool progress 40', '::spoolprogress 40', 'echo ::spool progress 40']) {
    assert.equal(parseOutputCommand(line), null, line);
  }
});

test('progress takes a percentage from 0 to 100 and an optional message', () => {
  assert.deepEqual(parseOutputCommand('::spool progress 40 compiling'), { kind: 'progress', percent: 40, message: 'compiling' });
  assert.deepEqual(parseOutputCommand('::spool progress 12.5   linking  the  world '), { kind: 'progress', percent: 12.5, message: 'linking  the  world' });
  assert.deepEqual(parseOutputCommand('::spool progress 100'), { kind: 'progress', percent: 100, message: null });
  assert.deepEqual(parseOutputCommand('::spool progress 0\t'), { kind: 'progress', percent: 0, message: null });
  for (const line of ['::spool progress', '::spool progress 101', '::spool progress -1', '::spool progress lots', '::spool progress 4O', '::spool progressive 4']) {
    const command = parseOutputCommand(line);
    assert.equal(command?.kind, 'invalid', line);
    assert.match(command.kind === 'invalid' ? command.reason : '', /::spool progress <0 to 100> \[message\]/);
  }
});

test('checkpoint takes one JSON value; null clears it', () => {
  assert.deepEqual(parseOutputCommand('::spool checkpoint {"step":3}'), { kind: 'checkpoint', checkpoint: { step: 3 } });
  assert.deepEqual(parseOutputCommand('::spool checkpoint [1, "two"]'), { kind: 'checkpoint', checkpoint: [1, 'two'] });
  assert.deepEqual(parseOutputCommand('::spool checkpoint null'), { kind: 'checkpoint', checkpoint: null });
  const notJson = parseOutputCommand('::spool checkpoint {step:3}');
  assert.equal(notJson?.kind, 'invalid');
  assert.match(notJson.kind === 'invalid' ? notJson.reason : '', /not JSON/);
  assert.equal(parseOutputCommand('::spool checkpoint')?.kind, 'invalid');
});

test('an unknown command names the ones there are', () => {
  const command = parseOutputCommand('::spool done');
  assert.equal(command?.kind, 'invalid');
  assert.match(command.kind === 'invalid' ? command.reason : '', /::spool progress .*::spool checkpoint/);
});
