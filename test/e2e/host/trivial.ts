/**
 * The harness's own check: one suite whose tests pass, and (with config `fail: true`) one that
 * must be reported as failed. Proves that a host test can fail the run.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { hostSuite } from './framework';

export const run = hostSuite({
  'the extension host runs the suite with the vscode API': () => {
    assert.equal(typeof vscode.version, 'string');
    assert.ok(vscode.version.startsWith('1.100'), `VS Code ${vscode.version}`);
  },
  'the packaged Spool extension is installed': () => {
    assert.ok(vscode.extensions.getExtension('spool.spool'), 'spool.spool is not among the extensions');
  },
  'a failing assertion fails the run when asked to': (config) => {
    if (config.fail === true) assert.equal(1 + 1, 3, 'deliberate failure');
  },
});
