/**
 * Daemon life from the extension's side, with no daemon running at first: the extension starts
 * the daemon bundled in the installed .vsix, follows a daemon that dies and comes back
 * (reconnecting), restarts, stops and starts it, keeps an output document following across a
 * restart, and notices a daemon stopped from elsewhere. Every daemon pid is written to pids.txt
 * in the scratch folder so the outside test can make sure none survives.
 */
import { spawnSync } from 'node:child_process';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SpoolClient } from '../../../shared/client/client';
import { jobOutputUri } from '../../../extension/documents/jobOutput';
import { connected, spool, waitFor } from './api';
import { configString, hostSuite, type HostConfig } from './framework';

function notePid(config: HostConfig, pid: number): void {
  fs.appendFileSync(path.join(configString(config, 'scratch'), 'pids.txt'), `${pid}\n`);
}

/** Call the daemon as another program (another window, the CLI) would, on a connection of its own. */
async function asAnotherClient<T>(config: HostConfig, use: (client: SpoolClient) => Promise<T>): Promise<T> {
  const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** Stop the daemon the way another window's Stop Daemon does, and wait until its process is gone. */
async function stopElsewhere(config: HostConfig, pid: number): Promise<void> {
  await asAnotherClient(config, (client) => client.call('daemon.shutdown'));
  await waitFor('the daemon process to exit', () => !fs.existsSync(`/proc/${pid}`) || fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z');
}

function commandLine(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}

export const run = hostSuite({
  'with no daemon running, activation starts the bundled daemon and connects': async (config) => {
    const api = await spool();
    await connected(api);
    const status = api.context.connection.status;
    assert.ok(status);
    notePid(config, status.pid);
    assert.equal(status.socketPath, configString(config, 'socketPath'));
    assert.equal(status.dbPath, configString(config, 'dbPath'));
    const ext = vscode.extensions.getExtension('spool.spool');
    assert.ok(ext);
    // The daemon runs from the installed extension, with its packaged native SQLite module.
    assert.ok(commandLine(status.pid).includes(path.join(ext.extensionPath, 'dist', 'daemon.js')), commandLine(status.pid));
    assert.match(api.statusBarText(), /^\$\(pulse\) 0 running · 0 queued$/);
  },

  'Show Daemon Log opens the log file beside the database': async (config) => {
    const logPath = await vscode.commands.executeCommand<string>('spool.daemon.showLog');
    assert.equal(logPath, path.join(path.dirname(configString(config, 'dbPath')), 'daemon.log'));
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === logPath);
    assert.ok(doc && doc.getText().length > 0, 'the log has lines');
  },

  'when the daemon dies the status bar says reconnecting, and it reconnects when a daemon is back': async (config) => {
    const api = await spool();
    const old = api.context.connection.status;
    assert.ok(old);
    process.kill(old.pid, 'SIGKILL');
    await waitFor('the reconnecting state', () => api.context.connection.state === 'reconnecting');
    assert.equal(api.statusBarText(), '$(sync~spin) Spool: reconnecting');
    const ext = vscode.extensions.getExtension('spool.spool');
    assert.ok(ext);
    // Another window (here: the CLI's way) starts a daemon on the same socket.
    const started = spawnSync(process.execPath, [path.join(ext.extensionPath, 'dist', 'daemon.js'), '--detach', '--socket', configString(config, 'socketPath'), '--db', configString(config, 'dbPath')], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(started.status, 0, started.stderr);
    await waitFor('the extension to reconnect by itself', () => api.context.connection.state === 'connected' && api.context.connection.status?.pid !== old.pid, 60_000);
    notePid(config, api.context.connection.status?.pid ?? 0);
    await waitFor('the status bar to show counts again', () => api.statusBarText().startsWith('$(pulse) '));
    const job = await vscode.commands.executeCommand<{ id: string }>('spool.jobs.enqueue', { queue: 'after-restart', kind: 'shell', payload: { command: 'true' } });
    assert.ok(job?.id, 'commands work after the reconnect');
  },

  'Restart Daemon replaces the daemon process': async (config) => {
    const api = await spool();
    const before = api.context.connection.status?.pid;
    await vscode.commands.executeCommand('spool.daemon.restart');
    assert.equal(api.context.connection.state, 'connected');
    const after = api.context.connection.status?.pid;
    assert.ok(after && after !== before, `a new daemon (was ${before}, now ${after})`);
    notePid(config, after);
  },

  'an open output document keeps following its job after Restart Daemon': async (config) => {
    const api = await spool();
    const go = path.join(configString(config, 'scratch'), 'output-go');
    const stop = path.join(configString(config, 'scratch'), 'output-stop');
    // Held back for an hour, so that it runs only after the restart.
    const { job } = await asAnotherClient(config, (client) =>
      client.call('jobs.enqueue', {
        queue: 'follow',
        kind: 'shell',
        delayMs: 3_600_000,
        payload: { command: 'echo ready; while [ ! -f "$GO" ]; do sleep 0.1; done; echo first; while [ ! -f "$STOP" ]; do sleep 0.1; done; echo second', env: { GO: go, STOP: stop } },
      }),
    );
    const doc = await vscode.workspace.openTextDocument(jobOutputUri(job));
    assert.equal(doc.getText(), '');
    await vscode.commands.executeCommand('spool.daemon.restart');
    assert.equal(api.context.connection.state, 'connected');
    notePid(config, api.context.connection.status?.pid ?? 0);
    await asAnotherClient(config, (client) => client.call('jobs.update', { id: job.id, delayMs: 0 }));
    await waitFor('the first line', () => doc.getText() === 'ready\n', 20_000);
    // The job stays running from now on, so no change of state makes the document read again:
    // it hears of the next line through its output subscription alone.
    fs.writeFileSync(go, '');
    await waitFor('the line printed once the job was told to go on', () => doc.getText() === 'ready\nfirst\n', 20_000);
    fs.writeFileSync(stop, '');
    await waitFor('the end of the job', () => doc.getText().includes('second') && doc.getText().includes('--- the job completed ---'));
  },

  'a daemon stopped elsewhere is started again when autoStartDaemon is on': async (config) => {
    const api = await spool();
    const old = api.context.connection.status?.pid ?? 0;
    await stopElsewhere(config, old);
    await waitFor('a new daemon', () => api.context.connection.state === 'connected' && api.context.connection.status?.pid !== old, 60_000);
    notePid(config, api.context.connection.status?.pid ?? 0);
    assert.match(api.statusBarText(), /^\$\(pulse\) /);
  },

  'with autoStartDaemon off, a daemon stopped elsewhere leaves the status bar disconnected, and Start Daemon starts one': async (config) => {
    const api = await spool();
    const settings = vscode.workspace.getConfiguration('spool');
    await settings.update('autoStartDaemon', false, vscode.ConfigurationTarget.Global);
    try {
      await stopElsewhere(config, api.context.connection.status?.pid ?? 0);
      await waitFor('the reconnecting state', () => api.context.connection.state === 'reconnecting');
      await waitFor('the disconnected state', () => api.context.connection.state === 'disconnected', 30_000);
      assert.equal(api.statusBarText(), '$(debug-disconnect) Spool: disconnected');
      await vscode.commands.executeCommand('spool.daemon.start');
      assert.equal(api.context.connection.state, 'connected');
      notePid(config, api.context.connection.status?.pid ?? 0);
    } finally {
      await settings.update('autoStartDaemon', undefined, vscode.ConfigurationTarget.Global);
    }
  },

  'Stop Daemon stops it; Start Daemon starts a new one': async (config) => {
    const api = await spool();
    const pid = api.context.connection.status?.pid ?? 0;
    await vscode.commands.executeCommand('spool.daemon.stop', { confirmed: true });
    assert.equal(api.context.connection.state, 'disconnected');
    assert.equal(api.statusBarText(), '$(debug-disconnect) Spool: disconnected');
    await waitFor('the daemon process to exit', () => !fs.existsSync(`/proc/${pid}`) || fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z');
    const failed = await vscode.commands.executeCommand('spool.queues.pause', 'x');
    assert.equal(failed, undefined, 'a command that needs the daemon refuses while disconnected');
    await vscode.commands.executeCommand('spool.daemon.start');
    assert.equal(api.context.connection.state, 'connected');
    notePid(config, api.context.connection.status?.pid ?? 0);
    await vscode.commands.executeCommand('spool.daemon.stop', { confirmed: true });
  },
});
