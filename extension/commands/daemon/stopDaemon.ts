/**
 * Ask the daemon to shut down gracefully; running jobs get its grace period to finish. One daemon
 * serves every window and terminal on its socket, so this asks first (a modal question naming
 * what stops with it); an argument `{ confirmed: true }` skips the question (tests, other
 * extensions).
 */
import * as vscode from 'vscode';
import type { SpoolContext } from '../../context';
import { command } from '../command';

function confirmedIn(arg: unknown): boolean {
  return typeof arg === 'object' && arg !== null && 'confirmed' in arg && arg.confirmed === true;
}

/** The question, with the running jobs that would be asked to stop, as the last counts say. */
export function stopQuestion(running: number): string {
  const jobs = running === 0 ? 'No job is running.' : `${running} running job${running === 1 ? '' : 's'} will be asked to stop.`;
  return `Stop the Spool daemon? It serves every VS Code window and terminal using it, not only this one. ${jobs}`;
}

async function confirmStop(ctx: SpoolContext): Promise<boolean> {
  const answer = await vscode.window.showWarningMessage(stopQuestion(ctx.connection.stats?.totals.running ?? 0), { modal: true }, 'Stop Daemon');
  return answer === 'Stop Daemon';
}

export const stopDaemon = command('spool.daemon.stop', async (ctx, arg) => {
  if (ctx.connection.endpoint !== null) {
    // A remote daemon is stopped on its own machine; stop() says so.
    await ctx.connection.stop();
    return ctx.connection.state;
  }
  if (!confirmedIn(arg) && !(await confirmStop(ctx))) return ctx.connection.state;
  await ctx.connection.stop();
  void vscode.window.setStatusBarMessage('Spool: the daemon stopped.', 4000);
  return ctx.connection.state;
});
