/** Open the daemon's log file (beside its database); VS Code reloads it as it grows. */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { defaultDbPath, defaultLogPath } from '../../../shared/paths';
import { readSettings } from '../../settings';
import { command } from '../command';

export const showDaemonLog = command(
  'spool.daemon.showLog',
  async (ctx) => {
    const status = ctx.connection.status;
    // A running daemon says where it logs (null: to the terminal or process that started it).
    if (status && status.logPath === null) {
      throw new Error(`The daemon (pid ${status.pid}) was started in the foreground: it logs to its terminal, not to a file.`);
    }
    const settings = readSettings();
    const logPath = status?.logPath ?? defaultLogPath(settings.databasePath !== '' ? settings.databasePath : defaultDbPath());
    if (!fs.existsSync(logPath)) {
      throw new Error(`There is no daemon log at ${logPath}. A daemon started in the foreground logs to its terminal instead.`);
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(logPath));
    await vscode.window.showTextDocument(doc, { preview: false });
    return logPath;
  },
  false,
);
