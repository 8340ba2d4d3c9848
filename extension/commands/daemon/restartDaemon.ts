/** Stop the daemon (whatever version it is) and start the one bundled with this extension. */
import * as vscode from 'vscode';
import { command } from '../command';

export const restartDaemon = command(
  'spool.daemon.restart',
  async (ctx) => {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Restarting the Spool daemon…' }, () => ctx.connection.restart());
    return ctx.connection.state;
  },
  false,
);
