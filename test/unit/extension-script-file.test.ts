/**
 * Enqueue Current File runs scripts only (extension/commands/jobs/scriptFile.ts): a file with a
 * #! line, an executable one, a .sh or .bash file; anything else is refused with why. It once
 * ran `sh settings.json`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scriptCommand } from '../../extension/commands/jobs/scriptFile';

test('a script runs with its #! line, as itself when executable, or with sh/bash by its name', () => {
  assert.deepEqual(scriptCommand('/w/build', '#!/usr/bin/env python3', false), { command: "/usr/bin/env python3 '/w/build'" });
  assert.deepEqual(scriptCommand('/w/run it', 'echo hi', true), { command: "'/w/run it'" });
  assert.deepEqual(scriptCommand('/w/deploy.sh', 'echo hi', false), { command: "sh '/w/deploy.sh'" });
  assert.deepEqual(scriptCommand('/w/deploy.BASH', '', false), { command: "bash '/w/deploy.BASH'" });
});

test('a file that is not a script is refused, and the reason says what would make it one', () => {
  const result = scriptCommand('/home/me/.config/Code/User/settings.json', '{', false);
  assert.ok('refused' in result);
  assert.match(result.refused, /^settings\.json is not a script: it has no #! line, is not marked executable, and is not a \.sh or \.bash file\./);
  assert.match(result.refused, /add a #! line .* or mark it executable/);
});
