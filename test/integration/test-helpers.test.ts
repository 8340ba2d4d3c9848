/**
 * The test helpers themselves: a failed start must not leave anything behind for the next run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { startDaemon } from '../helpers/daemon';

test('a daemon that fails to start leaves no temporary folder behind, and the error is passed on', async (t) => {
  // startDaemon makes its folder under os.tmpdir(), which follows TMPDIR; point it at a folder
  // of this test's own so that whatever is left there is what the failed start left.
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-helper-'));
  const saved = process.env.TMPDIR;
  t.after(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(parent, { recursive: true, force: true });
  });
  process.env.TMPDIR = parent;
  // --max-executors must be at least 1: the daemon refuses the option and exits.
  await assert.rejects(startDaemon({ args: ['--max-executors', '0'] }), /exited during start-up/);
  assert.deepEqual(fs.readdirSync(parent), []);
});
