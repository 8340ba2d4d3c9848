/** Open the daemon's log file (beside its database); VS Code reloads it as it grows. */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { defaultDbPath, defaultLogPath } from '../../../shared/paths';
import { readSettings } from '../../settings';
import { command } from '../command';

export const showDaemonLog = command(
  'spool.daemon.showLog',
  async (ctx) => {
    const settings = readSettings();
    const dbPath = ctx.connection.status?.dbPath ?? (settings.databasePath !== '' ? settings.databasePath : defaultDbPath());
    const logPath = defaultLogPath(dbPath);
    if (!fs.existsSync(logPath)) {
      throw new Error(`There is no daemon log at ${logPath}. A daemon started in the foreground logs to its terminal instead.`);
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(logPath));
    await vscode.window.showTextDocument(doc, { preview: false });
    return logPath;
  },
  false,
);
