/** Open the daemon's log file (beside its database); VS Code reloads it as it grows. */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { defaultDbPath, defaultLogPath } from '../../../shared/client/paths';
import { readSettings } from '../../settings';
import { command } from '../command';

export const showDaemonLog = command(
  'spool.daemon.showLog',
  async (ctx) => {
    // A daemon it is connected to says where it logs (null: to its standard error, wherever
    // whatever started it sent that).
    const status = ctx.connection.state === 'connected' ? ctx.connection.status : null;
    if (status && status.logPath === null) {
      throw new Error(`The daemon (pid ${status.pid}) was not started with --detach: it logs to its standard error, not to a file.`);
    }
    const settings = readSettings();
    const logPath = status?.logPath ?? defaultLogPath(settings.databasePath !== '' ? settings.databasePath : defaultDbPath());
    if (!fs.existsSync(logPath)) {
      throw new Error(`There is no daemon log at ${logPath}: no daemon has been started there with --detach.`);
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(logPath));
    await vscode.window.showTextDocument(doc, { preview: false });
    return logPath;
  },
  false,
);
