/**
 * A daemon of another protocol version answers at the socket: the extension says so instead of
 * talking past it, and Restart Daemon replaces it with the daemon bundled in the extension.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PROTOCOL_VERSION } from '../../../shared/protocol';
import { spool, waitFor } from './api';
import { configString, hostSuite } from './framework';

export const run = hostSuite({
  'a daemon of another protocol version is reported as a mismatch': async () => {
    const api = await spool();
    await waitFor('the mismatch state', () => api.context.connection.state === 'mismatch', 60_000);
    assert.equal(api.statusBarText(), '$(warning) Spool: version mismatch');
    const refused = await vscode.commands.executeCommand('spool.jobs.enqueue', { queue: 'q', kind: 'report' });
    assert.equal(refused, undefined, 'commands refuse while the versions differ');
  },

  'Restart Daemon replaces it with the bundled daemon': async (config) => {
    const api = await spool();
    await vscode.commands.executeCommand('spool.daemon.restart');
    assert.equal(api.context.connection.state, 'connected');
    const status = api.context.connection.status;
    assert.ok(status);
    fs.writeFileSync(path.join(configString(config, 'scratch'), 'pids.txt'), `${status.pid}\n`);
    assert.equal(status.protocolVersion, PROTOCOL_VERSION);
    assert.equal(status.dbPath, configString(config, 'dbPath'));
    assert.match(api.statusBarText(), /^\$\(pulse\) 0 running · 0 queued$/);
    await vscode.commands.executeCommand('spool.daemon.stop', { confirmed: true });
  },
});
